package io.shardwise.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How a key stored on several replicas ({@code shardwise.replicas} above 1) gets back a copy one of
 * them lost (docs/replicas.md, "Healing"): a read that misses on a replica and hits on another
 * writes the value back to the one that missed (read repair), and a replica that missed writes
 * while it was out, or whose write failed, gets the keys' current values handed over from another
 * replica once it serves again (handoff). Every copy goes through the warm-up copy protocol: it is
 * an {@code add} (never over a value written there), skipped or undone when a write of the key
 * comes in between, and never taken from a copy marked old.
 *
 * @param enabled whether copies are repaired at all (default true)
 * @param ratePerSecond the most repair copies this client writes per second, all causes together;
 *     those due beyond it are dropped and counted ({@code shardwise.repairs} with result
 *     {@code dropped}), and a later read or handoff makes them (default {@value #DEFAULT_RATE})
 * @param ttl the longest TTL of a repair copy (default 10 minutes): a copy gets what its original
 *     has left where the server tells it (Redis; memcached from 1.6 on the text protocol), at most
 *     this, and this when the original does not expire; where the server cannot tell, the warm-up
 *     copy TTL ({@code shardwise.topology.copy-ttl}), so that a copy never outlives a short-lived
 *     original by more than that
 * @param checkInterval how often each server is asked which run of its data it is in (memcached
 *     {@code stats}, Redis {@code INFO}), to learn that it came back empty (restarted or flushed)
 *     and count its refill (default 5 s; zero: never, and no refill is counted, though read repair
 *     still puts its keys back)
 */
public record ReplicaRepair(boolean enabled, int ratePerSecond, Duration ttl, Duration checkInterval) {

  /** Default {@link #ratePerSecond()}: 1,000 copies per second. */
  public static final int DEFAULT_RATE = 1000;

  /** Default {@link #ttl()}: 10 minutes. */
  public static final Duration DEFAULT_TTL = Duration.ofMinutes(10);

  /**
   * Default {@link #checkInterval()}: 5 seconds. One {@code stats} (or three {@code INFO} sections)
   * per server every 5 s is nothing a server notices; a restart is seen within 5 s of the server's
   * first replies.
   */
  public static final Duration DEFAULT_CHECK_INTERVAL = Duration.ofSeconds(5);

  public ReplicaRepair {
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(checkInterval, "checkInterval");
    if (checkInterval.isNegative()) {
      throw new IllegalArgumentException("replica repair check interval must be >= 0 but was " + checkInterval);
    }
    if (ratePerSecond < 1) {
      throw new IllegalArgumentException("replica repair rate must be >= 1 copy per second but was " + ratePerSecond);
    }
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("replica repair TTL must be > 0 but was " + ttl);
    }
  }

  /** Repair on, at the default rate and TTL. */
  public static ReplicaRepair defaults() {
    return new ReplicaRepair(true, DEFAULT_RATE, DEFAULT_TTL, DEFAULT_CHECK_INTERVAL);
  }

  /** No repair: a lost copy comes back only when the application writes the key again. */
  public static ReplicaRepair off() {
    return new ReplicaRepair(false, DEFAULT_RATE, DEFAULT_TTL, DEFAULT_CHECK_INTERVAL);
  }

  public ReplicaRepair withRate(int copiesPerSecond) {
    return new ReplicaRepair(enabled, copiesPerSecond, ttl, checkInterval);
  }

  public ReplicaRepair withTtl(Duration d) {
    return new ReplicaRepair(enabled, ratePerSecond, d, checkInterval);
  }

  public ReplicaRepair withEnabled(boolean on) {
    return new ReplicaRepair(on, ratePerSecond, ttl, checkInterval);
  }

  public ReplicaRepair withCheckInterval(Duration d) {
    return new ReplicaRepair(enabled, ratePerSecond, ttl, d);
  }
}
