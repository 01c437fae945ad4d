package io.shardwise.spring.cache;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.LoadReport;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An in-memory fleet behind the client API, for the generation's logic and the cache's counts: each
 * node holds its own keys (counters and values); a node can be down (its requests fail), ejected
 * (its state says so), or wiped (a restart). Keys go to their primary only, as when the failure mode
 * is fail-fast. TTLs are ignored. Only what {@link Generation} and {@link ShardwiseCache} use is
 * implemented; replies are complete when returned.
 */
final class FakeFleet implements AsyncCacheClient<Object> {

  private final List<Node> nodes = new ArrayList<>();
  private final List<Map<String, Object>> data = new ArrayList<>();
  private final boolean[] down;
  private final NodeState[] states;
  final AtomicInteger requests = new AtomicInteger();

  FakeFleet(int size) {
    for (int i = 0; i < size; i++) {
      nodes.add(Node.of("127.0.0.1", 20_000 + i));
      data.add(new HashMap<>());
    }
    down = new boolean[size];
    states = new NodeState[size];
    Arrays.fill(states, NodeState.HEALTHY);
  }

  int indexOf(Node node) {
    return nodes.indexOf(node);
  }

  /** The node's requests fail; {@code ejected} also marks it out of service. */
  synchronized void fail(int node, boolean ejected) {
    down[node] = true;
    states[node] = ejected ? NodeState.EJECTED : NodeState.HEALTHY;
  }

  /** Back in service, with its data, or empty when {@code wiped}. */
  synchronized void restore(int node, boolean wiped) {
    down[node] = false;
    states[node] = NodeState.HEALTHY;
    if (wiped) {
      data.get(node).clear();
    }
  }

  /** What node {@code node} holds for {@code key}, or null. */
  synchronized Long raw(int node, String key) {
    return (Long) data.get(node).get(key);
  }

  synchronized void put(int node, String key, long value) {
    data.get(node).put(key, value);
  }

  synchronized void remove(int node, String key) {
    data.get(node).remove(key);
  }

  private int primary(String key) {
    long h = key.hashCode() * 0x9E3779B97F4A7C15L;
    h ^= h >>> 29;
    h *= 0xBF58476D1CE4E5B9L;
    h ^= h >>> 32;
    return (int) Math.floorMod(h, (long) nodes.size());
  }

  @Override
  public synchronized CompletableFuture<Long> incr(
      String key, long delta, long initial, Duration ttl) {
    return on(
        key,
        held -> {
          Long value = (Long) held.get(key);
          long result = value == null ? initial : value + delta;
          held.put(key, result);
          return result;
        });
  }

  @Override
  public synchronized CompletableFuture<Boolean> delete(String key) {
    return on(key, held -> held.remove(key) != null);
  }

  @Override
  public synchronized CompletableFuture<Object> get(String key) {
    return on(key, held -> held.get(key));
  }

  @Override
  public synchronized CompletableFuture<Void> set(String key, Object value, Duration ttl) {
    return on(
        key,
        held -> {
          held.put(key, value);
          return null;
        });
  }

  @Override
  public synchronized CompletableFuture<Boolean> add(String key, Object value, Duration ttl) {
    return on(key, held -> held.putIfAbsent(key, value) == null);
  }

  /** One request for {@code key} on its primary: failed when that node is down. */
  private <T> CompletableFuture<T> on(String key, Function<Map<String, Object>, T> request) {
    requests.incrementAndGet();
    int node = primary(key);
    if (down[node]) {
      return CompletableFuture.failedFuture(
          new NodeUnavailableException(nodes.get(node), "down (test)"));
    }
    return CompletableFuture.completedFuture(request.apply(data.get(node)));
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public Node nodeFor(String key) {
    return nodes.get(primary(key));
  }

  @Override
  public synchronized Map<Node, NodeState> nodeStates() {
    Map<Node, NodeState> out = new LinkedHashMap<>();
    for (int i = 0; i < nodes.size(); i++) {
      out.put(nodes.get(i), states[i]);
    }
    return out;
  }

  @Override
  public CompletableFuture<MultiResult<Object>> getMulti(Collection<String> keys) {
    throw new UnsupportedOperationException();
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> setMulti(
      Map<String, ? extends Object> values, Duration ttl) {
    throw new UnsupportedOperationException();
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> deleteMulti(Collection<String> keys) {
    throw new UnsupportedOperationException();
  }

  @Override
  public CompletableFuture<Boolean> touch(String key, Duration ttl) {
    throw new UnsupportedOperationException();
  }

  @Override
  public CompletableFuture<Long> decr(String key, long delta, long initial, Duration ttl) {
    throw new UnsupportedOperationException();
  }

  @Override
  public CompletableFuture<Duration> ping(Node node) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Map<Node, CompletableFuture<Duration>> pingAll() {
    throw new UnsupportedOperationException();
  }

  @Override
  public LoadReport loadReport() {
    throw new UnsupportedOperationException();
  }

  @Override
  public CacheClient<Object> sync() {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {}
}
