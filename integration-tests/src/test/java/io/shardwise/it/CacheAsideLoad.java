package io.shardwise.it;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Cache-aside load as an application does it, over a "database" of versioned rows: a read that
 * misses loads the row's current version and stores it with {@code add} (so it never overwrites a
 * newer write); a write bumps the row's version and stores it with {@code set}. Each value is
 * {@code key|version}, so a wrong value (another key's) and a stale one (older than a version
 * whose write had returned before the read started) are detected.
 *
 * <p>Key {@code i} is written only by thread {@code i % threads}, and thread {@code t} uses client
 * {@code t % clients}: each key's writes come from one client, in order.
 */
final class CacheAsideLoad implements AutoCloseable {

  /** Counts at one moment. */
  record Counts(long reads, long hits, long errors, long stale, long wrong) {
    Counts minus(Counts o) {
      return new Counts(reads - o.reads, hits - o.hits, errors - o.errors, stale - o.stale, wrong - o.wrong);
    }

    double hitRate() {
      return reads == 0 ? 0 : hits / (double) reads;
    }
  }

  private final List<CacheClient<String>> clients = new ArrayList<>();
  private final int keys;
  private final int threads;
  private final AtomicLongArray versions;
  private final AtomicLongArray confirmed;
  private final AtomicBoolean running = new AtomicBoolean(true);
  private final List<Thread> workers = new ArrayList<>();
  private final LongAdder reads = new LongAdder();
  private final LongAdder hits = new LongAdder();
  private final LongAdder errors = new LongAdder();
  private final LongAdder stale = new LongAdder();
  private final LongAdder wrong = new LongAdder();
  final ConcurrentLinkedQueue<String> firstProblems = new ConcurrentLinkedQueue<>();

  CacheAsideLoad(List<? extends AsyncCacheClient<String>> clients, int keys, int threads) {
    clients.forEach(c -> this.clients.add(c.sync()));
    this.keys = keys;
    this.threads = threads;
    this.versions = new AtomicLongArray(keys);
    this.confirmed = new AtomicLongArray(keys);
  }

  static String key(int i) {
    return "ca:" + i;
  }

  /** Stores version 0 of every row through the first client. */
  CacheAsideLoad preload() {
    Map<String, String> batch = new HashMap<>();
    for (int i = 0; i < keys; i++) {
      batch.put(key(i), key(i) + "|0");
      if (batch.size() == 1000 || i == keys - 1) {
        clients.get(0).setMulti(batch, Duration.ZERO).valuesOrThrow();
        batch.clear();
      }
    }
    return this;
  }

  CacheAsideLoad start() {
    for (int t = 0; t < threads; t++) {
      int thread = t;
      Thread w = new Thread(() -> run(thread), "cache-aside-" + t);
      w.setDaemon(true);
      workers.add(w);
      w.start();
    }
    return this;
  }

  private void run(int thread) {
    SplittableRandom random = new SplittableRandom(thread * 31L + 7);
    CacheClient<String> client = clients.get(thread % clients.size());
    while (running.get()) {
      int k = random.nextInt(keys);
      String key = key(k);
      try {
        if (k % threads == thread && random.nextInt(5) == 0) {
          long v = versions.incrementAndGet(k);
          client.set(key, key + "|" + v, Duration.ZERO);
          confirmed.set(k, v);
          continue;
        }
        long min = confirmed.get(k);
        String value = client.get(key);
        reads.increment();
        if (value == null) {
          long v = versions.get(k);
          client.add(key, key + "|" + v, Duration.ZERO);
          continue;
        }
        hits.increment();
        int bar = value.indexOf('|');
        if (bar < 0 || !value.substring(0, bar).equals(key)) {
          wrong.increment();
          note("wrong value for " + key + ": " + value);
        } else if (Long.parseLong(value.substring(bar + 1)) < min) {
          stale.increment();
          note("stale value for " + key + ": " + value + ", version " + min + " was written before");
        }
      } catch (RuntimeException e) {
        errors.increment();
        note(key + ": " + e);
      }
    }
  }

  private void note(String problem) {
    if (firstProblems.size() < 20) {
      firstProblems.add(problem);
    }
  }

  Counts counts() {
    return new Counts(reads.sum(), hits.sum(), errors.sum(), stale.sum(), wrong.sum());
  }

  /** The counts over the next {@code reads} reads from now. */
  Counts over(long readCount) {
    Counts start = counts();
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (counts().reads() - start.reads() < readCount) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("fewer than " + readCount + " reads in 120 s: " + counts().minus(start));
      }
      CacheFleet.sleep(5);
    }
    return counts().minus(start);
  }

  @Override
  public void close() {
    stop();
  }

  /** Stops the threads and waits for them. */
  void stop() {
    running.set(false);
    for (Thread w : workers) {
      try {
        w.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
