package io.shardwise.benchmarks.e2e;

import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.ValueCodec;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

/**
 * Shardwise's backend alone: one {@link NodeConnection} used directly, with the {@code bytes}
 * codec applied as the routing client applies it, but without the routing client (no key
 * validation, routing, per-request timeout or failure mapping). Run with {@code --breakdown}, it
 * splits Shardwise's cost over a bare client into the backend's part and the routing client's.
 */
final class BackendContender implements Contender {

  private static final ValueCodec<byte[]> CODEC = Codecs.bytes();

  private final Backend backend;
  private final NodeConnection connection;

  /** Waits for the connection's first attempt, which the backend makes in the background. */
  BackendContender(Backend backend, NodeConnection connection) {
    this.backend = backend;
    this.connection = connection;
    connection.ready().join();
  }

  @Override
  public String name() {
    return "Shardwise backend only";
  }

  @Override
  public byte[] get(String key) {
    return decode(connection.get(key).join());
  }

  @Override
  public void set(String key, byte[] value) {
    connection.set(key, CODEC.encode(value), Duration.ZERO).join();
  }

  @Override
  public Future<?> getAsync(String key) {
    return connection.get(key).thenApply(BackendContender::decode);
  }

  @Override
  public Future<?> setAsync(String key, byte[] value) {
    return connection.set(key, CODEC.encode(value), Duration.ZERO);
  }

  @Override
  public Map<String, ?> getMulti(List<String> keys) {
    Map<String, byte[]> values = new HashMap<>();
    connection.getMulti(keys).join().values().forEach((key, stored) -> values.put(key, decode(stored)));
    return values;
  }

  private static byte[] decode(CachedValue stored) {
    return stored == null ? null : CODEC.decode(stored);
  }

  @Override
  public void close() {
    try {
      connection.close();
    } finally {
      backend.close();
    }
  }
}
