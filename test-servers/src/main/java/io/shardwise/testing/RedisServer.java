package io.shardwise.testing;

import java.time.Duration;
import java.util.Map;

/**
 * A Redis server of a {@link ServerFleet}, with raw RESP access that bypasses any client under
 * test. Each raw call uses a fresh connection; see {@link RespClient} for the reply types.
 */
public final class RedisServer extends ServerHandle {

  RedisServer(ServerInstance instance, Duration ioTimeout) {
    super(ServerKind.REDIS, instance, ioTimeout);
  }

  /** A raw client for this server with the given timeout (e.g. a short one against a pause). */
  public RespClient client(Duration timeout) {
    return new RespClient(host(), port(), timeout);
  }

  /** A raw client for this server with the fleet's I/O timeout. */
  public RespClient client() {
    return client(ioTimeout());
  }

  /**
   * Sends one command and returns the parsed reply: {@code String}, {@code Long}, {@code byte[]},
   * {@code List<Object>} or {@code null}; an error reply throws {@link ErrorReplyException}.
   */
  public Object command(String... args) {
    return client().command(args);
  }

  /** {@code GET key}: the raw bytes or {@code null}. */
  public byte[] get(String key) {
    return client().get(key);
  }

  /** {@code SET key value}. */
  public void set(String key, byte[] value) {
    client().set(key, value);
  }

  /** {@code INFO section} as field to value, e.g. {@code info("keyspace").get("db0")}. */
  public Map<String, String> info(String section) {
    return client().info(section);
  }

  /** {@code FLUSHALL}. */
  @Override
  public void flushAll() {
    client().flushAll();
  }
}
