package io.shardwise.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How the client moves to a new server list ({@link
 * io.shardwise.client.AsyncCacheClient#updateServers}); see docs/topology.md for the phases.
 *
 * @param settle how long keys that moved are still served by their previous node after a change,
 *     so that clients applying the same change a little later read and write them in the same
 *     place; 0 turns the phase off
 * @param warmUp how long after settling a miss on a moved key's new node is read again on its
 *     previous node; hits are copied over once {@code settle} has passed again (see
 *     docs/topology.md); 0 turns warm-up off
 * @param copyTtl the longest TTL of a value copied to its new node by warm-up (the copy gets what
 *     the original has left, if less, where the server tells: Redis, memcached 1.6 on the text
 *     protocol; elsewhere this): the longest a copy can outlive a delete that another client made on
 *     the previous node
 * @param connectWait the longest wait for the first connection attempt to added nodes before the
 *     new list is applied
 */
public record TopologyOptions(Duration settle, Duration warmUp, Duration copyTtl, Duration connectWait) {

  /** Default {@link #settle()}: 10 s, a few refreshes of a watched file and most DNS-change lags. */
  public static final Duration DEFAULT_SETTLE = Duration.ofSeconds(10);

  /** Default {@link #warmUp()}: 10 minutes, longer than most cache-aside TTLs. */
  public static final Duration DEFAULT_WARM_UP = Duration.ofMinutes(10);

  /** Default {@link #copyTtl()}: 60 s. */
  public static final Duration DEFAULT_COPY_TTL = Duration.ofSeconds(60);

  public TopologyOptions {
    check("topology settle", settle, false);
    check("warm-up", warmUp, false);
    check("warm-up copy TTL", copyTtl, true);
    check("connect wait", connectWait, false);
  }

  public static TopologyOptions defaults() {
    return new TopologyOptions(DEFAULT_SETTLE, DEFAULT_WARM_UP, DEFAULT_COPY_TTL, ClientBuilder.DEFAULT_CONNECT_WAIT);
  }

  public TopologyOptions withSettle(Duration d) {
    return new TopologyOptions(d, warmUp, copyTtl, connectWait);
  }

  public TopologyOptions withWarmUp(Duration d) {
    return new TopologyOptions(settle, d, copyTtl, connectWait);
  }

  public TopologyOptions withCopyTtl(Duration d) {
    return new TopologyOptions(settle, warmUp, d, connectWait);
  }

  public TopologyOptions withConnectWait(Duration d) {
    return new TopologyOptions(settle, warmUp, copyTtl, d);
  }

  private static void check(String what, Duration d, boolean positive) {
    Objects.requireNonNull(d, what);
    if (d.isNegative() || (positive && d.isZero())) {
      throw new IllegalArgumentException(what + " must be " + (positive ? "> 0" : ">= 0") + " but was " + d);
    }
    if (d.compareTo(Duration.ofDays(365)) > 0) {
      throw new IllegalArgumentException(what + " must be at most 365 days but was " + d);
    }
  }
}
