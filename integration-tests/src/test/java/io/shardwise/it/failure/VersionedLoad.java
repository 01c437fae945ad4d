package io.shardwise.it.failure;

import io.shardwise.client.CacheClient;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import org.HdrHistogram.Recorder;

/**
 * Threads doing mixed get/set on a fixed key space where every value is {@code key|version}, so
 * that a wrong value (another key's) and an old value (a version below the last one confirmed
 * written before the read started) are both detectable.
 *
 * <p>Each key has one writer thread (key {@code i} belongs to thread {@code i % threads}), so its
 * versions are written in order and "confirmed" means the write of that version returned. Any
 * thread reads any key.
 */
final class VersionedLoad {

  /** One failed operation: when it started and when it failed. */
  record Failure(long startNanos, long atNanos, int thread, String key, Node primary, Throwable error) {}

  /** One read that returned a value it must not have. */
  record BadRead(long atNanos, String key, String value, long minVersion, Node primary) {}

  private final CacheClient<String> client;
  private final int keys;
  private final int threads;
  private final AtomicLongArray confirmed;
  private final List<Thread> workers = new ArrayList<>();
  private final AtomicBoolean running = new AtomicBoolean(true);
  /** The first {@link #KEPT_FAILURES} failures; {@link #failureCount} counts them all. */
  final ConcurrentLinkedQueue<Failure> failures = new ConcurrentLinkedQueue<>();
  final AtomicLong failureCount = new AtomicLong();
  static final int KEPT_FAILURES = 10_000;
  final ConcurrentLinkedQueue<BadRead> wrong = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<BadRead> stale = new ConcurrentLinkedQueue<>();
  final AtomicLong reads = new AtomicLong();
  final AtomicLong writes = new AtomicLong();
  final AtomicLong hits = new AtomicLong();
  /** Latency of requests whose key's primary is not {@link #watched}, in microseconds. */
  final Recorder others = new Recorder(3);
  /** Latency of requests whose key's primary is {@link #watched}, in microseconds. */
  final Recorder watchedLatency = new Recorder(3);
  volatile Node watched;
  private final LongSupplier clock = System::nanoTime;

  VersionedLoad(CacheClient<String> client, int keys, int threads) {
    this.client = client;
    this.keys = keys;
    this.threads = threads;
    this.confirmed = new AtomicLongArray(keys);
  }

  static String key(int i) {
    return "fi:" + i;
  }

  VersionedLoad start() {
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread w = new Thread(() -> run(thread), "load-" + t);
      w.setDaemon(true);
      workers.add(w);
      w.start();
    }
    return this;
  }

  private void run(int thread) {
    SplittableRandom random = new SplittableRandom(thread * 7919L + 1);
    long[] nextVersion = new long[keys];
    while (running.get()) {
      boolean write = random.nextBoolean();
      int i = write ? pickOwned(random, thread) : random.nextInt(keys);
      String key = key(i);
      Node primary = client.nodeFor(key);
      long start = clock.getAsLong();
      try {
        if (write) {
          long version = ++nextVersion[i];
          client.set(key, key + "|" + version, Duration.ZERO);
          confirmed.set(i, version);
          writes.incrementAndGet();
        } else {
          long min = confirmed.get(i);
          String value = client.get(key);
          reads.incrementAndGet();
          if (value != null) {
            hits.incrementAndGet();
            check(key, value, min, primary);
          }
        }
      } catch (RuntimeException e) {
        if (failureCount.incrementAndGet() <= KEPT_FAILURES) {
          failures.add(new Failure(start, clock.getAsLong(), thread, key, primary, e));
        }
      }
      long micros = (clock.getAsLong() - start) / 1000;
      (primary.equals(watched) ? watchedLatency : others).recordValue(Math.max(1, micros));
    }
  }

  private int pickOwned(SplittableRandom random, int thread) {
    int slots = (keys - thread + threads - 1) / threads;
    return thread + threads * random.nextInt(slots);
  }

  private void check(String key, String value, long minVersion, Node primary) {
    int bar = value.lastIndexOf('|');
    if (bar < 0 || !value.substring(0, bar).equals(key)) {
      wrong.add(new BadRead(clock.getAsLong(), key, value, minVersion, primary));
      return;
    }
    long version = Long.parseLong(value.substring(bar + 1));
    if (version < minVersion) {
      stale.add(new BadRead(clock.getAsLong(), key, value, minVersion, primary));
    }
  }

  /** The highest version of key {@code i} confirmed written so far. */
  long confirmed(int i) {
    return confirmed.get(i);
  }

  long now() {
    return clock.getAsLong();
  }

  /** Stops the threads and waits for them. */
  void close() throws InterruptedException {
    running.set(false);
    for (Thread w : workers) {
      w.join(10_000);
    }
  }
}
