package io.shardwise.benchmarks.e2e;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.Future;

/**
 * One load thread's state: its seeded key sequence (the same seed gives both sides of a pair the
 * same keys in the same order), buffers for a batch, and the count of wrong values read.
 */
final class Worker {

  private final Dataset data;
  private final SplittableRandom random;
  private final int[] permutation;
  private long commands;
  private long wrongValues;
  final Future<?>[] pending;
  final int[] pendingKeys;

  Worker(Dataset data, long seed, int batchSize) {
    this.data = data;
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

  /** A uniformly random key index. */
  int nextKey() {
    return random.nextInt(data.size());
  }

  /** Alternates get (true) and set (false), starting with a get. */
  boolean nextIsGet() {
    return (commands++ & 1) == 0;
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
