package io.shardwise.core;

import io.shardwise.spi.Backend;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code shardwise.backend=memory}: an {@link InMemoryBackend} for configuration tests, with a key
 * of its own ({@code shardwise.memory.flags}: memcached-like key rules and flags, or Redis-like)
 * and a secret ({@code shardwise.memory.password}).
 */
public final class MemoryBackendProvider implements BackendProvider {

  /** What the last {@link #create} was given. */
  public static volatile Map<String, String> lastSettings;

  public static volatile Duration lastTimeout;

  @Override
  public String name() {
    return "memory";
  }

  @Override
  public Set<String> keys() {
    return Set.of("flags", "password");
  }

  @Override
  public Set<String> secretKeys() {
    return Set.of("password");
  }

  @Override
  public List<String> validate(Map<String, String> settings) {
    SettingsReader reader = SettingsReader.of("shardwise.memory.", settings);
    reader.bool("flags", true);
    reader.secret("password");
    return reader.problems();
  }

  @Override
  public Backend create(Map<String, String> settings, Duration timeout) {
    SettingsReader reader = SettingsReader.of("shardwise.memory.", settings);
    boolean flags = reader.bool("flags", true);
    reader.throwIfProblems();
    lastSettings = Map.copyOf(settings);
    lastTimeout = timeout;
    return new InMemoryBackend(flags ? KeyRules.MEMCACHED : KeyRules.REDIS);
  }
}
