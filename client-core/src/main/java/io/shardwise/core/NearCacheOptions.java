package io.shardwise.core;

import java.time.Duration;
import java.util.Objects;

/**
 * A near cache: values read from the servers kept in this process, so that a hot key's reads are
 * served from local memory (issue 34; docs/near-cache.md once it serves). Its entries are dropped
 * by this client's own writes of the key and by every event after which the server's copy may no
 * longer be the one read (an ejection, a readmission, a mark of the copy as old, a change of
 * placement); across processes an entry lives at most {@link #maxStaleness()}.
 *
 * @param enabled whether reads are served locally at all (default false)
 * @param maxBytes the most memory the entries may take, each weighed by its key, its value and a
 *     fixed overhead ({@link #ENTRY_OVERHEAD_BYTES}); 0 when {@code maxEntries} bounds it instead
 * @param maxEntries the most entries, whatever their size; 0 when {@code maxBytes} bounds it
 * @param hotOnly whether only the keys read often recently are kept (the hot-key sketch of bounded
 *     loads, {@code hotThreshold} reads), or every key read (default true: a cold key's entry costs
 *     memory, and a Redis tracking-table entry, for reads that do not come again)
 * @param hotThreshold the recent reads from which a key is hot (1 to 15; default {@value
 *     BoundedOptions#DEFAULT_HOT_THRESHOLD}, as bounded loads)
 * @param maxStaleness the longest an entry is served without its server's sign: required with
 *     memcached, which sends none, so that how long another client's write may go unseen is a
 *     choice made where the client is configured (EVCache's in-memory cache over memcached has a
 *     duration of 0 until one is set); 60 s by default with Redis, where invalidations drop
 *     entries and this is a safety bound. Null for Redis's default
 * @param refreshAhead whether an entry served before and again in the second half of its life is
 *     read again from its server in the background, while it is still served, so that a key read
 *     often does not wait for its server each time its entry reaches {@code maxStaleness} (default
 *     true; such reads are gathered and sent as getMultis)
 */
public record NearCacheOptions(
    boolean enabled, long maxBytes, long maxEntries, boolean hotOnly, int hotThreshold, Duration maxStaleness, boolean refreshAhead) {

  /** Default {@link #maxBytes()}: 64 MiB. */
  public static final long DEFAULT_MAX_BYTES = 64L << 20;

  /**
   * What an entry is weighed at besides its key's characters (two bytes each) and its value's
   * bytes, on a 64-bit JVM with compressed pointers, as measured after GC (NearCacheMemoryBenchmark,
   * docs/near-cache.md): 200 bytes of objects (Caffeine's node 56, the map's node 32, the key's
   * string 24, the value's wrapper 24, the entry 32, two array headers 32), up to 14 of alignment,
   * and the entry's share of the tables that grow with the entries (the map's table, 4 bytes a slot
   * at 1.3 to 2.7 slots an entry, and Caffeine's frequency sketch, 12 bytes an entry measured).
   */
  public static final int ENTRY_OVERHEAD_BYTES = 240;

  /** Default {@link #maxStaleness()} with Redis: 60 seconds. */
  public static final Duration DEFAULT_REDIS_STALENESS = Duration.ofSeconds(60);

  /** The longest {@link #maxStaleness()} memcached takes: it has no invalidation to rely on. */
  public static final Duration MAX_MEMCACHED_STALENESS = Duration.ofMinutes(1);

  public NearCacheOptions {
    if (maxBytes < 0) {
      throw new IllegalArgumentException("near cache max bytes must be >= 0 but was " + maxBytes);
    }
    if (maxEntries < 0) {
      throw new IllegalArgumentException("near cache max entries must be >= 0 but was " + maxEntries);
    }
    if ((maxBytes == 0) == (maxEntries == 0)) {
      throw new IllegalArgumentException(
          "near cache needs exactly one bound, max bytes or max entries, but max bytes was " + maxBytes + " and max entries " + maxEntries);
    }
    if (hotThreshold < 1 || hotThreshold > 15) {
      throw new IllegalArgumentException("near cache hot threshold must be 1..15 but was " + hotThreshold);
    }
    if (maxStaleness != null && (maxStaleness.isNegative() || maxStaleness.isZero())) {
      throw new IllegalArgumentException("near cache max staleness must be > 0 but was " + maxStaleness);
    }
  }

  /** Off: every read goes to the servers. */
  public static NearCacheOptions off() {
    return new NearCacheOptions(false, DEFAULT_MAX_BYTES, 0, true, BoundedOptions.DEFAULT_HOT_THRESHOLD, null, true);
  }

  /**
   * On, with the defaults: 64 MiB, hot keys only, Redis's staleness bound. With memcached, {@link
   * #withMaxStaleness} is required as well.
   */
  public static NearCacheOptions defaults() {
    return off().withEnabled(true);
  }

  public NearCacheOptions withEnabled(boolean on) {
    return new NearCacheOptions(on, maxBytes, maxEntries, hotOnly, hotThreshold, maxStaleness, refreshAhead);
  }

  /** Bounded by memory: {@code bytes} in all. */
  public NearCacheOptions withMaxBytes(long bytes) {
    return new NearCacheOptions(enabled, bytes, 0, hotOnly, hotThreshold, maxStaleness, refreshAhead);
  }

  /** Bounded by entries: {@code entries} at most, whatever their size. */
  public NearCacheOptions withMaxEntries(long entries) {
    return new NearCacheOptions(enabled, 0, entries, hotOnly, hotThreshold, maxStaleness, refreshAhead);
  }

  public NearCacheOptions withHotOnly(boolean hot) {
    return new NearCacheOptions(enabled, maxBytes, maxEntries, hot, hotThreshold, maxStaleness, refreshAhead);
  }

  public NearCacheOptions withHotThreshold(int reads) {
    return new NearCacheOptions(enabled, maxBytes, maxEntries, hotOnly, reads, maxStaleness, refreshAhead);
  }

  public NearCacheOptions withMaxStaleness(Duration d) {
    return new NearCacheOptions(enabled, maxBytes, maxEntries, hotOnly, hotThreshold, Objects.requireNonNull(d, "maxStaleness"), refreshAhead);
  }

  public NearCacheOptions withRefreshAhead(boolean on) {
    return new NearCacheOptions(enabled, maxBytes, maxEntries, hotOnly, hotThreshold, maxStaleness, on);
  }

  /**
   * {@link #maxStaleness()} for a backend that invalidates ({@code invalidates}: Redis with
   * tracking), or Redis's default; or for a backend that does not (memcached), which has none.
   *
   * @throws IllegalArgumentException for a backend that does not invalidate, no bound or one over
   *     {@link #MAX_MEMCACHED_STALENESS}
   */
  public Duration staleness(boolean invalidates) {
    if (maxStaleness == null) {
      if (!invalidates) {
        throw new IllegalArgumentException(
            "near cache max staleness is required with a backend whose servers do not invalidate (memcached): "
                + "an entry is served up to that long after another client's write; set one, at most 1m "
                + "(withMaxStaleness, or shardwise.near-cache.max-staleness)");
      }
      return DEFAULT_REDIS_STALENESS;
    }
    if (!invalidates && maxStaleness.compareTo(MAX_MEMCACHED_STALENESS) > 0) {
      throw new IllegalArgumentException(
          "near cache max staleness must be <= 1m with a backend whose servers do not invalidate (memcached) but was " + maxStaleness);
    }
    return maxStaleness;
  }
}
