package io.shardwise.core;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.exec.PendingGetMulti;
import io.shardwise.core.internal.health.DeadlineScanner;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;


/**
 * Blocks on the async client. Every async operation is bounded by the per-node timeout, so a
 * call returns or throws within about that time.
 */
final class SyncCacheClient<V> implements CacheClient<V> {

  private final RoutingClient<V> async;
  /**
   * A safety net only: every request fails after the timeout in its backend, and an operation
   * makes at most a few rounds of requests to each node, each round of a batch at most one
   * request per part of it; a wait of {@link #limitNanos} means a future was never completed.
   */
  private final long timeoutNanos;
  /** How long to wait again when the process seems to have just stalled. */
  private static final long RECHECK_NANOS = 10_000_000L;

  SyncCacheClient(RoutingClient<V> async, Duration timeout) {
    this.async = async;
    this.timeoutNanos = timeout.toNanos();
  }

  /**
   * The longest running time an operation whose batch goes to a node in at most {@code parts}
   * parts may take: 4 rounds of {@code parts} timeouts each, and 1 s.
   */
  private long limitNanos(long parts) {
    long rounds = 4 * Math.max(1, parts);
    // At most a quarter of the range of a long (73 years), so that the waits computed from it as
    // differences of System.nanoTime() never overflow.
    long most = Long.MAX_VALUE / 4;
    return rounds > (most - 1_000_000_000L) / timeoutNanos ? most : rounds * timeoutNanos + 1_000_000_000L;
  }


  private <T> T await(CompletableFuture<T> future) {
    return await(future, 1);
  }

  /**
   * Waits for {@code future}, at most {@link #limitNanos} of the time this process ran: time it
   * spent stalled (a pause, a starved CPU, seen by the client's {@code DeadlineScanner}) does not
   * count, as it does not count against a request's own timeout, so that a stall ends in each
   * request's own outcome (a reply, or the timeout it gets once the process runs again).
   */
  private <T> T await(CompletableFuture<T> future, long parts) {
    long limitNanos = limitNanos(parts);
    long stalledAtStart = async.deadlines().stalledNanos();
    long deadline = System.nanoTime() + limitNanos;
    try {
      while (true) {
        DeadlineScanner scanner = async.deadlines();
        long wait = deadline + (scanner.stalledNanos() - stalledAtStart) - System.nanoTime();
        if (wait <= 0 && !scanner.seemsStalledNow()) {
          // Read again now that the scanner is known to be on time: a stall it counted between
          // the two reads above moves the limit too.
          wait = deadline + (scanner.stalledNanos() - stalledAtStart) - System.nanoTime();
        }
        if (wait <= 0) {
          if (!scanner.seemsStalledNow()) {
            throw new ShardwiseException(
                "no result within " + java.time.Duration.ofNanos(limitNanos).toMillis()
                    + " ms of running time although every request times out sooner: a backend left a"
                    + " request incomplete");
          }
          wait = RECHECK_NANOS; // just after a pause the scanner has not counted it yet
        }
        try {
          return future.get(wait, java.util.concurrent.TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
          // the limit, or a stall that moved it: check again
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ShardwiseException("interrupted while waiting for a cache operation", e);
    } catch (java.util.concurrent.ExecutionException e) {
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
    // The result is built here, on the calling thread (see PendingGetMulti).
    PendingGetMulti<V> pending = async.startGetMulti(keys);
    await(pending.done, async.partsBound(keys.size(), 0));
    return pending.result();
  }

  @Override
  public void set(String key, V value, Duration ttl) {
    await(async.set(key, value, ttl));
  }

  @Override
  public MultiResult<Boolean> setMulti(Map<String, ? extends V> values, Duration ttl) {
    RoutingClient.PendingBatch<MultiResult<Boolean>> pending = async.startSetMulti(values, ttl);
    return await(pending.done(), pending.parts());
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
    return await(async.deleteMulti(keys), keys == null ? 1 : async.partsBound(keys.size(), 0));
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
