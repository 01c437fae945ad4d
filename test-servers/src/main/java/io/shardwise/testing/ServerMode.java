package io.shardwise.testing;

import java.util.Locale;

/**
 * How a {@link ServerFleet} runs its servers.
 *
 * <p>The mode comes from, in order: the builder's {@code mode(...)} if set, the system property
 * {@value #PROPERTY}, the environment variable {@value #ENVIRONMENT_VARIABLE}, else {@link #AUTO}.
 */
public enum ServerMode {
  /** Docker (Testcontainers) when an engine is reachable, otherwise local processes. */
  AUTO,
  /** {@code memcached} / {@code redis-server} binaries from the PATH on free loopback ports. */
  LOCAL,
  /** Testcontainers containers ({@code memcached:1.6}, {@code redis:7}) on fixed host ports. */
  DOCKER;

  /** System property that selects the mode: {@code local}, {@code docker} or {@code auto}. */
  public static final String PROPERTY = "shardwise.test.servers";

  /** Environment variable read when {@value #PROPERTY} is not set. */
  public static final String ENVIRONMENT_VARIABLE = "SHARDWISE_TEST_SERVERS";

  /** Parses {@code local}, {@code docker} or {@code auto}, ignoring case and surrounding spaces. */
  public static ServerMode parse(String value) {
    String normalized = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    switch (normalized) {
      case "local":
        return LOCAL;
      case "docker":
        return DOCKER;
      case "auto":
      case "":
        return AUTO;
      default:
        throw new IllegalArgumentException(
            PROPERTY + " must be one of local, docker, auto but was '" + value + "'");
    }
  }

  /** The mode configured through {@value #PROPERTY} or {@value #ENVIRONMENT_VARIABLE}. */
  public static ServerMode configured() {
    return fromSettings(System.getProperty(PROPERTY), System.getenv(ENVIRONMENT_VARIABLE));
  }

  static ServerMode fromSettings(String property, String environment) {
    if (property != null && !property.isBlank()) {
      return parse(property);
    }
    if (environment != null && !environment.isBlank()) {
      return parse(environment);
    }
    return AUTO;
  }
}
