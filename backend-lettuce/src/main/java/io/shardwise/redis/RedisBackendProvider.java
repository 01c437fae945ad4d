package io.shardwise.redis;

import io.shardwise.spi.Backend;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Creates a {@link RedisBackend} for {@code shardwise.backend=redis}. Its keys, under {@code
 * shardwise.redis.}:
 *
 * <ul>
 *   <li>{@code database}: the logical database every connection selects, {@code >= 0} (default 0)
 *   <li>{@code client-name}: the name {@code CLIENT SETNAME} gives every connection (default none)
 * </ul>
 *
 * <p>The request timeout is the client's ({@code shardwise.timeout}). Found by {@link
 * java.util.ServiceLoader}; applications use {@link RedisBackend#create} directly.
 */
public final class RedisBackendProvider implements BackendProvider {

  /** {@code shardwise.redis.database}. */
  public static final String DATABASE = "database";

  /** {@code shardwise.redis.client-name}. */
  public static final String CLIENT_NAME = "client-name";

  // ---- security (AUTH, TLS) ------------------------------------------------------------------
  // The AUTH and TLS keys of the backend's security options belong here (e.g. username, password,
  // tls), read in options() below, added to keys(), and the password to secretKeys().

  private static final Set<String> KEYS = Set.of(DATABASE, CLIENT_NAME);

  @Override
  public String name() {
    return "redis";
  }

  @Override
  public Set<String> keys() {
    return KEYS;
  }

  @Override
  public List<String> validate(Map<String, String> settings) {
    SettingsReader reader = reader(settings);
    options(reader, RedisBackendOptions.DEFAULT_COMMAND_TIMEOUT);
    return reader.problems();
  }

  @Override
  public Backend create(Map<String, String> settings, Duration timeout) {
    SettingsReader reader = reader(settings);
    RedisBackendOptions options = options(reader, timeout);
    reader.throwIfProblems();
    return RedisBackend.create(options);
  }

  private static SettingsReader reader(Map<String, String> settings) {
    return SettingsReader.of("shardwise.redis.", settings);
  }

  private static RedisBackendOptions options(SettingsReader reader, Duration timeout) {
    RedisBackendOptions.Builder options =
        RedisBackendOptions.builder()
            .database(
                reader.integer(
                    DATABASE, RedisBackendOptions.DEFAULT_DATABASE, 0, Integer.MAX_VALUE))
            .commandTimeout(timeout);
    reader
        .text(CLIENT_NAME)
        .ifPresent(
            name -> {
              try {
                options.clientName(name);
              } catch (IllegalArgumentException e) {
                reader.problem(
                    CLIENT_NAME,
                    "'" + name + "' is not allowed; expected printable ASCII without spaces");
              }
            });
    return options.build();
  }
}
