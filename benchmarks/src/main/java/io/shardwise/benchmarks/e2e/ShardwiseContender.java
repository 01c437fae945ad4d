package io.shardwise.benchmarks.e2e;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.memcached.MemcachedProtocol;
import io.shardwise.redis.RedisBackend;
import io.shardwise.redis.RedisBackendOptions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;

/**
 * A Shardwise client built the documented way ({@code ShardwiseClient.builder()}) with the
 * {@code bytes} codec; sync calls go through its {@link AsyncCacheClient#sync()} view.
 */
final class ShardwiseContender implements Contender {

  private final String name;
  private final AsyncCacheClient<byte[]> async;
  private final CacheClient<byte[]> sync;

  private ShardwiseContender(String name, AsyncCacheClient<byte[]> client) {
    this.name = name;
    this.async = client;
    this.sync = client.sync();
  }

  /** memcached (text protocol) on {@code servers} ({@code host:port, ...}) with {@code router}. */
  static ShardwiseContender memcached(String servers, RouterSpec router, Duration timeout) {
    MemcachedBackend backend =
        MemcachedBackend.create(
            MemcachedOptions.builder()
                .protocol(MemcachedProtocol.TEXT)
                .operationTimeout(timeout)
                .build());
    AsyncCacheClient<byte[]> client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers(servers)
            .router(router)
            .timeout(timeout)
            .codec(Codecs.bytes())
            .build();
    return new ShardwiseContender("Shardwise " + router, client);
  }

  /** Redis on {@code servers} with the default router. */
  static ShardwiseContender redis(String servers, Duration timeout) {
    RedisBackend backend =
        RedisBackend.create(RedisBackendOptions.builder().commandTimeout(timeout).build());
    AsyncCacheClient<byte[]> client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers(servers)
            .timeout(timeout)
            .codec(Codecs.bytes())
            .build();
    return new ShardwiseContender("Shardwise", client);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public byte[] get(String key) {
    return sync.get(key);
  }

  @Override
  public void set(String key, byte[] value) {
    sync.set(key, value, Duration.ZERO);
  }

  @Override
  public Future<?> getAsync(String key) {
    return async.get(key);
  }

  @Override
  public Future<?> setAsync(String key, byte[] value) {
    return async.set(key, value, Duration.ZERO);
  }

  @Override
  public Map<String, ?> getMulti(List<String> keys) {
    return sync.getMulti(keys).valuesOrThrow();
  }

  @Override
  public Optional<String> serverOf(String key) {
    return Optional.of(async.nodeFor(key).address());
  }

  @Override
  public void close() {
    async.close();
  }
}
