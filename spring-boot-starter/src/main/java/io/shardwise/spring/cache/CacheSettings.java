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

  private CacheSettings(
      boolean enabled,
      Duration ttl,
      String keyPrefix,
      boolean cacheNullValues,
      Duration generationRefresh,
      Map<String, CacheSpec> caches) {
    this.enabled = enabled;
    this.ttl = ttl;
    this.keyPrefix = keyPrefix;
    this.cacheNullValues = cacheNullValues;
    this.generationRefresh = generationRefresh;
    this.caches = Collections.unmodifiableMap(new LinkedHashMap<>(caches));
  }

  /** Every default: enabled, 1 hour TTL, no extra prefix, nulls cached, 1 s generation refresh. */
  public static CacheSettings defaults() {
    return new CacheSettings(true, DEFAULT_TTL, "", true, DEFAULT_GENERATION_REFRESH, Map.of());
  }

  /** Reads the {@code cache.*} keys from {@code reader} (relative to {@code shardwise.}). */
  public static CacheSettings read(SettingsReader reader) {
    boolean enabled = reader.bool("cache.enabled", true);
    Duration ttl = reader.duration("cache.ttl", DEFAULT_TTL, Duration.ZERO);
    String keyPrefix = prefix(reader, "cache.key-prefix", "");
    boolean nulls = reader.bool("cache.cache-null-values", true);
    Duration refresh =
        reader.duration("cache.generation-refresh", DEFAULT_GENERATION_REFRESH, Duration.ZERO);
    Map<String, CacheSpec> caches = new LinkedHashMap<>();
    for (String name : reader.children("cache.caches")) {
      String base = "cache.caches." + SettingsReader.element(name) + ".";
      caches.put(
          name,
          new CacheSpec(
              reader.duration(base + "ttl", ttl, Duration.ZERO),
              prefix(reader, base + "key-prefix", keyPrefix + name + ":"),
              reader.bool(base + "cache-null-values", nulls)));
    }
    return new CacheSettings(enabled, ttl, keyPrefix, nulls, refresh, caches);
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
    return spec != null ? spec : new CacheSpec(ttl, keyPrefix + name + ":", cacheNullValues);
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
