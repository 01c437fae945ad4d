package io.shardwise.memcached;

import io.shardwise.spi.Backend;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Creates a {@link MemcachedBackend} for {@code shardwise.backend=memcached}. Its keys, under
 * {@code shardwise.memcached.}:
 *
 * <ul>
 *   <li>{@code protocol}: {@code text} (default) or {@code binary}
 *   <li>{@code max-reconnect-delay}: longest pause between reconnection attempts, at least 1s
 *       (default 2s)
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

  // ---- security (SASL) -----------------------------------------------------------------------
  // The SASL keys of the backend's security options belong here (e.g. username, password, with
  // password also in secretKeys()), read in options() below and added to keys().

  private static final Set<String> KEYS = Set.of(PROTOCOL, MAX_RECONNECT_DELAY);

  @Override
  public String name() {
    return MemcachedBackend.NAME;
  }

  @Override
  public Set<String> keys() {
    return KEYS;
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
    return SettingsReader.of("shardwise." + MemcachedBackend.NAME + ".", settings);
  }

  private static MemcachedOptions options(SettingsReader reader, Duration timeout) {
    String protocol =
        reader.choice(
            PROTOCOL,
            MemcachedOptions.DEFAULT_PROTOCOL.name().toLowerCase(Locale.ROOT),
            List.of("text", "binary"));
    Duration maxReconnectDelay =
        reader.duration(
            MAX_RECONNECT_DELAY,
            MemcachedOptions.DEFAULT_MAX_RECONNECT_DELAY,
            Duration.ofSeconds(1));
    return MemcachedOptions.builder()
        .protocol(MemcachedProtocol.valueOf(protocol.toUpperCase(Locale.ROOT)))
        .maxReconnectDelay(maxReconnectDelay)
        .operationTimeout(timeout)
        .build();
  }
}
