package io.shardwise.core;

import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** A backend of in-memory maps, one per node, that counts requests and can be told to fail or hang. */
final class InMemoryBackend implements Backend {

  final Map<Node, Store> stores = new ConcurrentHashMap<>();
  final KeyRules rules;
  volatile boolean closed;

  InMemoryBackend(KeyRules rules) {
    this.rules = rules;
  }

  static final class Store implements NodeConnection {
    final Node node;
    final Map<String, CachedValue> data = new ConcurrentHashMap<>();
    final AtomicInteger requests = new AtomicInteger();
    final AtomicInteger multiGets = new AtomicInteger();
    /** Keys asked for in getMultis. */
    final AtomicInteger multiGetKeys = new AtomicInteger();
    /** Single-key gets received (pings and other requests are not counted). */
    final AtomicInteger gets = new AtomicInteger();
    /** Single-key sets received. */
    final AtomicInteger sets = new AtomicInteger();
    final AtomicInteger flushes = new AtomicInteger();
    /** The TTL each key was last written with. */
    final Map<String, Duration> ttls = new ConcurrentHashMap<>();
    /** Deletes fail with this (the server answers, but refuses them), when set. */
    volatile RuntimeException refuseDeletes;
    volatile Throwable failWith;
    /** Fails this many more requests with an IOException, then answers normally. */
    final AtomicInteger failNext = new AtomicInteger();
    volatile boolean hang;
    volatile boolean closed;
    /** The first connection attempt takes this long ({@link #ready()}). */
    volatile long readyMillis;

    @Override
    public CompletableFuture<Void> ready() {
      return readyMillis == 0
          ? CompletableFuture.completedFuture(null)
          : CompletableFuture.runAsync(
              () -> {},
              CompletableFuture.delayedExecutor(readyMillis, java.util.concurrent.TimeUnit.MILLISECONDS));
    }

    /** Requests fail after this, as the SPI asks of a connection. */
    volatile Duration requestTimeout = Duration.ofMillis(250);

    Store(Node node) {
      this.node = node;
    }

    /**
     * Request number {@link #failRequest} (counting from 1, pings included) and the {@link
     * #failRequests} - 1 after it fail with {@link #failRequestWith}.
     */
    volatile int failRequest;
    volatile int failRequests = 1;
    volatile Throwable failRequestWith;
    /** Every reply comes this long after its request, when set. */
    volatile long delayMillis;
    /** Deletes (single and batched) are applied and answered this long after their request, when set. */
    volatile long deleteDelayMillis;

    /** Updates of counters that exist ({@code incrIfPresent}) are applied and answered this long after their request, when set. */
    volatile long incrDelayMillis;

    private <T> CompletableFuture<T> delete(java.util.function.Supplier<T> work) {
      return late(deleteDelayMillis, work);
    }

    private <T> CompletableFuture<T> late(long delay, java.util.function.Supplier<T> work) {
      if (delay == 0) {
        return reply(work);
      }
      return reply(() -> null)
          .thenCompose(
              x -> CompletableFuture.supplyAsync(work, CompletableFuture.delayedExecutor(delay, java.util.concurrent.TimeUnit.MILLISECONDS)));
    }

    private <T> CompletableFuture<T> reply(java.util.function.Supplier<T> work) {
      int number = requests.incrementAndGet();
      if (number >= failRequest && number < failRequest + failRequests) {
        return CompletableFuture.failedFuture(failRequestWith);
      }
      if (delayMillis > 0) {
        return CompletableFuture.supplyAsync(
            work, CompletableFuture.delayedExecutor(delayMillis, java.util.concurrent.TimeUnit.MILLISECONDS));
      }
      if (closed) {
        return CompletableFuture.failedFuture(new IllegalStateException(node + ": the connection is closed"));
      }
      if (hang) {
        return new CompletableFuture<T>().orTimeout(requestTimeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
      }
      if (failWith != null) {
        return CompletableFuture.failedFuture(failWith);
      }
      if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
        return CompletableFuture.failedFuture(new java.io.IOException("connection reset"));
      }
      return CompletableFuture.completedFuture(work.get());
    }

    @Override
    public Node node() {
      return node;
    }

    @Override
    public CompletableFuture<CachedValue> get(String key) {
      gets.incrementAndGet();
      return reply(() -> data.get(key));
    }

    /**
     * Keys whose own request inside a batch fails, unapplied, with an IOException named in the reply
     * (as a memcached batch whose server stopped halfway answers), when set.
     */
    volatile java.util.function.Predicate<String> failInBatch;

    /**
     * Keys whose own request inside a write batch is not applied and that the reply names neither
     * as answered nor as failed, when set: a backend that leaves a key out of its reply (which the
     * {@link BatchReply} contract forbids), so that the client's rule for such a key is tested.
     */
    volatile java.util.function.Predicate<String> silentInBatch;

    private boolean silent(String key) {
      java.util.function.Predicate<String> silent = silentInBatch;
      return silent != null && silent.test(key);
    }

    /** The failure of {@code key}'s own request in a batch, or null. */
    private Throwable failsInBatch(String key) {
      java.util.function.Predicate<String> fail = failInBatch;
      return fail != null && fail.test(key) ? new java.io.IOException("no reply for " + key) : null;
    }

    @Override
    public CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys) {
      multiGets.incrementAndGet();
      multiGetKeys.addAndGet(keys.size());
      return reply(
          () -> {
            Map<String, CachedValue> out = new HashMap<>();
            Map<String, Throwable> failed = new HashMap<>();
            for (String k : keys) {
              Throwable f = failsInBatch(k);
              if (f != null) {
                failed.put(k, f);
              } else if (data.containsKey(k)) {
                out.put(k, data.get(k));
              }
            }
            return BatchReply.of(out, failed);
          });
    }

    @Override
    public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
      sets.incrementAndGet();
      return reply(() -> {
        data.put(key, value);
        ttls.put(key, ttl);
        return null;
      });
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> setMulti(Map<String, CachedValue> values, Duration ttl) {
      return reply(() -> {
        Map<String, Boolean> stored = new HashMap<>();
        Map<String, Throwable> failed = new HashMap<>();
        values.forEach(
            (k, v) -> {
              Throwable f = failsInBatch(k);
              if (f != null) {
                failed.put(k, f);
              } else if (!silent(k)) {
                data.put(k, v);
                ttls.put(k, ttl);
                stored.put(k, Boolean.TRUE);
              }
            });
        return BatchReply.of(stored, failed);
      });
    }

    @Override
    public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
      return reply(() -> {
        boolean added = data.putIfAbsent(key, value) == null;
        if (added) {
          ttls.put(key, ttl);
        }
        return added;
      });
    }

    @Override
    public CompletableFuture<Boolean> delete(String key) {
      if (refuseDeletes != null) {
        return CompletableFuture.failedFuture(refuseDeletes);
      }
      return delete(() -> data.remove(key) != null);
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys) {
      if (refuseDeletes != null) {
        return CompletableFuture.failedFuture(refuseDeletes);
      }
      return delete(() -> {
        Map<String, Boolean> out = new LinkedHashMap<>();
        Map<String, Throwable> failed = new HashMap<>();
        for (String k : keys) {
          Throwable f = failsInBatch(k);
          if (f != null) {
            failed.put(k, f);
          } else if (!silent(k)) {
            out.put(k, data.remove(k) != null);
          }
        }
        return BatchReply.of(out, failed);
      });
    }

    @Override
    public CompletableFuture<Boolean> touch(String key, Duration ttl) {
      return reply(() -> {
        boolean found = data.containsKey(key);
        if (found) {
          ttls.put(key, ttl);
        }
        return found;
      });
    }

    @Override
    public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
      return reply(() -> {
        CachedValue old = data.get(key);
        long v = old == null ? initial : Long.parseLong(new String(old.bytes())) + delta;
        data.put(key, CachedValue.of(Long.toString(v).getBytes(), 0));
        return v;
      });
    }

    @Override
    public CompletableFuture<Long> incrIfPresent(String key, long delta) {
      return late(incrDelayMillis, () -> {
        CachedValue old = data.get(key);
        if (old == null) {
          return null;
        }
        long v = Long.parseLong(new String(old.bytes())) + delta;
        data.put(key, CachedValue.of(Long.toString(v).getBytes(), 0));
        return v;
      });
    }

    @Override
    public CompletableFuture<Duration> ping() {
      return reply(() -> Duration.ofNanos(1000));
    }

    /** A new run after each flush, as a restarted or flushed server's {@code stats} tell. */
    @Override
    public CompletableFuture<io.shardwise.spi.ServerRun> serverRun() {
      return reply(() -> new io.shardwise.spi.ServerRun("flushes " + flushes.get(), data.size()));
    }

    @Override
    public CompletableFuture<Void> flushAll() {
      flushes.incrementAndGet();
      return reply(() -> {
        data.clear();
        return null;
      });
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  Store store(Node node) {
    return stores.get(node);
  }

  @Override
  public String name() {
    return rules == KeyRules.MEMCACHED ? "memcached" : "redis";
  }

  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    Store store = stores.computeIfAbsent(node, Store::new);
    store.requestTimeout = requestTimeout;
    // A new connection to a server whose earlier one was closed is open (the data stays: it is the
    // server's); one store per node stands for both.
    store.closed = false;
    return store;
  }

  @Override
  public Duration defaultRequestTimeout() {
    return Duration.ofMillis(250);
  }

  @Override
  public KeyRules keyRules() {
    return rules;
  }

  @Override
  public int defaultMaxValueBytes() {
    return 1024;
  }

  @Override
  public boolean storesFlags() {
    return rules == KeyRules.MEMCACHED;
  }

  /** A request refused by the client's own full queue for its node ({@link #isClientQueueFull}). */
  static final class QueueFull extends RuntimeException {
    private static final long serialVersionUID = 1L;

    QueueFull() {
      super("the queue of requests is full");
    }
  }

  @Override
  public boolean isClientQueueFull(Throwable failure) {
    Throwable t = failure;
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof QueueFull;
  }

  /** Whether hosts must resolve, as for the built-in backends; false: node names are only names. */
  volatile boolean resolves;

  @Override
  public boolean resolvesHosts() {
    return resolves;
  }

  @Override
  public void close() {
    closed = true;
  }
}
