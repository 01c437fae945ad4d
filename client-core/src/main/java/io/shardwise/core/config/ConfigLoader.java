package io.shardwise.core.config;

import static io.shardwise.core.config.ShardwiseConfig.PREFIX;

import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.SettingsReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * Where a configuration's text and its backends come from, for {@link ShardwiseConfig}'s {@code
 * from} methods: properties files and classpath resources (read as UTF-8), the {@code shardwise.*}
 * keys of a map, and the {@link BackendProvider}s on the classpath.
 */
final class ConfigLoader {

  private ConfigLoader() {}

  /** The properties as a map, full key to value, in key order. */
  static Map<String, String> settings(Properties properties) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String name : new TreeSet<>(properties.stringPropertyNames())) {
      settings.put(name, properties.getProperty(name));
    }
    return settings;
  }

  /**
   * A reader over the keys of {@code settings} that start with {@code shardwise.} (in any case),
   * relative to it; the other keys are ignored.
   */
  static SettingsReader reader(Map<String, String> settings) {
    Map<String, String> relative = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String key = e.getKey();
      if (key != null && key.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
        relative.put(key.substring(PREFIX.length()), e.getValue());
      }
    }
    return SettingsReader.of(PREFIX, relative);
  }

  /** The properties in {@code file}, read as UTF-8. */
  static Properties file(Path file) {
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Shardwise settings from " + file + ": " + e, e);
    }
    return properties;
  }

  /**
   * The properties in a classpath resource of the thread's context class loader (or this class's),
   * read as UTF-8; a leading {@code /} is dropped.
   */
  static Properties resource(String resource) {
    String name = resource.startsWith("/") ? resource.substring(1) : resource;
    ClassLoader loader = classLoader();
    Properties properties = new Properties();
    try (InputStream in = loader.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no classpath resource " + name);
      }
      properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read Shardwise settings from classpath:" + name + ": " + e, e);
    }
    return properties;
  }

  /**
   * The backend providers of the context class loader and of Shardwise's own, by lower-case name;
   * the first one found of a name wins.
   */
  static Map<String, BackendProvider> providers() {
    Map<String, BackendProvider> found = new LinkedHashMap<>();
    for (ClassLoader loader : List.of(classLoader(), ShardwiseConfig.class.getClassLoader())) {
      for (BackendProvider p : ServiceLoader.load(BackendProvider.class, loader)) {
        found.putIfAbsent(p.name().toLowerCase(Locale.ROOT), p);
      }
    }
    return found;
  }

  private static ClassLoader classLoader() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return loader != null ? loader : ShardwiseConfig.class.getClassLoader();
  }
}
