package io.shardwise.benchmarks.e2e;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;

/**
 * Bare Lettuce: one {@link StatefulRedisConnection} of {@code byte[]} keys and values shared by
 * every thread, with its own client resources. It gets what Shardwise's Redis backend sets that
 * bears on a request: RESP2, and the same command timeout (on Lettuce's timer and on the URI).
 * Keys are turned into UTF-8 bytes on every call, as Shardwise does.
 */
final class LettuceContender implements Contender {

  private final RedisClient client;
  private final StatefulRedisConnection<byte[], byte[]> connection;
  private final RedisCommands<byte[], byte[]> sync;
  private final RedisAsyncCommands<byte[], byte[]> async;

  LettuceContender(String host, int port, Duration timeout) {
    client = RedisClient.create();
    client.setOptions(
        ClientOptions.builder()
            .protocolVersion(ProtocolVersion.RESP2)
            .timeoutOptions(TimeoutOptions.enabled(timeout))
            .build());
    RedisURI uri = RedisURI.builder().withHost(host).withPort(port).withTimeout(timeout).build();
    try {
      connection = client.connect(ByteArrayCodec.INSTANCE, uri);
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
    sync = connection.sync();
    async = connection.async();
  }

  @Override
  public String name() {
    return "Lettuce";
  }

  @Override
  public byte[] get(String key) {
    return sync.get(key.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void set(String key, byte[] value) {
    String reply = sync.set(key.getBytes(StandardCharsets.UTF_8), value);
    if (!"OK".equals(reply)) {
      throw new IllegalStateException("SET " + key + " replied " + reply);
    }
  }

  @Override
  public Future<?> getAsync(String key) {
    return async.get(key.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public Future<?> setAsync(String key, byte[] value) {
    return async.set(key.getBytes(StandardCharsets.UTF_8), value);
  }

  @Override
  public Map<String, ?> getMulti(List<String> keys) {
    throw new UnsupportedOperationException(
        "the Redis multi-get scenario runs on LettucePerNodeContender, not on one connection");
  }

  @Override
  public void close() {
    try {
      connection.close();
    } finally {
      client.shutdown();
    }
  }
}
