package io.shardwise.spi;

import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The backend SPI: an asynchronous connection to one server, which knows nothing of routing.
 * The routing client validates keys and values, applies its timeout and routes; a connection only
 * talks to its server.
 *
 * <p>Futures complete exceptionally with the backend's own exception when the server fails or is
 * unreachable (see {@link Backend#isNodeFailure(Throwable)}), or answers with an error; the
 * routing client wraps it in a {@code NodeException}. A refusal for a reason of configuration
 * (credentials, permissions, TLS) fails with a {@link io.shardwise.client.NodeSecurityException},
 * which already names the node and is passed on as it is. Futures may complete on I/O threads:
 * callbacks must not block. Bad arguments are thrown by the call itself. A connection must not
 * block the calling thread, must reconnect by itself after the server comes back, and must fail
 * requests quickly (not queue them) while disconnected.
 *
 * <p>TTLs are {@link Duration#ZERO} for no expiry, else positive.
 */
public interface NodeConnection extends AutoCloseable {

  /** The server this connection talks to. */
  Node node();

  /** The stored value, or null when absent. */
  CompletableFuture<CachedValue> get(String key);

  /**
   * The stored values of {@code keys} in one batched request: the hits as values, a key whose own
   * request failed named in the failures, and the other keys were misses. The future fails only
   * when the batch as a whole failed.
   */
  CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys);

  CompletableFuture<Void> set(String key, CachedValue value, Duration ttl);

  /**
   * Stores every entry in one batch (pipelined). Every key is in the reply: {@code true} when the
   * server confirmed its write, else named in the failures with the reason (an error reply, a
   * timeout, a request not sent). The future fails only when the batch as a whole failed.
   */
  CompletableFuture<BatchReply<Boolean>> setMulti(Map<String, CachedValue> values, Duration ttl);

  /** Stores only if absent; true if stored. */
  CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl);

  /** True if the key existed. */
  CompletableFuture<Boolean> delete(String key);

  /**
   * Deletes every key in one batch. Every key is in the reply: whether it existed when the server
   * confirmed its delete, else named in the failures with the reason (an error reply, a timeout, a
   * request not sent), never left out. The future fails only when the batch as a whole failed (no
   * delete was confirmed).
   */
  CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys);

  /** True if the key existed. */
  CompletableFuture<Boolean> touch(String key, Duration ttl);

  /**
   * Adds {@code delta} (negative: subtracts) to a counter, creating it with {@code initial} when
   * absent, and returns the new value.
   */
  CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl);

  /**
   * Adds {@code delta} (negative: subtracts) to a counter that exists, creating nothing: the new
   * value, or null when the key is absent. Counters on several replicas count on each with it, so
   * that a replica that lost its copy does not start the count again from {@code initial}. The
   * default fails with {@link UnsupportedOperationException}: such a backend's replicated counters
   * fail.
   */
  default CompletableFuture<Long> incrIfPresent(String key, long delta) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException(getClass().getSimpleName() + " has no incrIfPresent"));
  }

  /**
   * How long {@code key} has left before it expires: {@link Duration#ZERO} when it does not
   * expire, null when the key is absent or the backend cannot tell (the default; memcached
   * reports it from 1.6 on, with a meta get on the text protocol). The warm-up of a server-list
   * change and the repairs of replicas use it so that a copy never outlives its original.
   */
  default CompletableFuture<Duration> remainingTtl(String key) {
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Which run of its data the server is in ({@link ServerRun}): the replicas' healing reads it
   * every few seconds to learn that a server came back empty. Null when the backend cannot tell
   * (the default), for example through a proxy.
   */
  default CompletableFuture<ServerRun> serverRun() {
    return CompletableFuture.completedFuture(null);
  }

  /** Round trip of a no-op request: memcached {@code version}, Redis {@code PING}. */
  CompletableFuture<Duration> ping();

  /**
   * Whether the server tracks the reads sent on this connection now, to tell the client's near
   * cache when a value read changes ({@link Backend#trackReads}): reads were asked to be tracked and
   * the connection in use turned tracking on. The default: false.
   */
  default boolean readsTracked() {
    return false;
  }

  /**
   * Completes when the first attempt to connect has finished, successfully or not, so that a
   * client being built does not count "still connecting" as a failure of a healthy server. A
   * connection that connects before returning from {@code Backend.connect} is ready at once. It
   * completes exceptionally with an {@link IllegalArgumentException} only when that attempt showed
   * that the server answers but cannot serve this client as configured (a setting to change, not a
   * node down: a Redis server that cannot track reads for the near cache); the client's build then
   * fails with its message.
   */
  default CompletableFuture<Void> ready() {
    return CompletableFuture.completedFuture(null);
  }

  /** Removes every key on the server (used to empty a server before it rejoins). */
  CompletableFuture<Void> flushAll();

  /** Releases the connection; pending requests fail. */
  @Override
  void close();
}
