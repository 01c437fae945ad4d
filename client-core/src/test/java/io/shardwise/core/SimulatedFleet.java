package io.shardwise.core;

import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * In-memory servers that fail the way real ones do, for testing the failover protocol under
 * concurrency: each node serves its connection's requests one at a time, in order, on a thread of
 * its own (a connection is one ordered stream). {@link SimNode#pause()} stops it as SIGSTOP does:
 * requests queue up, the client times them out, and they are applied when it resumes. {@link
 * SimNode#kill()} drops what was queued and refuses connections; {@link SimNode#restart(boolean)}
 * brings it back, with or without its data (a persistent Redis, or a memcached put back).
 */
final class SimulatedFleet implements Backend {

  final Map<Node, SimNode> nodes = new ConcurrentHashMap<>();
  private volatile boolean closed;

  static final class SimNode implements NodeConnection {
    final Node node;
    final Map<String, CachedValue> data = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private final Thread worker;
    private final Object gate = new Object();
    private boolean paused;
    private volatile boolean down;
    private volatile long epoch;
    private volatile boolean closed;
    /** Share of requests lost on the way, unapplied, as with a connection reset (0 to 1). */
    volatile double lossRate;

    SimNode(Node node) {
      this.node = node;
      this.worker = new Thread(this::serve, "sim-" + node.name());
      worker.setDaemon(true);
      worker.start();
    }

    private void serve() {
      while (!closed) {
        Runnable task;
        try {
          task = queue.take();
          synchronized (gate) {
            while (paused && !closed) {
              gate.wait();
            }
          }
        } catch (InterruptedException e) {
          return;
        }
        if (ThreadLocalRandom.current().nextInt(200) == 0) {
          Thread.yield();
        }
        task.run();
      }
    }

    void pause() {
      synchronized (gate) {
        paused = true;
      }
    }

    void resume() {
      synchronized (gate) {
        paused = false;
        gate.notifyAll();
      }
    }

    /** Refuses connections; requests still queued are lost (and fail), as with kill -9. */
    void kill() {
      down = true;
      epoch++;
      resume();
    }

    void restart(boolean keepData) {
      if (!keepData) {
        data.clear();
      }
      down = false;
    }

    private <T> CompletableFuture<T> submit(Supplier<T> work) {
      CompletableFuture<T> reply = new CompletableFuture<>();
      if (down || closed) {
        reply.completeExceptionally(new IOException("connection refused"));
        return reply;
      }
      long sentIn = epoch;
      queue.add(
          () -> {
            if (down || epoch != sentIn) {
              reply.completeExceptionally(new IOException("connection lost"));
              return;
            }
            if (lossRate > 0 && ThreadLocalRandom.current().nextDouble() < lossRate) {
              reply.completeExceptionally(new IOException("connection reset"));
              return;
            }
            try {
              reply.complete(work.get());
            } catch (RuntimeException e) {
              reply.completeExceptionally(e);
            }
          });
      return reply;
    }

    @Override
    public Node node() {
      return node;
    }

    @Override
    public CompletableFuture<CachedValue> get(String key) {
      return submit(() -> data.get(key));
    }

    @Override
    public CompletableFuture<Map<String, CachedValue>> getMulti(List<String> keys) {
      List<String> copy = new ArrayList<>(keys);
      return submit(
          () -> {
            Map<String, CachedValue> out = new HashMap<>();
            for (String k : copy) {
              CachedValue v = data.get(k);
              if (v != null) {
                out.put(k, v);
              }
            }
            return out;
          });
    }

    @Override
    public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
      return submit(() -> {
        data.put(key, value);
        return null;
      });
    }

    @Override
    public CompletableFuture<Map<String, Throwable>> setMulti(Map<String, CachedValue> values, Duration ttl) {
      Map<String, CachedValue> copy = new LinkedHashMap<>(values);
      return submit(() -> {
        data.putAll(copy);
        return Map.of();
      });
    }

    @Override
    public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
      return submit(() -> data.putIfAbsent(key, value) == null);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key) {
      return submit(() -> data.remove(key) != null);
    }

    @Override
    public CompletableFuture<Map<String, Boolean>> deleteMulti(List<String> keys) {
      List<String> copy = new ArrayList<>(keys);
      return submit(() -> {
        Map<String, Boolean> out = new LinkedHashMap<>();
        for (String k : copy) {
          out.put(k, data.remove(k) != null);
        }
        return out;
      });
    }

    @Override
    public CompletableFuture<Boolean> touch(String key, Duration ttl) {
      return submit(() -> data.containsKey(key));
    }

    @Override
    public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
      return submit(() -> {
        CachedValue old = data.get(key);
        long v = old == null ? initial : Long.parseLong(new String(old.bytes())) + delta;
        data.put(key, CachedValue.of(Long.toString(v).getBytes(), 0));
        return v;
      });
    }

    @Override
    public CompletableFuture<Duration> ping() {
      return submit(() -> Duration.ofNanos(1000));
    }

    @Override
    public CompletableFuture<Void> flushAll() {
      return submit(() -> {
        data.clear();
        return null;
      });
    }

    @Override
    public void close() {
      closed = true;
      resume();
      worker.interrupt();
    }
  }

  SimNode node(Node node) {
    return nodes.get(node);
  }

  @Override
  public String name() {
    return "memcached";
  }

  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    return nodes.computeIfAbsent(node, SimNode::new);
  }

  @Override
  public Duration defaultRequestTimeout() {
    return Duration.ofMillis(100);
  }

  @Override
  public KeyRules keyRules() {
    return KeyRules.MEMCACHED;
  }

  @Override
  public int defaultMaxValueBytes() {
    return 1024;
  }

  @Override
  public boolean storesFlags() {
    return true;
  }

  @Override
  public void close() {
    closed = true;
    nodes.values().forEach(SimNode::close);
  }
}
