package io.shardwise.client;

import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A cache client over a sharded fleet: every key goes to the server its router names. Every
 * operation returns at once; its future completes with the result, or exceptionally with a
 * {@link ShardwiseException} (a {@link NodeException} naming the node when a server failed). A
 * miss is a {@code null} value, never an exception.
 *
 * <p>Bad input fails before any I/O, with an {@link IllegalArgumentException} thrown by the call
 * itself: a key the backend cannot store, a value over the size limit, a negative TTL.
 *
 * <p>A TTL of {@link Duration#ZERO} means no expiry. memcached counts TTLs in whole seconds:
 * shorter ones are rounded up to one second.
 *
 * @param <V> the value type, fixed by the client's codec
 */
public interface AsyncCacheClient<V> extends AutoCloseable {

  /** The value of {@code key}, or null when absent. */
  CompletableFuture<V> get(String key);

  /**
   * The values of {@code keys}, fetched with one batched request per server, all servers at
   * once. Every key is in the result as a hit, a miss or an error.
   */
  CompletableFuture<MultiResult<V>> getMulti(Collection<String> keys);

  /** Stores {@code value} under {@code key}. */
  CompletableFuture<Void> set(String key, V value, Duration ttl);

  /**
   * Stores every entry, batched per server. Keys that were stored map to {@code true}; keys
   * whose write failed are in {@link MultiResult#errors()}.
   */
  CompletableFuture<MultiResult<Boolean>> setMulti(Map<String, ? extends V> values, Duration ttl);

  /** Stores {@code value} only if {@code key} is absent; true if it was stored. */
  CompletableFuture<Boolean> add(String key, V value, Duration ttl);

  /** Removes {@code key}; true if it existed. */
  CompletableFuture<Boolean> delete(String key);

  /** Removes every key, batched per server; each key maps to whether it existed. */
  CompletableFuture<MultiResult<Boolean>> deleteMulti(Collection<String> keys);

  /** Sets a new TTL on {@code key}; true if it existed. */
  CompletableFuture<Boolean> touch(String key, Duration ttl);

  /**
   * Adds {@code delta} (>= 0) to the counter at {@code key} and returns the new value; an absent
   * counter is created with {@code initial} (and {@code ttl}) and {@code initial} is returned.
   *
   * <p>memcached counters are unsigned 64-bit: the {@code long} returned, and {@code initial}, hold
   * the counter's 64 bits, so values from 2^63 to 2^64-1 are negative longs ({@link
   * Long#toUnsignedString(long)} prints the server's number, {@link Long#compareUnsigned} orders
   * them), the same on the text and binary protocols; an increment past 2^64-1 wraps around to 0.
   * Redis counters are signed 64-bit: the long is the value, and an increment past 2^63-1 fails.
   */
  CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl);

  /**
   * Subtracts {@code delta} (>= 0) from the counter at {@code key} and returns the new value; an
   * absent counter is created with {@code initial} and {@code initial} is returned. memcached
   * counters are unsigned 64-bit (read {@code initial} and the result as in {@link #incr}) and stop
   * at 0; Redis counters are signed and go below 0.
   */
  CompletableFuture<Long> decr(String key, long delta, long initial, Duration ttl);

  /** The round trip of a no-op request (memcached {@code version}, Redis {@code PING}) to one node. */
  CompletableFuture<Duration> ping(Node node);

  /** {@link #ping(Node)} for every node. */
  Map<Node, CompletableFuture<Duration>> pingAll();

  /** The nodes of the fleet, in server-list order. */
  List<Node> nodes();

  /** The node that {@code key} is routed to when every node is healthy. */
  Node nodeFor(String key);

  /** Each node's state in this client's view, in server-list order. */
  Map<Node, NodeState> nodeStates();

  /**
   * Each node's state in this client's view with since when and why, in server-list order: what a
   * health check shows. The default has no times or reasons; the routing client fills them in.
   */
  default Map<Node, NodeStatus> nodeStatus() {
    Map<Node, NodeStatus> out = new java.util.LinkedHashMap<>();
    Instant now = Instant.now();
    nodeStates().forEach((node, state) -> out.put(node, new NodeStatus(node, state, now, "", 0)));
    return out;
  }

  /**
   * Moves the client to a new server list while it serves: nodes may be added, removed,
   * reweighted or replaced. Connections to added nodes are opened (their first connection attempt
   * finished) before any request is routed to them; the switch is atomic (each request sees the
   * old list or the new one); removed nodes are closed once the requests they were sent have
   * finished. Nodes in both lists keep their connection, health and load state.
   *
   * <p>A bad list (empty, duplicate servers, a router that cannot be built for it) fails the
   * returned future with an {@link IllegalArgumentException} naming the problem, and the old list
   * stays in force. A list with an added server whose host does not resolve to an address now fails
   * it with an {@link IllegalStateException} naming the host, and the old list stays too: the list
   * may be right and the name service down, so a watched source offers it again at its next read.
   * Changes are applied one at a time, in the order they are made.
   *
   * @return completes with the change once the new list is in force
   */
  default CompletableFuture<TopologyChange> updateServers(List<Node> servers) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException(getClass().getSimpleName() + " has a fixed server list"));
  }

  /**
   * Changes the placement itself while the client serves: the router, its mode and parameters, the
   * hash tag, and the server list, named by the configuration keys ({@code shardwise.router},
   * {@code shardwise.ketama.compatibility}, {@code shardwise.compat.mode}, {@code
   * shardwise.ring.points-per-node}, {@code shardwise.multiprobe.probes}, {@code
   * shardwise.maglev.table-size}, {@code shardwise.hash-tag}, {@code shardwise.servers}, {@code
   * shardwise.replicas}), and the bounded-load keys ({@code shardwise.bounded.*}), which move no
   * key. With a near cache, also its bound, staleness bound and hot threshold ({@code
   * shardwise.near-cache.max-bytes}, {@code max-entries}, {@code max-staleness}, {@code
   * hot-threshold}), changed in place: a change of these alone installs no new placement and keeps
   * the near cache's entries (docs/configuration.md). Keys not named keep their values. The keys that move are taken over as
   * in a server-list change ({@link #updateServers}): they settle, then warm up from where they
   * were; keys that stay cost nothing.
   *
   * <p>A bad value, or a key that is not one of these, fails the returned future with an {@link
   * IllegalArgumentException} naming the key and the rule, as the configuration loader does, and
   * the placement in force keeps serving. Changes are applied one at a time, in the order they are
   * made, with the server-list changes.
   *
   * @param settings full key to value ({@code shardwise.router -> maglev})
   * @return completes with the change once the new placement is in force
   */
  default CompletableFuture<TopologyChange> updatePlacement(Map<String, String> settings) {
    return CompletableFuture.failedFuture(
        new UnsupportedOperationException(getClass().getSimpleName() + " has a fixed placement"));
  }

  /**
   * The server list in force and where its last change stands. The default: the list, stable,
   * no change.
   */
  default TopologyStatus topologyStatus() {
    return new TopologyStatus(nodes(), null, TopologyStatus.Phase.STABLE, null, 0, 0, 0);
  }

  /** Bounded-load routing: loads, caps, spills per node, and the hot keys. */
  LoadReport loadReport();

  /** The near cache's counts and size; the default: {@link NearCacheStats#OFF}, no near cache. */
  default NearCacheStats nearCacheStats() {
    return NearCacheStats.OFF;
  }

  /** A blocking view of this client, sharing its connections. */
  CacheClient<V> sync();

  /** Closes every connection. Operations after close fail. */
  @Override
  void close();
}
