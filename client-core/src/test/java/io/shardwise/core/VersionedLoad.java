package io.shardwise.core;

import io.shardwise.client.CacheClient;
import io.shardwise.client.MultiResult;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The load of the model tests: threads read, write, delete, fill and touch versioned values ({@code
 * key|version}) and check every value read: a value of another key is wrong, and one older than a
 * version whose write (or delete) was confirmed before the read started is stale. Key {@code i} is
 * written only by thread {@code i % threads}, so its versions are written in order.
 *
 * <p>Counters, with a {@link Mix#count} share: a quarter as many keys as the versioned ones, each
 * updated by one thread only, the even ones by {@code incr} alone and the odd ones by {@code decr}
 * alone, and read by gets ({@link Mix#countGet}). Each update passes an initial value beyond every
 * value the key has had (one 2<sup>32</sup> step further per update, up for incr and down for
 * decr), so that a counter created again (its server restarted empty) still moves the same way: a
 * count read is stale if it is behind one an update confirmed before the read started.
 */
final class VersionedLoad {

  /**
   * Shares of the operations, in percent (summing to 100): on versioned keys, and on counters
   * ({@code count}: an incr or a decr, {@code countGet}: a get).
   */
  record Mix(
      int get, int getMulti, int set, int fill, int delete, int setMulti, int deleteMulti, int touch, int count, int countGet) {
    Mix {
      if (get + getMulti + set + fill + delete + setMulti + deleteMulti + touch + count + countGet != 100) {
        throw new IllegalArgumentException("shares must sum to 100");
      }
    }

    /** Versioned keys only, without touches. */
    Mix(int get, int getMulti, int set, int fill, int delete, int setMulti, int deleteMulti) {
      this(get, getMulti, set, fill, delete, setMulti, deleteMulti, 0, 0, 0);
    }
  }

  /**
   * What a run read and wrote: {@code reads}, {@code hits}, {@code writes} and {@code stale} count
   * counters too; {@code touches}, {@code counted} (updates confirmed), {@code countHits} (counter
   * reads that found one) and {@code staleCounts} (counter reads behind a confirmed count) are also
   * counted alone.
   */
  record Outcome(
      long reads,
      long hits,
      long writes,
      long stale,
      long wrong,
      long touches,
      long counted,
      long countHits,
      long staleCounts,
      List<String> examples) {}

  /** The first update's step of a counter's initial value: far beyond the deltas (1 to 3) a run adds. */
  private static final int STEP_BITS = 32;
  /** Where the decremented counters start, far above their steps down. */
  private static final long DOWN_FROM = 1L << 62;

  private final CacheClient<String> client;
  private final String prefix;
  private final int keys;
  private final int threads;
  private final Mix mix;
  private final AtomicLongArray confirmed;
  /**
   * Per counter, how far its confirmed updates took it: the value for incremented ones, its negation
   * for decremented ones, so that further is always more.
   */
  private final AtomicLongArray counts;
  private final int counters;
  private final AtomicLong touches = new AtomicLong();
  private final AtomicLong counted = new AtomicLong();
  private final AtomicLong countHits = new AtomicLong();
  private final AtomicLong staleCounts = new AtomicLong();
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final AtomicLong reads = new AtomicLong();
  private final AtomicLong hits = new AtomicLong();
  private final AtomicLong writes = new AtomicLong();
  private final ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
  private final List<Thread> workers = new ArrayList<>();

  VersionedLoad(CacheClient<String> client, String prefix, int keys, int threads, Mix mix) {
    this.client = client;
    this.prefix = prefix;
    this.keys = keys;
    this.threads = threads;
    this.mix = mix;
    this.confirmed = new AtomicLongArray(keys);
    this.counters = mix.count() + mix.countGet() > 0 ? Math.max(2 * threads, keys / 4 / threads * threads) : 0;
    this.counts = new AtomicLongArray(counters);
    for (int j = 0; j < counters; j++) {
      counts.set(j, Long.MIN_VALUE);
    }
  }

  /** Starts the threads; thread {@code t} draws from {@code new SplittableRandom(seed * 1000 + t)}. */
  VersionedLoad start(long seed) {
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread w = new Thread(() -> run(new SplittableRandom(seed * 1000 + thread), thread), "model-" + t);
      workers.add(w);
      w.start();
    }
    return this;
  }

  /** The reads and the hits so far, in that order. */
  long[] counts() {
    return new long[] {reads.get(), hits.get()};
  }

  /** The touches, the counter updates confirmed and the counter reads that found one so far, in that order. */
  long[] nearCounts() {
    return new long[] {touches.get(), counted.get(), countHits.get()};
  }

  /**
   * Waits until {@code enough} holds or {@code maxNanos} have passed, polling every 20 ms. A model
   * run's floors (hits, ejections, changes) count what it did, and a loaded machine does less per
   * second: the run goes on until it has done that much instead of failing for want of CPU, and a
   * run that never gets there still fails its floor.
   */
  static void runUntil(java.util.function.BooleanSupplier enough, long maxNanos) throws InterruptedException {
    long until = System.nanoTime() + maxNanos;
    while (!enough.getAsBoolean() && System.nanoTime() - until < 0) {
      Thread.sleep(20);
    }
  }

  /** Stops the threads, waits for them, and returns what they did. */
  Outcome stop() throws InterruptedException {
    running.set(false);
    for (Thread w : workers) {
      w.join(5000);
    }
    return new Outcome(
        reads.get(), hits.get(), writes.get(), stale.size(), wrong.size(), touches.get(), counted.get(), countHits.get(),
        staleCounts.get(), stale.stream().limit(5).toList());
  }

  /** A get of {@code key}, traced before ({@code before}) and after when the fleet traces. */
  private String tracedGet(String key, String before) {
    if (SimulatedFleet.TRACING) {
      SimulatedFleet.trace(key, before);
    }
    String value = client.get(key);
    if (SimulatedFleet.TRACING) {
      SimulatedFleet.trace(key, "get returned " + value);
    }
    return value;
  }

  private void run(SplittableRandom random, int thread) {
    long[] next = new long[keys];
    long[] updates = new long[counters];
    while (running.get()) {
      int op = random.nextInt(100);
      try {
        if ((op -= mix.get()) < 0) {
          int i = random.nextInt(keys);
          long min = confirmed.get(i);
          String value = tracedGet(key(i), "get, confirmed " + min);
          reads.incrementAndGet();
          check(i, value, min);
        } else if ((op -= mix.getMulti()) < 0) {
          int[] idx = new int[8];
          long[] min = new long[8];
          List<String> batch = new ArrayList<>();
          for (int k = 0; k < 8; k++) {
            idx[k] = random.nextInt(keys);
            min[k] = confirmed.get(idx[k]);
            batch.add(key(idx[k]));
          }
          traceAll(batch, "getMulti");
          MultiResult<String> result = client.getMulti(batch);
          traceAll(batch, "getMulti returned");
          for (int k = 0; k < 8; k++) {
            reads.incrementAndGet();
            check(idx[k], result.values().get(key(idx[k])), min[k]);
          }
        } else if ((op -= mix.set()) < 0) {
          int i = owned(random, thread);
          long version = ++next[i];
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "set " + version);
          }
          client.set(key(i), key(i) + "|" + version, Duration.ZERO);
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "set " + version + " confirmed");
          }
          confirm(i, version);
        } else if ((op -= mix.fill()) < 0) {
          // A cache-aside fill of the row as the "database" has it now: this thread's last write.
          int i = owned(random, thread);
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "add " + next[i]);
          }
          boolean added = client.add(key(i), key(i) + "|" + next[i], Duration.ZERO);
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "add " + next[i] + " returned " + added);
          }
        } else if ((op -= mix.delete()) < 0) {
          int i = owned(random, thread);
          long version = ++next[i];
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "delete " + version);
          }
          client.delete(key(i));
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "delete " + version + " confirmed");
          }
          confirm(i, version);
        } else if ((op -= mix.setMulti()) < 0) {
          Map<String, String> batch = new LinkedHashMap<>();
          long[] versions = new long[4];
          int[] idx = new int[4];
          for (int k = 0; k < 4; k++) {
            idx[k] = owned(random, thread);
            versions[k] = ++next[idx[k]];
            batch.put(key(idx[k]), key(idx[k]) + "|" + versions[k]);
          }
          traceAll(batch.keySet(), "setMulti");
          MultiResult<Boolean> result = client.setMulti(batch, Duration.ZERO);
          traceAll(result.values().keySet(), "setMulti confirmed");
          for (int k = 0; k < 4; k++) {
            if (result.values().containsKey(key(idx[k]))) {
              confirm(idx[k], versions[k]);
            }
          }
        } else if ((op -= mix.deleteMulti()) < 0) {
          List<String> batch = new ArrayList<>();
          long[] versions = new long[3];
          int[] idx = new int[3];
          for (int k = 0; k < 3; k++) {
            idx[k] = owned(random, thread);
            versions[k] = ++next[idx[k]];
            batch.add(key(idx[k]));
          }
          traceAll(batch, "deleteMulti");
          MultiResult<Boolean> result = client.deleteMulti(batch);
          traceAll(result.values().keySet(), "deleteMulti confirmed");
          for (int k = 0; k < 3; k++) {
            if (result.values().containsKey(key(idx[k]))) {
              confirm(idx[k], versions[k]);
            }
          }
        } else if ((op -= mix.touch()) < 0) {
          // Any key, whoever writes it: a touch changes no value, and the reads after it must still
          // find the latest one.
          int i = random.nextInt(keys);
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "touch");
          }
          boolean held = client.touch(key(i), Duration.ZERO);
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(key(i), "touch returned " + held);
          }
          touches.incrementAndGet();
        } else if ((op -= mix.count()) < 0) {
          int j = thread + threads * random.nextInt(counters / threads);
          long update = ++updates[j];
          long delta = 1 + random.nextInt(3);
          boolean up = j % 2 == 0;
          long initial = up ? (update + 1) << STEP_BITS : DOWN_FROM - ((update + 1) << STEP_BITS);
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(counter(j), (up ? "incr " : "decr ") + delta + " initial " + initial);
          }
          long value = up ? client.incr(counter(j), delta, initial, Duration.ZERO) : client.decr(counter(j), delta, initial, Duration.ZERO);
          if (SimulatedFleet.TRACING) {
            SimulatedFleet.trace(counter(j), "counted " + value);
          }
          counts.accumulateAndGet(j, up ? value : -value, Math::max);
          counted.incrementAndGet();
          writes.incrementAndGet();
        } else {
          int j = random.nextInt(counters);
          long min = counts.get(j);
          String value = tracedGet(counter(j), "get, counted " + min);
          reads.incrementAndGet();
          checkCount(j, value, min);
        }
      } catch (RuntimeException expected) {
        // node failures while nodes flap: the write's version stays unconfirmed
      }
    }
  }

  private static void traceAll(java.util.Collection<String> keys, String what) {
    if (SimulatedFleet.TRACING) {
      keys.forEach(k -> SimulatedFleet.trace(k, what));
    }
  }

  private void confirm(int i, long version) {
    confirmed.accumulateAndGet(i, version, Math::max);
    writes.incrementAndGet();
  }

  private void check(int i, String value, long min) {
    if (value == null) {
      return;
    }
    hits.incrementAndGet();
    int bar = value.lastIndexOf('|');
    if (bar < 0 || !value.substring(0, bar).equals(key(i))) {
      wrong.add(key(i) + " read " + value);
      return;
    }
    long version = Long.parseLong(value.substring(bar + 1));
    if (version < min) {
      stale.add(key(i) + " read version " + version + " after version " + min + " was confirmed");
      if (SimulatedFleet.TRACING && stale.size() == 1) {
        SimulatedFleet.trace(key(i), "STALE read " + version + " after " + min);
      }
    }
  }

  /**
   * Checks a count read of counter {@code j} against {@code min}, how far its updates confirmed before
   * the read took it: a number behind it is stale, and anything else is wrong.
   */
  private void checkCount(int j, String value, long min) {
    if (value == null) {
      return;
    }
    hits.incrementAndGet();
    countHits.incrementAndGet();
    long v;
    try {
      v = Long.parseLong(value);
    } catch (NumberFormatException e) {
      wrong.add(counter(j) + " read " + value);
      return;
    }
    long reached = j % 2 == 0 ? v : -v;
    if (reached < min) {
      staleCounts.incrementAndGet();
      stale.add(counter(j) + " read count " + v + " after count " + (j % 2 == 0 ? min : -min) + " was confirmed");
      if (SimulatedFleet.TRACING && stale.size() == 1) {
        SimulatedFleet.trace(counter(j), "STALE count " + v);
      }
    }
  }

  private String counter(int j) {
    return prefix + "n" + j;
  }

  private int owned(SplittableRandom random, int thread) {
    return thread + threads * random.nextInt(keys / threads);
  }

  private String key(int i) {
    return prefix + i;
  }
}
