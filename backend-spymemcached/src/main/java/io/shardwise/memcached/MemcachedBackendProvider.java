package io.shardwise.memcached;

import io.shardwise.client.Secret;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Creates a {@link MemcachedBackend} for {@code shardwise.backend=memcached}. Its keys, under
 * {@code shardwise.memcached.}:
 *
 * <ul>
 *   <li>{@code protocol}: {@code text} (default) or {@code binary}
 *   <li>{@code max-reconnect-delay}: longest pause between reconnection attempts, at least 1s
 *       (default 30s)
 *   <li>{@code sasl.username}, {@code sasl.password}: SASL PLAIN on every connection, both or
 *       neither, with {@code protocol=binary} (memcached speaks SASL only over the binary
 *       protocol). The password is a {@link Secret#resolve(String) secret reference}: {@code
 *       env:NAME}, {@code file:/path}, {@code literal:text} or the password itself, resolved when
 *       the settings are checked; it is a {@link #secretKeys() secret} and never appears in a
 *       problem, a log or a {@code toString()}
 * </ul>
 *
 * <p>The request timeout is the client's ({@code shardwise.timeout}). Found by {@link
 * java.util.ServiceLoader}; applications use {@link MemcachedBackend#create} directly.
 */
public final class MemcachedBackendProvider implements BackendProvider {

  /** {@code shardwise.memcached.protocol}. */
  public static final String PROTOCOL = "protocol";

  /** {@code shardwise.memcached.max-reconnect-delay}. */
  public static final String MAX_RECONNECT_DELAY = "max-reconnect-delay";

  /** {@code shardwise.memcached.sasl.username}: the SASL user. */
  public static final String SASL_USERNAME = "sasl.username";

  /** {@code shardwise.memcached.sasl.password}: the SASL password, a secret reference. */
  public static final String SASL_PASSWORD = "sasl.password";

  private static final String PREFIX = "shardwise." + MemcachedBackend.NAME + ".";

  private static final Set<String> KEYS =
      Collections.unmodifiableSet(
          new LinkedHashSet<>(
              List.of(PROTOCOL, MAX_RECONNECT_DELAY, SASL_USERNAME, SASL_PASSWORD)));

  private static final Set<String> SECRET_KEYS = Set.of(SASL_PASSWORD);

  @Override
  public String name() {
    return MemcachedBackend.NAME;
  }

  @Override
  public Set<String> keys() {
    return KEYS;
  }

  @Override
  public Set<String> secretKeys() {
    return SECRET_KEYS;
  }

  @Override
  public List<String> validate(Map<String, String> settings) {
    SettingsReader reader = reader(settings);
    options(reader, MemcachedOptions.DEFAULT_OPERATION_TIMEOUT);
    return reader.problems();
  }

  @Override
  public Backend create(Map<String, String> settings, Duration timeout) {
    SettingsReader reader = reader(settings);
    MemcachedOptions options = options(reader, timeout);
    reader.throwIfProblems();
    return MemcachedBackend.create(options);
  }

  private static SettingsReader reader(Map<String, String> settings) {
    return SettingsReader.of(PREFIX, settings);
  }

  private static MemcachedOptions options(SettingsReader reader, Duration timeout) {
    int before = reader.problems().size();
    String protocol =
        reader.choice(
            PROTOCOL,
            MemcachedOptions.DEFAULT_PROTOCOL.name().toLowerCase(Locale.ROOT),
            List.of("text", "binary"));
    boolean protocolIsWrong = reader.problems().size() > before;
    Duration maxReconnectDelay =
        reader.duration(
            MAX_RECONNECT_DELAY,
            MemcachedOptions.DEFAULT_MAX_RECONNECT_DELAY,
            Duration.ofSeconds(1));
    MemcachedOptions.Builder options =
        MemcachedOptions.builder()
            .protocol(MemcachedProtocol.valueOf(protocol.toUpperCase(Locale.ROOT)))
            .maxReconnectDelay(maxReconnectDelay)
            .operationTimeout(timeout);

    Optional<String> username = reader.text(SASL_USERNAME);
    boolean passwordSet = reader.secret(SASL_PASSWORD).isPresent();
    Secret password = reader.resolvedSecret(SASL_PASSWORD).orElse(null);
    if (username.isEmpty() && !passwordSet) {
      return options.build();
    }
    boolean usable = true;
    if (username.isEmpty()) {
      reader.problem(
          SASL_USERNAME,
          "missing; "
              + PREFIX
              + SASL_PASSWORD
              + " is set, and SASL needs a user name and a password");
      usable = false;
    } else if (!passwordSet) {
      reader.problem(
          SASL_PASSWORD,
          "missing; "
              + PREFIX
              + SASL_USERNAME
              + " is set, and SASL needs a user name and a password");
      usable = false;
    }
    if (!protocolIsWrong && !"binary".equals(protocol)) {
      reader.problem(
          username.isPresent() ? SASL_USERNAME : SASL_PASSWORD,
          "SASL needs "
              + PREFIX
              + PROTOCOL
              + "=binary, but "
              + PREFIX
              + PROTOCOL
              + " is "
              + (reader.isSet(PROTOCOL) ? protocol : "not set (default text)")
              + "; memcached speaks SASL only over the binary protocol");
      usable = false;
    }
    if (username.isPresent()) {
      try {
        // The builder's check of the user name, on a builder that is thrown away.
        MemcachedOptions.builder().sasl(username.get(), Secret.of("unused"));
      } catch (IllegalArgumentException e) {
        reader.problem(
            SASL_USERNAME, e.getMessage() + "; expected a user name without control characters");
        usable = false;
      }
    }
    if (usable && password != null && !protocolIsWrong) {
      options.sasl(username.get(), password);
    }
    return options.build();
  }
}
