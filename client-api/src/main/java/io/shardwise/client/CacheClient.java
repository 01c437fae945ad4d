package io.shardwise.client;

import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * The blocking form of {@link AsyncCacheClient}: each call waits for its result, at most the
 * configured timeout per server round, and throws the {@link ShardwiseException} the async form
 * completes with.
 *
 * @param <V> the value type
 */
public interface CacheClient<V> extends AutoCloseable {

  V get(String key);

  MultiResult<V> getMulti(Collection<String> keys);

  void set(String key, V value, Duration ttl);

  MultiResult<Boolean> setMulti(Map<String, ? extends V> values, Duration ttl);

  boolean add(String key, V value, Duration ttl);

  boolean delete(String key);

  MultiResult<Boolean> deleteMulti(Collection<String> keys);

  boolean touch(String key, Duration ttl);

  /**
   * {@link AsyncCacheClient#incr}: memcached counters are unsigned 64-bit, so a result or {@code
   * initial} from 2^63 up is a negative long holding the counter's bits ({@link
   * Long#toUnsignedString(long)} prints it); they wrap at 2^64. Redis counters are signed.
   */
  long incr(String key, long delta, long initial, Duration ttl);

  /**
   * {@link AsyncCacheClient#decr}: memcached counters are unsigned 64-bit (read as in {@link
   * #incr}) and stop at 0; Redis counters are signed and go below 0.
   */
  long decr(String key, long delta, long initial, Duration ttl);

  Duration ping(Node node);

  List<Node> nodes();

  Node nodeFor(String key);

  Map<Node, NodeState> nodeStates();

  /**
   * {@link AsyncCacheClient#updateServers}, waiting for the change to be in force: after a change
   * still settling, that can be the end of its settle phase. A refused list throws the exception
   * the async form completes with ({@link IllegalArgumentException}, {@link
   * IllegalStateException}), and the list in force stays.
   */
  default TopologyChange updateServers(List<Node> servers) {
    return awaitChange(async().updateServers(servers));
  }

  /**
   * {@link AsyncCacheClient#updatePlacement}, waiting for the change to be in force: after a change
   * still settling, that can be the end of its settle phase. A bad value throws the {@link
   * IllegalArgumentException} the async form completes with, naming the key and the rule, and the
   * placement in force serves on.
   */
  default TopologyChange updatePlacement(Map<String, String> settings) {
    return awaitChange(async().updatePlacement(settings));
  }

  /** {@link AsyncCacheClient#topologyStatus()}. */
  default TopologyStatus topologyStatus() {
    return async().topologyStatus();
  }

  /** The async client this view blocks on. */
  AsyncCacheClient<V> async();

  @Override
  void close();

  private static TopologyChange awaitChange(CompletableFuture<TopologyChange> change) {
    try {
      return change.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ShardwiseException("interrupted while waiting for a topology change to apply (it goes on)", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new ShardwiseException(String.valueOf(cause), cause);
    }
  }
}
