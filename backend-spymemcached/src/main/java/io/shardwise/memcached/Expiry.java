package io.shardwise.memcached;

import java.time.Duration;
import java.util.Objects;

/**
 * memcached expiration times. memcached reads an exptime of at most 30 days as seconds from now and
 * anything larger as an absolute Unix time, so longer TTLs must be sent as {@code now + ttl}.
 */
final class Expiry {

  /** The longest exptime memcached reads as relative: 30 days ({@code REALTIME_MAXDELTA}). */
  static final long MAX_RELATIVE_SECONDS = 30L * 24 * 60 * 60;

  private Expiry() {}

  /**
   * The exptime for {@code ttl}: 0 for {@link Duration#ZERO} (no expiry); else the TTL in whole
   * seconds rounded up, sent as is up to 30 days and as {@code nowEpochSeconds + seconds} beyond.
   * Absolute times after 2038-01-19 (the largest signed 32-bit exptime) are capped there.
   */
  static int exptime(Duration ttl, long nowEpochSeconds) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must be >= 0 (0 = no expiry) but was " + ttl);
    }
    if (ttl.isZero()) {
      return 0;
    }
    long seconds = ttl.getSeconds();
    if (ttl.getNano() > 0 && seconds < Long.MAX_VALUE) {
      seconds++;
    }
    if (seconds <= MAX_RELATIVE_SECONDS) {
      return (int) seconds;
    }
    if (seconds >= Integer.MAX_VALUE - nowEpochSeconds) {
      return Integer.MAX_VALUE;
    }
    return (int) (nowEpochSeconds + seconds);
  }
}
