package io.shardwise.core;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Blocks on the async client. Every async operation is bounded by the per-node timeout, so a
 * call returns or throws within about that time.
 */
final class SyncCacheClient<V> implements CacheClient<V> {

  private final AsyncCacheClient<V> async;

  SyncCacheClient(AsyncCacheClient<V> async) {
    this.async = async;
  }

  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new ShardwiseException(String.valueOf(cause), cause);
    }
  }

  @Override
  public V get(String key) {
    return await(async.get(key));
  }

  @Override
  public MultiResult<V> getMulti(Collection<String> keys) {
    return await(async.getMulti(keys));
  }

  @Override
  public void set(String key, V value, Duration ttl) {
    await(async.set(key, value, ttl));
  }

  @Override
  public MultiResult<Boolean> setMulti(Map<String, ? extends V> values, Duration ttl) {
    return await(async.setMulti(values, ttl));
  }

  @Override
  public boolean add(String key, V value, Duration ttl) {
    return await(async.add(key, value, ttl));
  }

  @Override
  public boolean delete(String key) {
    return await(async.delete(key));
  }

  @Override
  public MultiResult<Boolean> deleteMulti(Collection<String> keys) {
    return await(async.deleteMulti(keys));
  }

  @Override
  public boolean touch(String key, Duration ttl) {
    return await(async.touch(key, ttl));
  }

  @Override
  public long incr(String key, long delta, long initial, Duration ttl) {
    return await(async.incr(key, delta, initial, ttl));
  }

  @Override
  public long decr(String key, long delta, long initial, Duration ttl) {
    return await(async.decr(key, delta, initial, ttl));
  }

  @Override
  public Duration ping(Node node) {
    return await(async.ping(node));
  }

  @Override
  public List<Node> nodes() {
    return async.nodes();
  }

  @Override
  public Node nodeFor(String key) {
    return async.nodeFor(key);
  }

  @Override
  public Map<Node, io.shardwise.client.NodeState> nodeStates() {
    return async.nodeStates();
  }

  /** {@link AsyncCacheClient#loadReport()}. */
  public io.shardwise.client.LoadReport loadReport() {
    return async.loadReport();
  }

  @Override
  public AsyncCacheClient<V> async() {
    return async;
  }

  @Override
  public void close() {
    async.close();
  }

  @Override
  public String toString() {
    return async + ".sync()";
  }
}
