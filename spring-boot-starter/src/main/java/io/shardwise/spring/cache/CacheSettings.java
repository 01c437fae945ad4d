package io.shardwise.spring.cache;

import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code shardwise.cache.*} keys: defaults for every cache, and settings of single caches under
 * {@code shardwise.cache.caches.<name>.*}. Immutable.
 *
 * <p>Spring Boot's names for the same settings of its Redis cache are accepted too: {@code
 * time-to-live} for {@code ttl} (also per cache), {@code use-key-prefix} and {@code
 * enable-statistics}; {@code key-prefix} and {@code cache-null-values} already share Boot's names.
 * Setting a key under both names is a problem that names both.
 */
public final class CacheSettings {

  /** Time to live of entries unless set: 1 hour. */
  public static final Duration DEFAULT_TTL = Duration.ofHours(1);

  /** How long a cache's generation is used before it is read again: 1 second. */
  public static final Duration DEFAULT_GENERATION_REFRESH = Duration.ofSeconds(1);

  /** Longest key prefix, in characters, so that keys stay well under memcached's 250 bytes. */
  static final int MAX_PREFIX = 100;

  private final boolean enabled;
  private final Duration ttl;
  private final String keyPrefix;
  private final boolean cacheNullValues;
  private final Duration generationRefresh;
  private final Map<String, CacheSpec> caches;
  private final boolean useKeyPrefix;
  private final boolean statistics;
  private final boolean transactionAware;
  private final boolean failuresAsMisses;

  private CacheSettings(
      boolean enabled,
      Duration ttl,
      String keyPrefix,
      boolean cacheNullValues,
      Duration generationRefresh,
      Map<String, CacheSpec> caches,
      boolean useKeyPrefix,
      boolean statistics,
      boolean transactionAware,
      boolean failuresAsMisses) {
    this.enabled = enabled;
    this.ttl = ttl;
    this.keyPrefix = keyPrefix;
    this.cacheNullValues = cacheNullValues;
    this.generationRefresh = generationRefresh;
    this.caches = Collections.unmodifiableMap(new LinkedHashMap<>(caches));
    this.useKeyPrefix = useKeyPrefix;
    this.statistics = statistics;
    this.transactionAware = transactionAware;
    this.failuresAsMisses = failuresAsMisses;
  }

  /**
   * Every default: enabled, 1 hour TTL, no extra prefix, nulls cached, 1 s generation refresh, each
   * cache's name in its prefix, statistics on, not transaction-aware, failures propagated.
   */
  public static CacheSettings defaults() {
    return new CacheSettings(
        true,
        DEFAULT_TTL,
        "",
        true,
        DEFAULT_GENERATION_REFRESH,
        Map.of(),
        true,
        true,
        false,
        false);
  }

  /** Reads the {@code cache.*} keys from {@code reader} (relative to {@code shardwise.}). */
  public static CacheSettings read(SettingsReader reader) {
    boolean enabled = reader.bool("cache.enabled", true);
    Duration ttl = ttl(reader, "cache.", DEFAULT_TTL);
    boolean useKeyPrefix = reader.bool("cache.use-key-prefix", true);
    String keyPrefix = prefix(reader, "cache.key-prefix", "");
    boolean nulls = reader.bool("cache.cache-null-values", true);
    Duration refresh =
        reader.duration("cache.generation-refresh", DEFAULT_GENERATION_REFRESH, Duration.ZERO);
    boolean statistics = reader.bool("cache.enable-statistics", true);
    boolean transactionAware = reader.bool("cache.transaction-aware", false);
    boolean failuresAsMisses = reader.bool("cache.failures-as-misses", false);
    Map<String, CacheSpec> caches = new LinkedHashMap<>();
    for (String name : reader.children("cache.caches")) {
      String base = "cache.caches." + SettingsReader.element(name) + ".";
      caches.put(
          name,
          new CacheSpec(
              ttl(reader, base, ttl),
              prefix(reader, base + "key-prefix", defaultPrefix(useKeyPrefix, keyPrefix, name)),
              reader.bool(base + "cache-null-values", nulls)));
    }
    return new CacheSettings(
        enabled,
        ttl,
        keyPrefix,
        nulls,
        refresh,
        caches,
        useKeyPrefix,
        statistics,
        transactionAware,
        failuresAsMisses);
  }

  /** {@code <base>ttl}, or Boot's name for it, {@code <base>time-to-live}; not both. */
  private static Duration ttl(SettingsReader reader, String base, Duration defaultValue) {
    String ours = base + "ttl";
    String boots = base + "time-to-live";
    Duration fromOurs = reader.duration(ours, defaultValue, Duration.ZERO);
    Duration fromBoots = reader.duration(boots, defaultValue, Duration.ZERO);
    if (reader.isSet(ours) && reader.isSet(boots)) {
      reader.problem(
          boots,
          "is Spring Boot's name for "
              + reader.prefix()
              + ours
              + ", which is set too; set only one of them");
    }
    return reader.isSet(ours) ? fromOurs : fromBoots;
  }

  private static String defaultPrefix(boolean useKeyPrefix, String keyPrefix, String name) {
    return useKeyPrefix ? keyPrefix + name + ":" : "";
  }

  private static String prefix(SettingsReader reader, String key, String defaultValue) {
    String value = reader.text(key, defaultValue);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c <= ' ' || c == 0x7f || Character.isWhitespace(c) || Character.isISOControl(c)) {
        reader.problem(
            key,
            "'"
                + value
                + "' is not allowed; expected text without whitespace or control characters");
        return defaultValue;
      }
    }
    if (value.length() > MAX_PREFIX) {
      reader.problem(
          key, "must be at most " + MAX_PREFIX + " characters but was " + value.length());
      return defaultValue;
    }
    return value;
  }

  /** Whether the cache manager is defined. */
  public boolean enabled() {
    return enabled;
  }

  /** The settings of cache {@code name}: its own where set, else the defaults. */
  public CacheSpec forCache(String name) {
    Objects.requireNonNull(name, "name");
    CacheSpec spec = caches.get(name);
    return spec != null
        ? spec
        : new CacheSpec(ttl, defaultPrefix(useKeyPrefix, keyPrefix, name), cacheNullValues);
  }

  /**
   * Whether a cache's keys start with the key prefix and its name ({@code use-key-prefix}, Boot's
   * name); without, caches share one key space and one generation, so clearing one clears all.
   */
  public boolean useKeyPrefix() {
    return useKeyPrefix;
  }

  /** Whether the caches' standard meters ({@code cache.gets}, ...) are registered. */
  public boolean statistics() {
    return statistics;
  }

  /** Whether puts and evictions wait for the surrounding transaction to commit. */
  public boolean transactionAware() {
    return transactionAware;
  }

  /** Whether the starter makes a cache's failed reads and writes behave as misses. */
  public boolean failuresAsMisses() {
    return failuresAsMisses;
  }

  /** The caches with settings of their own, created at start-up. */
  public Map<String, CacheSpec> caches() {
    return caches;
  }

  public Duration generationRefresh() {
    return generationRefresh;
  }

  @Override
  public String toString() {
    return "CacheSettings[enabled="
        + enabled
        + ", ttl="
        + SettingsReader.format(ttl)
        + ", keyPrefix='"
        + keyPrefix
        + "', cacheNullValues="
        + cacheNullValues
        + ", generationRefresh="
        + SettingsReader.format(generationRefresh)
        + ", caches="
        + caches
        + ", useKeyPrefix="
        + useKeyPrefix
        + ", statistics="
        + statistics
        + ", transactionAware="
        + transactionAware
        + ", failuresAsMisses="
        + failuresAsMisses
        + "]";
  }

  /** One cache's settings. */
  public static final class CacheSpec {
    private final Duration ttl;
    private final String keyPrefix;
    private final boolean cacheNullValues;

    CacheSpec(Duration ttl, String keyPrefix, boolean cacheNullValues) {
      this.ttl = ttl;
      this.keyPrefix = keyPrefix;
      this.cacheNullValues = cacheNullValues;
    }

    /** Time to live of entries; zero for none. */
    public Duration ttl() {
      return ttl;
    }

    /** Text before every key of the cache. */
    public String keyPrefix() {
      return keyPrefix;
    }

    public boolean cacheNullValues() {
      return cacheNullValues;
    }

    /** These settings with another time to live. */
    public CacheSpec withTtl(Duration newTtl) {
      return new CacheSpec(Objects.requireNonNull(newTtl, "ttl"), keyPrefix, cacheNullValues);
    }

    /** These settings with another key prefix. */
    public CacheSpec withKeyPrefix(String prefix) {
      return new CacheSpec(ttl, Objects.requireNonNull(prefix, "prefix"), cacheNullValues);
    }

    /** These settings, caching null values or not. */
    public CacheSpec withNullValues(boolean cache) {
      return new CacheSpec(ttl, keyPrefix, cache);
    }

    @Override
    public String toString() {
      return "[ttl="
          + SettingsReader.format(ttl)
          + ", keyPrefix='"
          + keyPrefix
          + "', cacheNullValues="
          + cacheNullValues
          + "]";
    }
  }
}
