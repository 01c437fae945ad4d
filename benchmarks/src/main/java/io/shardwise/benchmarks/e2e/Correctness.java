package io.shardwise.benchmarks.e2e;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.Future;

/**
 * Checks, before a scenario is timed, that its contenders store and read the same data, so that a
 * client cannot look fast because it is broken: every contender reads every key of the data set
 * back equal; a value each one writes (sync and async) reads back equal through every contender;
 * a miss is a miss; multi-gets return every key; and on several nodes both sides place every key
 * on the same server.
 */
final class Correctness {

  private static final int CHUNK = 500;

  private Correctness() {}

  /** Writes the whole data set through {@code writer}, {@value #CHUNK} async sets at a time. */
  static void populate(Contender writer, Dataset data) throws Exception {
    for (int from = 0; from < data.size(); from += CHUNK) {
      int to = Math.min(data.size(), from + CHUNK);
      List<Future<?>> sets = new ArrayList<>();
      for (int i = from; i < to; i++) {
        sets.add(writer.setAsync(data.key(i), data.value(i)));
      }
      for (Future<?> set : sets) {
        if (Boolean.FALSE.equals(set.get())) {
          throw new IllegalStateException(writer.name() + " did not store a key of the data set");
        }
      }
    }
  }

  /**
   * Runs every check; returns a one-line summary, or throws {@link IllegalStateException} naming
   * the contender, the key and what differed.
   */
  static String verify(Scenario scenario, List<Contender> contenders, Dataset data, long seed)
      throws Exception {
    for (Contender c : contenders) {
      readAll(c, data);
    }
    SplittableRandom random = new SplittableRandom(seed);
    String run = Long.toHexString(random.nextLong());
    for (int w = 0; w < contenders.size(); w++) {
      Contender writer = contenders.get(w);
      byte[] syncValue = randomValue(random, data.valueBytes());
      byte[] asyncValue = randomValue(random, data.valueBytes());
      String syncKey = "e2e:check:" + run + ":sync:" + w;
      String asyncKey = "e2e:check:" + run + ":async:" + w;
      writer.set(syncKey, syncValue);
      Object stored = writer.setAsync(asyncKey, asyncValue).get();
      if (Boolean.FALSE.equals(stored)) {
        throw new IllegalStateException(writer.name() + " did not store " + asyncKey);
      }
      for (Contender reader : contenders) {
        expect(reader, syncKey, syncValue, reader.get(syncKey), writer);
        expect(reader, asyncKey, asyncValue, reader.getAsync(asyncKey).get(), writer);
      }
    }
    String absent = "e2e:check:" + run + ":absent";
    for (Contender c : contenders) {
      if (c.get(absent) != null || c.getAsync(absent).get() != null) {
        throw new IllegalStateException(c.name() + " returned a value for the absent key " + absent);
      }
    }
    String summary =
        data.size()
            + " keys read back equal by "
            + contenders.size()
            + " clients; sync and async writes of each read back equal by all; misses are null";
    if (scenario.workload() == Workload.GET_MULTI
        || scenario.workload() == Workload.GET_MULTI_LARGE) {
      summary += "; " + checkMultiGet(contenders, data, random);
    }
    if (scenario.nodes() > 1) {
      summary += "; " + checkPlacement(contenders, data);
    }
    return summary;
  }

  private static void readAll(Contender c, Dataset data) throws Exception {
    for (int from = 0; from < data.size(); from += CHUNK) {
      int to = Math.min(data.size(), from + CHUNK);
      List<Future<?>> gets = new ArrayList<>();
      for (int i = from; i < to; i++) {
        gets.add(c.getAsync(data.key(i)));
      }
      for (int i = from; i < to; i++) {
        Object read = gets.get(i - from).get();
        if (!(read instanceof byte[] && Arrays.equals((byte[]) read, data.value(i)))) {
          throw new IllegalStateException(
              c.name() + " read " + describe(read) + " for " + data.key(i) + ", expected "
                  + describe(data.value(i)));
        }
      }
    }
  }

  private static String checkMultiGet(List<Contender> contenders, Dataset data, SplittableRandom random)
      throws Exception {
    Worker worker = new Worker(data, random.nextLong(), Workload.BATCH);
    int rounds = 20;
    for (int r = 0; r < rounds; r++) {
      List<String> keys = new ArrayList<>(worker.distinctKeys(Workload.BATCH));
      int[] indices = worker.pendingKeys.clone();
      keys.add("e2e:check:absent:" + r);
      for (Contender c : contenders) {
        Map<String, ?> found = c.getMulti(keys);
        if (found.size() != Workload.BATCH || found.containsKey(keys.get(Workload.BATCH))) {
          throw new IllegalStateException(
              c.name() + " getMulti of " + Workload.BATCH + " keys and one absent key returned "
                  + found.size() + " values: " + found.keySet());
        }
        for (int j = 0; j < Workload.BATCH; j++) {
          Object read = found.get(keys.get(j));
          if (!(read instanceof byte[] && Arrays.equals((byte[]) read, data.value(indices[j])))) {
            throw new IllegalStateException(
                c.name() + " getMulti read " + describe(read) + " for " + keys.get(j));
          }
        }
      }
    }
    return rounds + " multi-gets of " + Workload.BATCH + " keys + 1 absent exact on every client";
  }

  private static String checkPlacement(List<Contender> contenders, Dataset data) {
    Contender peer = contenders.get(0);
    Contender shardwise = contenders.get(1);
    int differ = 0;
    String example = null;
    for (int i = 0; i < data.size(); i++) {
      Optional<String> a = peer.serverOf(data.key(i));
      Optional<String> b = shardwise.serverOf(data.key(i));
      if (a.isEmpty() || b.isEmpty()) {
        throw new IllegalStateException("cannot compare key placement of " + peer.name()
            + " and " + shardwise.name());
      }
      if (!a.equals(b)) {
        differ++;
        example = example != null ? example : data.key(i) + ": " + a.get() + " vs " + b.get();
      }
    }
    if (differ > 0) {
      throw new IllegalStateException(
          peer.name() + " and " + shardwise.name() + " place " + differ + " of " + data.size()
              + " keys on different servers, e.g. " + example);
    }
    return "all " + data.size() + " keys placed on the same server by both";
  }

  private static void expect(
      Contender reader, String key, byte[] expected, Object read, Contender writer) {
    if (!(read instanceof byte[] && Arrays.equals((byte[]) read, expected))) {
      throw new IllegalStateException(
          reader.name() + " read " + describe(read) + " for " + key + " written by "
              + writer.name() + ", expected " + describe(expected));
    }
  }

  private static byte[] randomValue(SplittableRandom random, int size) {
    byte[] value = new byte[size];
    random.nextBytes(value);
    return value;
  }

  private static String describe(Object value) {
    if (value instanceof byte[]) {
      byte[] b = (byte[]) value;
      return b.length + " bytes " + Arrays.toString(Arrays.copyOf(b, Math.min(8, b.length)))
          + (b.length > 8 ? "..." : "");
    }
    return Objects.toString(value);
  }
}
