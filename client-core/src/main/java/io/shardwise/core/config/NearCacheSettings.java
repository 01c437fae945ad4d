package io.shardwise.core.config;

import static io.shardwise.core.config.ConfigKey.key;
import static io.shardwise.core.config.ShardwiseConfig.PREFIX;

import io.shardwise.core.BoundedOptions;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.config.ConfigKey.Type;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The near-cache keys ({@code shardwise.near-cache.*}): their entries of the table, and the {@link
 * NearCacheOptions} they make, read at start-up by the loader and, for the keys of {@link
 * #LIVE_KEYS}, again by a change while the client serves ({@code updatePlacement}), with the same
 * checks and messages. Problems go to the reader.
 *
 * <p>The bound. Exactly one is in effect: {@code max-bytes} (64 MiB unless set), or {@code
 * max-entries} when that is set instead; setting both is a problem, since Caffeine weighs entries
 * by one rule fixed when the cache is built, and either would silently win.
 *
 * <p>What changes live. Caffeine changes a cache's bound ({@code policy().eviction().setMaximum})
 * and its expiry ({@code policy().expireAfterWrite().setExpiresAfter}, which applies to the entries
 * kept too) in place, and the hot threshold is one field: {@code max-bytes}, {@code max-entries}
 * (the bound already in effect only), {@code max-staleness}, {@code hot-threshold} and {@code
 * refresh-ahead} (a field the hits read) change live.
 * {@code enabled} and {@code admit} are read at start-up only, as every key that is not a placement
 * key: the near cache, and Redis tracking on every connection, are set up before the first
 * connection, and the admission sketch is made with the cache.
 */
public final class NearCacheSettings {

  public static final String ENABLED = "near-cache.enabled";
  public static final String MAX_BYTES = "near-cache.max-bytes";
  public static final String MAX_ENTRIES = "near-cache.max-entries";
  public static final String ADMIT = "near-cache.admit";
  public static final String HOT_THRESHOLD = "near-cache.hot-threshold";
  public static final String MAX_STALENESS = "near-cache.max-staleness";
  public static final String REFRESH_AHEAD = "near-cache.refresh-ahead";

  /** The keys a change while the client serves may name, relative to {@code shardwise.}. */
  public static final List<String> LIVE_KEYS = List.of(MAX_BYTES, MAX_ENTRIES, HOT_THRESHOLD, MAX_STALENESS, REFRESH_AHEAD);

  static final List<String> ADMISSIONS = List.of("hot", "all");

  static final ConfigKey ENABLED_KEY =
      key(ENABLED, Type.BOOLEAN)
          .byDefault("false")
          .allowing("true, false")
          .doing("Near cache: values read are kept in this process and gets of them served from "
              + "there; this client's writes, the servers' invalidations (Redis) and node and "
              + "placement events drop them (docs/near-cache.md). Start-up only.")
          .build();

  static final ConfigKey MAX_BYTES_KEY =
      key(MAX_BYTES, Type.BYTES)
          .byDefault("64MB")
          .between(1, Long.MAX_VALUE, "bytes, or 512KB, 64MB, 1GB, ...; >= 1; not with max-entries")
          .doing("Near cache: the most memory its entries take, each weighed by its key, its value "
              + "and " + NearCacheOptions.ENTRY_OVERHEAD_BYTES + " bytes of overhead; the bound "
              + "unless max-entries is set. Live.")
          .build();

  static final ConfigKey MAX_ENTRIES_KEY =
      key(MAX_ENTRIES, Type.INTEGER)
          .byDefault("(none: max-bytes bounds it)")
          .between(1, Integer.MAX_VALUE, ">= 1; not with max-bytes")
          .doing("Near cache: the most entries, whatever their size; set instead of max-bytes. "
              + "Live, when set at start-up.")
          .build();

  static final ConfigKey ADMIT_KEY =
      key(ADMIT, Type.CHOICE)
          .byDefault("hot")
          .oneOf(ADMISSIONS)
          .doing("Near cache: which values read are kept: hot, those of keys read at least "
              + "hot-threshold times recently (the hot-key sketch of bounded loads); all, every "
              + "one. Start-up only.")
          .build();

  static final ConfigKey HOT_THRESHOLD_KEY =
      key(HOT_THRESHOLD, Type.INTEGER)
          .byDefault(BoundedOptions.DEFAULT_HOT_THRESHOLD)
          .between(1, 15, "1..15; with admit hot")
          .doing("Near cache, admit hot: recent reads from which a key's value is kept. Live.")
          .build();

  static final ConfigKey MAX_STALENESS_KEY =
      key(MAX_STALENESS, Type.DURATION)
          .byDefault("(required with memcached; 60s for redis)")
          .between(null, SettingsReader.MAX_DURATION, "> 0, <= 106751d; set, and <= 1m, with memcached", "")
          .doing("Near cache: the longest an entry is served after it was read. memcached cannot "
              + "invalidate, so another client's write is seen after at most this, and the near "
              + "cache on memcached needs it set; with Redis a safety bound beside the server's "
              + "invalidations. Live.")
          .build();

  static final ConfigKey REFRESH_AHEAD_KEY =
      key(REFRESH_AHEAD, Type.BOOLEAN)
          .byDefault("true")
          .allowing("true, false")
          .doing("Near cache: an entry served before and served again in the second half of its "
              + "max-staleness is read again from its server in the background while it is still "
              + "served (the keys due gathered into getMultis), so that a key read often does not "
              + "wait for its server when its entry expires. Live.")
          .build();

  /** The keys, in the order of docs/configuration.md. */
  static final List<ConfigKey> KEYS =
      List.of(ENABLED_KEY, MAX_BYTES_KEY, MAX_ENTRIES_KEY, ADMIT_KEY, HOT_THRESHOLD_KEY, MAX_STALENESS_KEY, REFRESH_AHEAD_KEY);

  private final NearCacheOptions options;

  /**
   * The keys set in {@code r}, checked; {@code backend} (null when unknown) for the bound
   * memcached puts on {@code max-staleness}.
   */
  NearCacheSettings(SettingsReader r, String backend) {
    NearCacheOptions d = NearCacheOptions.off();
    boolean enabled = ENABLED_KEY.bool(r, false);
    boolean hot = "hot".equals(ADMIT_KEY.choice(r, "hot"));
    if (!hot && r.isSet(HOT_THRESHOLD)) {
      r.problem(HOT_THRESHOLD, "applies to " + PREFIX + ADMIT + "=hot only, but it is all");
    }
    NearCacheOptions o = d.withEnabled(enabled).withHotOnly(hot);
    o = bounds(r, o, true);
    o = o.withHotThreshold(HOT_THRESHOLD_KEY.integer(r, d.hotThreshold()));
    o = o.withRefreshAhead(REFRESH_AHEAD_KEY.bool(r, d.refreshAhead()));
    if (enabled && "memcached".equals(backend) && !r.isSet(MAX_STALENESS)) {
      r.problem(MAX_STALENESS, MEMCACHED_NEEDS_STALENESS);
    }
    this.options = staleness(r, o, backend);
  }

  /** Why memcached has no default {@code max-staleness}. */
  static final String MEMCACHED_NEEDS_STALENESS =
      "is required with backend memcached when the near cache is enabled: memcached cannot tell a "
          + "client that another client changed a key, so an entry is served up to this long after "
          + "another client's write, and how long is a choice for the application (1s is common; at "
          + "most 1m)";

  /**
   * Whether {@code key} (full, {@code shardwise.near-cache.max-bytes}, in any of the spellings the
   * loader accepts) is a near-cache key.
   */
  public static boolean isNearCacheKey(String key) {
    String normalized = SettingsReader.normalize(key);
    return normalized.startsWith(SettingsReader.normalize(PREFIX + "near-cache") + ".");
  }

  /**
   * {@code current} with the near-cache keys of {@code settings} (full key to value) changed and the
   * others kept, checked as the loader checks them: for a change while the client serves. {@code
   * invalidates}: whether the client's servers invalidate (Redis tracking).
   *
   * @throws io.shardwise.spi.InvalidSettingsException naming each bad key and its rule, each key
   *     read at start-up only ({@code enabled}, {@code admit}) and the other kind of bound
   */
  public static NearCacheOptions change(Map<String, String> settings, NearCacheOptions current, boolean invalidates) {
    Map<String, String> relative = new LinkedHashMap<>();
    settings.forEach((k, v) -> relative.put(k.substring(PREFIX.length()), v));
    SettingsReader r = SettingsReader.of(PREFIX, relative);
    for (String key : List.of(ENABLED, ADMIT)) {
      if (r.isSet(key)) {
        r.problem(key, "is read at start-up only; restart the client to apply it");
        r.ignore(key);
      }
    }
    NearCacheOptions next = change(r, current, invalidates);
    r.finish();
    return next;
  }

  /**
   * {@code current} with the {@link #LIVE_KEYS} set in {@code r} changed, checked as at start-up;
   * {@code invalidates}: whether the client's servers invalidate (Redis tracking), for the bound
   * memcached puts on {@code max-staleness}. The bound in effect stays the one kind: naming the
   * other is a problem.
   */
  static NearCacheOptions change(SettingsReader r, NearCacheOptions current, boolean invalidates) {
    NearCacheOptions o = bounds(r, current, false);
    o = o.withHotThreshold(HOT_THRESHOLD_KEY.integer(r, current.hotThreshold()));
    if (!current.hotOnly() && r.isSet(HOT_THRESHOLD)) {
      r.problem(HOT_THRESHOLD, "applies to " + PREFIX + ADMIT + "=hot only, but it is all");
    }
    o = o.withRefreshAhead(REFRESH_AHEAD_KEY.bool(r, current.refreshAhead()));
    return staleness(r, o, invalidates ? null : "memcached");
  }

  /**
   * The bound of {@code r} on {@code o}: at start-up ({@code either}) either key, not both; later
   * the kind in effect only, since Caffeine's weigher is fixed when the cache is built.
   */
  private static NearCacheOptions bounds(SettingsReader r, NearCacheOptions o, boolean either) {
    boolean bytesSet = r.isSet(MAX_BYTES);
    boolean entriesSet = r.isSet(MAX_ENTRIES);
    if (either && bytesSet && entriesSet) {
      r.problem(
          MAX_ENTRIES,
          "cannot be set with " + PREFIX + MAX_BYTES + ": exactly one bound is in effect (max-bytes "
              + "by default, max-entries when set instead); remove one");
      r.ignore(MAX_BYTES);
      r.ignore(MAX_ENTRIES);
      return o;
    }
    if (!either && bytesSet && o.maxBytes() == 0) {
      r.problem(MAX_BYTES, "cannot change while the client serves: the near cache is bounded by "
          + PREFIX + MAX_ENTRIES + " (" + o.maxEntries() + "), and the kind of bound is fixed when it is "
          + "built; restart the client to bound it by bytes");
      r.ignore(MAX_BYTES);
      return o;
    }
    if (!either && entriesSet && o.maxEntries() == 0) {
      r.problem(MAX_ENTRIES, "cannot change while the client serves: the near cache is bounded by "
          + PREFIX + MAX_BYTES + " (" + o.maxBytes() + " bytes), and the kind of bound is fixed when "
          + "it is built; restart the client to bound it by entries");
      r.ignore(MAX_ENTRIES);
      return o;
    }
    int before = r.problems().size();
    if (entriesSet) {
      int entries = MAX_ENTRIES_KEY.integer(r, 1);
      return r.problems().size() == before ? o.withMaxEntries(entries) : o;
    }
    if (bytesSet || o.maxBytes() > 0) {
      return o.withMaxBytes(MAX_BYTES_KEY.bytes(r, o.maxBytes()));
    }
    return o;
  }

  /** {@code max-staleness} of {@code r} on {@code o}; at most 1 min when {@code backend} is memcached. */
  private static NearCacheOptions staleness(SettingsReader r, NearCacheOptions o, String backend) {
    if (!r.isSet(MAX_STALENESS)) {
      return o;
    }
    int before = r.problems().size();
    Duration d = MAX_STALENESS_KEY.duration(r, NearCacheOptions.DEFAULT_REDIS_STALENESS);
    if (r.problems().size() != before) {
      return o;
    }
    if ("memcached".equals(backend) && d.compareTo(NearCacheOptions.MAX_MEMCACHED_STALENESS) > 0) {
      r.problem(
          MAX_STALENESS,
          "must be <= 1m with backend memcached, whose servers cannot tell a client that a value "
              + "changed (an entry is served this long after another client's write), but was "
              + SettingsReader.format(d));
      return o;
    }
    return o.withMaxStaleness(d);
  }

  /** The options these keys make. */
  NearCacheOptions options() {
    return options;
  }
}
