package io.shardwise.core.internal.change;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The longest time to live this client has given a value, {@link Long#MAX_VALUE} nanoseconds once
 * it has written one without expiry. No value it wrote lives longer, so a placement left that long
 * ago holds none of them any more (see {@link Topologies}). Recording costs one volatile read per
 * write once the longest TTL is known.
 */
public final class LongestTtl {

  private final AtomicLong nanos = new AtomicLong();

  /** Starts at the longest TTL the client gives copies of its own (failover, warm-up, spill). */
  public LongestTtl(Duration... floors) {
    for (Duration d : floors) {
      record(d);
    }
  }

  /** Records a TTL sent with a write; {@link Duration#ZERO} is no expiry. */
  public void record(Duration ttl) {
    long n = ttl.isZero() ? Long.MAX_VALUE : saturatedNanos(ttl);
    if (n > nanos.get()) {
      nanos.accumulateAndGet(n, Math::max);
    }
  }

  /** The longest TTL recorded, in nanoseconds; {@link Long#MAX_VALUE} for no expiry. */
  long longestNanos() {
    return nanos.get();
  }

  private static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }
}
