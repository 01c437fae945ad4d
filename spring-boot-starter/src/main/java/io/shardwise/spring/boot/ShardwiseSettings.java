package io.shardwise.spring.boot;

import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.spi.SettingsReader;
import io.shardwise.spring.cache.CacheSettings;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * The {@code shardwise.*} properties of a Spring environment, read and checked as a whole by the
 * plain-Java loader ({@link ShardwiseConfig}) plus the starter's {@code shardwise.cache.*} keys, so
 * that the same keys, defaults and messages apply; every problem, unknown keys included, stops the
 * context with one {@link io.shardwise.spi.InvalidSettingsException}. One difference, Spring Boot's
 * own rule: a bare whole number for a duration key is read as milliseconds ({@link BootDurations}).
 */
public final class ShardwiseSettings {

  private static final Pattern INDEXED = Pattern.compile("(.*)\\[(\\d+)]");

  private static final Set<String> SYSTEM_SOURCES =
      Set.of(
          StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
          StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);

  private final ShardwiseConfig config;
  private final CacheSettings cache;

  private ShardwiseSettings(ShardwiseConfig config, CacheSettings cache) {
    this.config = config;
    this.cache = cache;
  }

  /**
   * Reads the environment's {@code shardwise.*} properties.
   *
   * @param withClient whether the starter builds the client: then {@code shardwise.backend} and
   *     {@code shardwise.servers} are required and every key is checked; otherwise (the application
   *     has a client of its own) only the {@code shardwise.cache.*} keys are read
   * @throws io.shardwise.spi.InvalidSettingsException with every problem, one line each
   */
  public static ShardwiseSettings read(Environment environment, boolean withClient) {
    return read(environment, withClient, null);
  }

  /**
   * Reads the environment's {@code shardwise.*} properties, with the backend and servers of {@code
   * connection} (when not null) in place of {@code shardwise.backend} and {@code
   * shardwise.servers}.
   *
   * @throws io.shardwise.spi.InvalidSettingsException with every problem, one line each
   */
  public static ShardwiseSettings read(
      Environment environment, boolean withClient, ShardwiseConnectionDetails connection) {
    Set<String> fromSystem = new HashSet<>();
    List<String> unresolved = new ArrayList<>();
    Map<String, String> properties =
        BootDurations.withMillis(properties(environment, fromSystem, unresolved));
    if (connection != null) {
      properties
          .keySet()
          .removeIf(k -> Set.of("backend", "servers").contains(SettingsReader.normalize(k)));
      properties.put("backend", connection.backend());
      properties.put("servers", String.join(",", connection.servers()));
    }
    SettingsReader reader = SettingsReader.of(ShardwiseConfig.PREFIX, properties);
    unresolved.forEach(reader::problem);
    // Environment variables and system properties are read when they name a key, never reported
    // as unknown: SHARDWISE_HOME or -Dshardwise.test.servers are not meant for this client.
    fromSystem.forEach(reader::ignore);
    CacheSettings cache = CacheSettings.read(reader);
    if (!withClient) {
      reader.throwIfProblems();
      return new ShardwiseSettings(null, cache);
    }
    return new ShardwiseSettings(ShardwiseConfig.from(reader), cache);
  }

  /**
   * Every property under {@code shardwise.}, relative to it, as Spring's relaxed binding finds
   * them: every property source in order of precedence (a key set in two sources is taken from the
   * first), placeholders resolved, an element with dots kept in brackets ({@code
   * cache.caches[users.by-id].ttl}), and lists ({@code servers[0]}, {@code servers[1]}, as YAML
   * lists are) joined with commas. The keys that come from environment variables or system
   * properties are added to {@code fromSystem}. A placeholder that cannot be resolved is a problem
   * added to {@code problems}, without the value for a key that holds a secret (Spring's message
   * quotes the value), and the key is left out.
   */
  static Map<String, String> properties(
      Environment environment, Set<String> fromSystem, List<String> problems) {
    ConfigurationPropertyName root = ConfigurationPropertyName.of("shardwise");
    Map<String, String> flat = new LinkedHashMap<>();
    Set<String> taken = new HashSet<>();
    for (ConfigurationPropertySource source : ConfigurationPropertySources.get(environment)) {
      if (!(source instanceof IterableConfigurationPropertySource)) {
        continue;
      }
      Object underlying = source.getUnderlyingSource();
      boolean system =
          underlying instanceof PropertySource
              && SYSTEM_SOURCES.contains(((PropertySource<?>) underlying).getName());
      Map<String, String> fromSource = new LinkedHashMap<>();
      for (ConfigurationPropertyName name : (IterableConfigurationPropertySource) source) {
        if (!root.isAncestorOf(name)) {
          continue;
        }
        String key = relativeKey(name);
        if (taken.contains(SettingsReader.normalize(key))) {
          continue;
        }
        ConfigurationProperty property = source.getConfigurationProperty(name);
        Object value = property == null ? null : property.getValue();
        if (value != null) {
          try {
            fromSource.put(key, environment.resolveRequiredPlaceholders(value.toString()));
          } catch (IllegalArgumentException e) {
            taken.add(SettingsReader.normalize(key));
            problems.add(
                ShardwiseConfig.PREFIX
                    + key
                    + ": "
                    + (SettingsReader.looksSecret(key)
                        ? "a placeholder in the value cannot be resolved (the value is a secret and"
                            + " is not shown)"
                        : e.getMessage()));
          }
        }
      }
      fromSource.forEach(
          (key, value) -> {
            taken.add(SettingsReader.normalize(key));
            flat.put(key, value);
            if (system) {
              fromSystem.add(key.replaceAll("\\[\\d+]$", ""));
            }
          });
    }
    return joinLists(flat);
  }

  private static String relativeKey(ConfigurationPropertyName name) {
    StringBuilder key = new StringBuilder();
    for (int i = 1; i < name.getNumberOfElements(); i++) {
      String element = name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL);
      if (name.isNumericIndex(i) || element.indexOf('.') >= 0) {
        key.append('[').append(element).append(']');
      } else {
        key.append(key.length() == 0 ? "" : ".").append(element);
      }
    }
    return key.toString();
  }

  private static Map<String, String> joinLists(Map<String, String> flat) {
    Map<String, String> joined = new LinkedHashMap<>();
    Map<String, TreeMap<Integer, String>> lists = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : flat.entrySet()) {
      Matcher m = INDEXED.matcher(e.getKey());
      if (m.matches()) {
        lists
            .computeIfAbsent(m.group(1), k -> new TreeMap<>())
            .put(Integer.valueOf(m.group(2)), e.getValue());
      } else {
        joined.put(e.getKey(), e.getValue());
      }
    }
    lists.forEach(
        (key, items) -> joined.putIfAbsent(key, String.join(",", new ArrayList<>(items.values()))));
    return joined;
  }

  /** The client's configuration, unless the application has a client of its own. */
  public Optional<ShardwiseConfig> config() {
    return Optional.ofNullable(config);
  }

  public CacheSettings cache() {
    return cache;
  }

  @Override
  public String toString() {
    return "ShardwiseSettings["
        + (config != null ? config : "client of the application")
        + ", "
        + cache
        + "]";
  }
}
