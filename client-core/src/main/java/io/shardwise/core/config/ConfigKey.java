package io.shardwise.core.config;

import java.util.Objects;

/**
 * One {@code shardwise.*} key of the configuration: its name (without the prefix), its default as
 * written in a properties file, what it accepts, and what it does. {@link ShardwiseConfig#keys()}
 * lists them all; the documentation and the Spring Boot metadata are checked against that list.
 */
public final class ConfigKey {

  private final String name;
  private final String defaultValue;
  private final String allowed;
  private final String description;

  ConfigKey(String name, String defaultValue, String allowed, String description) {
    this.name = Objects.requireNonNull(name, "name");
    this.defaultValue = Objects.requireNonNull(defaultValue, "defaultValue");
    this.allowed = Objects.requireNonNull(allowed, "allowed");
    this.description = Objects.requireNonNull(description, "description");
  }

  /** The key without the {@code shardwise.} prefix, e.g. {@code bounded.epsilon}. */
  public String name() {
    return name;
  }

  /** {@code shardwise.} and the name. */
  public String fullName() {
    return ShardwiseConfig.PREFIX + name;
  }

  /**
   * The default as it would be written in a properties file ({@code 250ms}), or a phrase in
   * parentheses when there is no single value ({@code (required)}, {@code (per backend)}).
   */
  public String defaultValue() {
    return defaultValue;
  }

  /** What the key accepts, in words: {@code journal, flush, keep}, {@code > 0}, ... */
  public String allowed() {
    return allowed;
  }

  public String description() {
    return description;
  }

  @Override
  public String toString() {
    return fullName() + " (default " + defaultValue + "; " + allowed + ")";
  }
}
