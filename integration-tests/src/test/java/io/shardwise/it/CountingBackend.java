package io.shardwise.it;

import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * A backend decorator that counts, per node, the requests the routing client hands to each node
 * connection: proof from the client side of how many batched requests a multi-key call sends.
 */
final class CountingBackend extends ForwardingBackend {

  private final Map<Node, AtomicInteger> getMultiCalls = new ConcurrentHashMap<>();
  private final Map<Node, AtomicInteger> getMultiKeys = new ConcurrentHashMap<>();
  private final Map<Node, AtomicInteger> otherCalls = new ConcurrentHashMap<>();
  private final AtomicInteger setMultiCalls = new AtomicInteger();
  private final AtomicInteger deleteMultiCalls = new AtomicInteger();
  private final AtomicInteger largestBatch = new AtomicInteger();
  /** Told the number of each {@code setMulti} request (from 1) before it is sent, when set. */
  volatile IntConsumer beforeSetMulti = n -> {};

  CountingBackend(Backend delegate) {
    super(delegate);
  }

  /** {@code getMulti} requests per node since the last {@link #clear()}. */
  Map<Node, Integer> getMultiCalls() {
    return snapshot(getMultiCalls);
  }

  /** Keys asked for in {@code getMulti} requests, per node. */
  Map<Node, Integer> getMultiKeys() {
    return snapshot(getMultiKeys);
  }

  /** Every other request per node (gets, sets, pings...). */
  Map<Node, Integer> otherCalls() {
    return snapshot(otherCalls);
  }

  /** {@code setMulti} requests, all nodes. */
  int setMultiCalls() {
    return setMultiCalls.get();
  }

  /** {@code deleteMulti} requests, all nodes. */
  int deleteMultiCalls() {
    return deleteMultiCalls.get();
  }

  /** The most keys of any one getMulti, setMulti or deleteMulti request. */
  int largestBatch() {
    return largestBatch.get();
  }

  void clear() {
    getMultiCalls.clear();
    getMultiKeys.clear();
    otherCalls.clear();
    setMultiCalls.set(0);
    deleteMultiCalls.set(0);
    largestBatch.set(0);
  }

  private static Map<Node, Integer> snapshot(Map<Node, AtomicInteger> counts) {
    Map<Node, Integer> copy = new HashMap<>();
    counts.forEach((node, count) -> copy.put(node, count.get()));
    return copy;
  }

  private static void count(Map<Node, AtomicInteger> counts, Node node, int by) {
    counts.computeIfAbsent(node, n -> new AtomicInteger()).addAndGet(by);
  }

  @Override
  public NodeConnection connect(Node node, java.time.Duration requestTimeout) {
    return new CountingConnection(delegate().connect(node, requestTimeout));
  }

  /** The limits of the connection this one counts the requests of. */
  @Override
  public CompletableFuture<Void> limitsRead(NodeConnection connection) {
    return delegate().limitsRead(connection instanceof CountingConnection c ? c.delegate : connection);
  }

  private final class CountingConnection implements NodeConnection {
    private final NodeConnection delegate;

    CountingConnection(NodeConnection delegate) {
      this.delegate = delegate;
    }

    private void other() {
      count(otherCalls, delegate.node(), 1);
    }

    @Override
    public Node node() {
      return delegate.node();
    }

    @Override
    public CompletableFuture<CachedValue> get(String key) {
      other();
      return delegate.get(key);
    }

    @Override
    public CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys) {
      count(getMultiCalls, delegate.node(), 1);
      count(getMultiKeys, delegate.node(), keys.size());
      largestBatch.accumulateAndGet(keys.size(), Math::max);
      return delegate.getMulti(keys);
    }

    @Override
    public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
      other();
      return delegate.set(key, value, ttl);
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> setMulti(
        Map<String, CachedValue> values, Duration ttl) {
      other();
      largestBatch.accumulateAndGet(values.size(), Math::max);
      beforeSetMulti.accept(setMultiCalls.incrementAndGet());
      return delegate.setMulti(values, ttl);
    }

    @Override
    public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
      other();
      return delegate.add(key, value, ttl);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key) {
      other();
      return delegate.delete(key);
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys) {
      other();
      largestBatch.accumulateAndGet(keys.size(), Math::max);
      deleteMultiCalls.incrementAndGet();
      return delegate.deleteMulti(keys);
    }

    @Override
    public CompletableFuture<Boolean> touch(String key, Duration ttl) {
      other();
      return delegate.touch(key, ttl);
    }

    @Override
    public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
      other();
      return delegate.incr(key, delta, initial, ttl);
    }

    @Override
    public CompletableFuture<Void> ready() {
      return delegate.ready();
    }

    @Override
    public boolean readsTracked() {
      return delegate.readsTracked();
    }

    @Override
    public CompletableFuture<Long> incrIfPresent(String key, long delta) {
      other();
      return delegate.incrIfPresent(key, delta);
    }

    @Override
    public CompletableFuture<Duration> remainingTtl(String key) {
      other();
      return delegate.remainingTtl(key);
    }

    @Override
    public CompletableFuture<Duration> ping() {
      other();
      return delegate.ping();
    }

    @Override
    public CompletableFuture<Void> flushAll() {
      other();
      return delegate.flushAll();
    }

    @Override
    public void close() {
      delegate.close();
    }
  }
}
