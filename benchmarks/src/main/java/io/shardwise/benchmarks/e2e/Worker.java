package io.shardwise.benchmarks.e2e;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Future;

/**
 * One load thread's state: its seeded key sequence (the same seed gives both sides of a pair the
 * same keys in the same order), buffers for a batch, and the counts of gets issued and wrong values
 * read. Keys come from a {@link KeyStream} (uniform unless told otherwise); gets and sets alternate,
 * or, with a get percentage, each command is a get with that probability.
 */
final class Worker {

  private final Dataset data;
  private final SplittableRandom random;
  private final int[] permutation;
  private final KeyStream keys;
  /** Percent of commands that are gets, drawn per command; -1 to alternate. */
  private final int getPercent;
  private long commands;
  private long gets;
  private long wrongValues;
  final Future<?>[] pending;
  final int[] pendingKeys;

  Worker(Dataset data, long seed, int batchSize) {
    this(data, seed, batchSize, KeyStream.uniform(data.size()), -1);
  }

  /** Keys from {@code keys}; gets {@code getPercent} % of commands, or alternating when -1. */
  Worker(Dataset data, long seed, int batchSize, KeyStream keys, int getPercent) {
    this.data = data;
    this.keys = keys;
    this.getPercent = getPercent;
    this.random = new SplittableRandom(seed);
    this.permutation = new int[data.size()];
    for (int i = 0; i < permutation.length; i++) {
      permutation[i] = i;
    }
    this.pending = new Future<?>[batchSize];
    this.pendingKeys = new int[batchSize];
  }

  Dataset data() {
    return data;
  }

  /** The next key index of the stream (uniformly random unless told otherwise). */
  int nextKey() {
    return keys.next(random);
  }

  /**
   * Whether the next command is a get: alternately get and set, starting with a get, or a get with
   * the probability given.
   */
  boolean nextIsGet() {
    boolean get = getPercent < 0 ? (commands++ & 1) == 0 : random.nextInt(100) < getPercent;
    if (get) {
      gets++;
    }
    return get;
  }

  /** Gets issued so far (single-key steps). */
  long gets() {
    return gets;
  }

  /**
   * {@code n} (at most the batch size) distinct random keys, by a partial Fisher-Yates shuffle;
   * their indices are left in {@link #pendingKeys}.
   */
  List<String> distinctKeys(int n) {
    List<String> keys = new ArrayList<>(n);
    for (int j = 0; j < n; j++) {
      int k = j + random.nextInt(permutation.length - j);
      int chosen = permutation[k];
      permutation[k] = permutation[j];
      permutation[j] = chosen;
      pendingKeys[j] = chosen;
      keys.add(data.key(chosen));
    }
    return keys;
  }

  /** Counts {@code read} as wrong unless it is exactly the value of key {@code index}. */
  void check(int index, Object read) {
    if (!(read instanceof byte[] && Arrays.equals((byte[]) read, data.value(index)))) {
      wrongValues++;
    }
  }

  /** Counts a wrong value found by the caller. */
  void wrong() {
    wrongValues++;
  }

  long wrongValues() {
    return wrongValues;
  }
}
