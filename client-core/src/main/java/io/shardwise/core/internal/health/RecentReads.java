package io.shardwise.core.internal.health;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Replicated reads sent to one server over the last second, in ten buckets of 100 ms: the load
 * the power of two choices compares between a key's replicas. Lock free, an estimate: a bucket
 * that comes round again is reset by the first thread to see its old tick, and an increment that
 * races with the reset may be lost. Kept by the {@link Member}, so it survives server-list changes.
 */
public final class RecentReads {

  private static final int BUCKETS = 10;
  private static final long BUCKET_NANOS = 100_000_000L;

  private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
  private final AtomicLongArray ticks = new AtomicLongArray(BUCKETS);

  RecentReads() {
    for (int b = 0; b < BUCKETS; b++) {
      ticks.set(b, Long.MIN_VALUE);
    }
  }

  /** Counts one read sent at {@code nowNanos} ({@link System#nanoTime} or the client's clock). */
  public void record(long nowNanos) {
    long tick = Math.floorDiv(nowNanos, BUCKET_NANOS);
    int b = Math.floorMod(tick, BUCKETS);
    long seen = ticks.get(b);
    if (seen != tick && ticks.compareAndSet(b, seen, tick)) {
      counts.set(b, 0);
    }
    counts.incrementAndGet(b);
  }

  /** The reads counted in the second up to {@code nowNanos}. */
  public long count(long nowNanos) {
    long tick = Math.floorDiv(nowNanos, BUCKET_NANOS);
    long sum = 0;
    for (int b = 0; b < BUCKETS; b++) {
      long t = ticks.get(b);
      if (t > tick - BUCKETS && t <= tick) {
        sum += counts.get(b);
      }
    }
    return sum;
  }
}
