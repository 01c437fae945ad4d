package io.shardwise.spring.boot;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;

/**
 * Spring Boot's {@code spring.cache.redis.*} keys, which configure Boot's Redis cache manager and
 * nothing else: when the Shardwise cache manager serves the caches they are ignored, so the starter
 * says so at start-up, naming the {@code shardwise.cache.*} key that does the same.
 */
final class BootRedisCacheKeys {

  private static final ConfigurationPropertyName ROOT =
      ConfigurationPropertyName.of("spring.cache.redis");

  /** One of Boot's keys, by its name, and the Shardwise key that does the same. */
  private record Key(String name, String shardwiseKey) {}

  /** Boot's keys, by their uniform form (lower case, no dashes), as relaxed binding matches them. */
  private static final Map<String, Key> KEYS =
      Map.of(
          "timetolive", new Key("time-to-live", "shardwise.cache.ttl"),
          "keyprefix", new Key("key-prefix", "shardwise.cache.key-prefix"),
          "cachenullvalues", new Key("cache-null-values", "shardwise.cache.cache-null-values"),
          "usekeyprefix", new Key("use-key-prefix", "shardwise.cache.use-key-prefix"),
          "enablestatistics", new Key("enable-statistics", "shardwise.cache.enable-statistics"));

  private BootRedisCacheKeys() {}

  /**
   * The warning for the {@code spring.cache.redis.*} keys set in {@code environment}, in any
   * property source and any relaxed form, one line each in the order of their names; empty when
   * none is set.
   */
  static Optional<String> warning(Environment environment) {
    Map<String, String> lines = new TreeMap<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource)) {
        continue;
      }
      for (ConfigurationPropertyName name : (IterableConfigurationPropertySource) source) {
        if (!ROOT.isAncestorOf(name)) {
          continue;
        }
        String element =
            name.getElement(ROOT.getNumberOfElements(), ConfigurationPropertyName.Form.UNIFORM);
        Key known = KEYS.get(element);
        String key = ROOT + "." + (known != null ? known.name() : originalTail(name));
        lines.putIfAbsent(
            key,
            "ignored key "
                + key
                + (known != null
                    ? " (set " + known.shardwiseKey() + " instead)"
                    : " (no shardwise.cache.* key does the same)"));
      }
    }
    if (lines.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "spring.cache.redis.* configures Spring Boot's Redis cache manager, but the Shardwise cache"
            + " manager serves the caches of this application; these keys are ignored:\n"
            + lines.values().stream().collect(Collectors.joining("\n")));
  }

  private static String originalTail(ConfigurationPropertyName name) {
    StringBuilder tail = new StringBuilder();
    for (int i = ROOT.getNumberOfElements(); i < name.getNumberOfElements(); i++) {
      tail.append(tail.length() == 0 ? "" : ".")
          .append(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL));
    }
    return tail.toString();
  }
}
