package io.shardwise.testing;

import java.time.Duration;
import java.util.Map;

/**
 * A memcached server of a {@link ServerFleet}, with raw text-protocol access that bypasses any
 * client under test. Each raw call uses a fresh connection; see {@link MemcachedTextClient}.
 */
public final class MemcachedServer extends ServerHandle {

  MemcachedServer(ServerInstance instance, Duration ioTimeout) {
    super(ServerKind.MEMCACHED, instance, ioTimeout);
  }

  /** A raw client for this server with the given timeout (e.g. a short one against a pause). */
  public MemcachedTextClient client(Duration timeout) {
    return new MemcachedTextClient(host(), port(), timeout);
  }

  /** A raw client for this server with the fleet's I/O timeout. */
  public MemcachedTextClient client() {
    return client(ioTimeout());
  }

  /** The stored item (flags and bytes), or {@code null} on a miss. */
  public MemcachedItem get(String key) {
    return client().get(key);
  }

  /** Stores {@code value} with {@code flags} and no expiry. */
  public void set(String key, int flags, byte[] value) {
    client().set(key, flags, value);
  }

  /** Deletes {@code key}; {@code true} if it existed. */
  public boolean delete(String key) {
    return client().delete(key);
  }

  /** {@code stats} as name to value, e.g. {@code cmd_get}, {@code get_hits}, {@code curr_items}. */
  public Map<String, String> stats() {
    return client().stats();
  }

  /** {@code flush_all}. */
  @Override
  public void flushAll() {
    client().flushAll();
  }
}
