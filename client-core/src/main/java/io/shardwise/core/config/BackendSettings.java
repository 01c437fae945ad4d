package io.shardwise.core.config;

import io.shardwise.spi.Backend;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * The backend a configuration chose: its name, the provider that creates it and its own settings
 * (the keys under {@code shardwise.<backend>.}, sub-key to value, as set), which of them are
 * secrets and how those are shown.
 */
final class BackendSettings {

  /** The built-in backends and the module that provides each. */
  static final Map<String, String> BUILT_IN_BACKENDS = new LinkedHashMap<>();

  static {
    BUILT_IN_BACKENDS.put("memcached", "shardwise-backend-spymemcached");
    BUILT_IN_BACKENDS.put("redis", "shardwise-backend-lettuce");
  }

  private final String name;
  private final BackendProvider provider;
  private final Map<String, String> settings;

  BackendSettings(String name, BackendProvider provider, Map<String, String> settings) {
    this.name = name;
    this.provider = provider;
    this.settings = Collections.unmodifiableMap(new TreeMap<>(settings));
  }

  /** Whether {@code provider} keeps its sub-key {@code subKey} secret, or its name says secret. */
  static boolean isSecret(BackendProvider provider, String subKey) {
    return provider.secretKeys().contains(subKey) || SettingsReader.looksSecret(subKey);
  }

  String name() {
    return name;
  }

  /** The settings as set, secrets included. */
  Map<String, String> raw() {
    return settings;
  }

  /** The settings with every secret masked ({@link ConfigSettings#masked}). */
  Map<String, String> masked() {
    Map<String, String> masked = new TreeMap<>();
    settings.forEach((k, v) -> masked.put(k, isSecret(k) ? ConfigSettings.masked(v) : v));
    return Collections.unmodifiableMap(masked);
  }

  boolean isSecret(String subKey) {
    return isSecret(provider, subKey);
  }

  /** A new backend with these settings. */
  Backend create(Duration timeout) {
    return provider.create(settings, timeout);
  }

  /** The codec used when {@code shardwise.codec} is not set, as {@code settings()} shows it. */
  String defaultCodec() {
    switch (name) {
      case "memcached":
        return "spymemcached";
      case "redis":
        return "java";
      default:
        return "backend default (spymemcached if it stores flags, else java)";
    }
  }
}
