package io.shardwise.spi;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Creates a {@link Backend} from configuration text: how the configuration loader ({@code
 * shardwise.backend=memcached}) finds a backend without depending on its module. Found with {@link
 * java.util.ServiceLoader}: a backend module lists its provider in {@code
 * META-INF/services/io.shardwise.spi.BackendProvider}.
 *
 * <p>A provider's own settings live under {@code shardwise.<name>.}: {@link #keys()} names them
 * without that prefix ({@code protocol} for {@code shardwise.memcached.protocol}), and {@link
 * #validate} and {@link #create} receive them the same way. Read them with a {@link SettingsReader}
 * over the prefix {@code shardwise.<name>.}, so that problems name the full key.
 */
public interface BackendProvider {

  /** The value of {@code shardwise.backend} that selects this provider: {@code memcached}, ... */
  String name();

  /** The sub-keys this backend reads, without the {@code shardwise.<name>.} prefix. */
  Set<String> keys();

  /**
   * The sub-keys among {@link #keys()} whose values are secrets (passwords): they never appear in
   * messages, logs or {@code toString()}.
   */
  default Set<String> secretKeys() {
    return Set.of();
  }

  /**
   * The problems of {@code settings} (sub-key to value; only keys that were set), one line each
   * naming the full key, the value and what is allowed; empty when they are all usable.
   */
  default List<String> validate(Map<String, String> settings) {
    return List.of();
  }

  /**
   * A new backend configured by {@code settings} (sub-key to value; only keys that were set), whose
   * connections use {@code timeout} unless given another.
   *
   * @throws InvalidSettingsException if {@link #validate} finds problems
   */
  Backend create(Map<String, String> settings, Duration timeout);
}
