package io.shardwise.spring.boot;

import io.shardwise.spi.SettingsReader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Spring Boot reads a bare number for a {@code Duration} property as milliseconds ({@code
 * shardwise.timeout=2000} is 2 s); the plain-Java loader wants a unit. So that a Boot user gets
 * Boot's rule, the starter adds {@code ms} to a bare whole number set for a duration key before the
 * loader reads it; every other value, and every message, is the loader's. {@code 0} is left as it
 * is (it means the same in both).
 */
final class BootDurations {

  /** The loader's and the starter's duration keys, relative to {@code shardwise.}, normalized. */
  static final Set<String> KEYS =
      Set.of(
          "timeout",
          "connectwait",
          "serversrefreshinterval",
          "failoverttl",
          "probeinterval",
          "probemaxinterval",
          "probetimeout",
          "bounded.spillttl",
          "bounded.window",
          "bounded.resolution",
          "nearcache.maxstaleness",
          "topology.settle",
          "topology.warmup",
          "topology.warmupcopyttl",
          "replicarepairttl",
          "replicarepaircheck",
          "memcached.maxreconnectdelay",
          "cache.ttl",
          "cache.timetolive",
          "cache.generationrefresh");

  /** {@code cache.caches.<name>.ttl} and {@code .time-to-live}, normalized. */
  private static final Pattern PER_CACHE =
      Pattern.compile("cache\\.caches\\..+\\.(ttl|timetolive)");

  private static final Pattern WHOLE_NUMBER = Pattern.compile("\\d+");

  private BootDurations() {}

  /** Whether {@code key} (relative to {@code shardwise.}) holds a duration. */
  static boolean isDuration(String key) {
    String n = SettingsReader.normalize(key);
    return KEYS.contains(n) || PER_CACHE.matcher(n).matches();
  }

  /** {@code properties} with {@code ms} after every bare whole number set for a duration key. */
  static Map<String, String> withMillis(Map<String, String> properties) {
    Map<String, String> out = new LinkedHashMap<>();
    properties.forEach(
        (key, value) -> {
          String v = value.strip();
          boolean bare = WHOLE_NUMBER.matcher(v).matches() && !v.equals("0");
          out.put(key, bare && isDuration(key) ? v + "ms" : value);
        });
    return out;
  }
}
