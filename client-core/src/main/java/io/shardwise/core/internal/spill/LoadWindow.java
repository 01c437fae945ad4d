package io.shardwise.core.internal.spill;

import io.shardwise.bounded.LoadView;
import io.shardwise.core.BoundedOptions;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * Requests sent to each node over a sliding window, in buckets: the load that bounded-load
 * selection compares with the caps. Lock free: a request bumps two counters (its node's and the
 * total's) with an atomic increment; a bucket that comes round again is reset by the first thread
 * to see its stale time stamp (an increment racing with that reset may be lost: an estimate).
 */
public final class LoadWindow implements LoadView {

  private final int nodes;
  private final int buckets;
  private final long resolutionNanos;
  private final AtomicLongArray counts;
  private final AtomicLongArray stamps;
  private final LongSupplier nanoClock;
  private final IntPredicate available;

  public LoadWindow(int nodes, BoundedOptions options, LongSupplier nanoClock, IntPredicate available) {
    this.nodes = nodes;
    this.resolutionNanos = options.resolution().toNanos();
    this.buckets = (int) (options.window().toNanos() / resolutionNanos);
    this.counts = new AtomicLongArray((nodes + 1) * buckets);
    this.stamps = new AtomicLongArray((nodes + 1) * buckets);
    for (int i = 0; i < stamps.length(); i++) {
      stamps.set(i, Long.MIN_VALUE);
    }
    this.nanoClock = nanoClock;
    this.available = available;
  }

  /**
   * A window for a new server list that starts with the counts of this one: node {@code i} of the
   * new list had index {@code previous[i]} here, or -1 if it is new (it starts at 0). The total
   * is the sum of the nodes that stay.
   */
  LoadWindow remapped(int[] previous, BoundedOptions options, IntPredicate newAvailable) {
    LoadWindow w = new LoadWindow(previous.length, options, nanoClock, newAvailable);
    for (int i = 0; i < previous.length; i++) {
      if (previous[i] < 0) {
        continue;
      }
      for (int b = 0; b < buckets; b++) {
        int from = previous[i] * buckets + b;
        long stamp = stamps.get(from);
        long count = counts.get(from);
        w.stamps.set(i * buckets + b, stamp);
        w.counts.set(i * buckets + b, count);
        int total = previous.length * buckets + b;
        if (w.stamps.get(total) != stamp) {
          w.stamps.set(total, stamp);
          w.counts.set(total, 0);
        }
        w.counts.addAndGet(total, count);
      }
    }
    return w;
  }

  /** Counts one request to {@code node}. */
  public void record(int node) {
    long tick = nanoClock.getAsLong() / resolutionNanos;
    int b = Math.floorMod(tick, buckets);
    bump(node * buckets + b, tick);
    bump(nodes * buckets + b, tick);
  }

  private void bump(int k, long tick) {
    long stamp = stamps.get(k);
    if (stamp != tick && stamps.compareAndSet(k, stamp, tick)) {
      counts.set(k, 0);
    }
    counts.incrementAndGet(k);
  }

  private long sum(int row) {
    long tick = nanoClock.getAsLong() / resolutionNanos;
    long oldest = tick - buckets + 1;
    long sum = 0;
    int base = row * buckets;
    for (int b = 0; b < buckets; b++) {
      long stamp = stamps.get(base + b);
      if (stamp >= oldest && stamp <= tick) {
        sum += counts.get(base + b);
      }
    }
    return sum;
  }

  @Override
  public long load(int node) {
    return sum(node);
  }

  @Override
  public long total() {
    return sum(nodes);
  }

  @Override
  public boolean isAvailable(int node) {
    return available.test(node);
  }
}
