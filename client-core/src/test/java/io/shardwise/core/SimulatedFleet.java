package io.shardwise.core;

import io.shardwise.client.CachedValue;
import io.shardwise.core.internal.health.Member;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BatchReply;
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
 *
 * <p>A server is one address: a node that leaves the client's list and comes back, or is renamed,
 * reaches the same server and its data through a new connection ({@link SimConnection}).
 */
final class SimulatedFleet implements Backend {

  /** With -Dsim.trace=true: what each server did to each key, for debugging a model test. */
  static final Map<String, java.util.concurrent.ConcurrentLinkedQueue<Traced>> TRACE = new ConcurrentHashMap<>();
  static final boolean TRACING = Boolean.getBoolean("sim.trace");

  /** One traced step, formatted only when printed so that tracing changes the timing little. */
  record Traced(long nanos, String thread, String what) {
    @Override
    public String toString() {
      return String.format("%.3f %s %s", nanos / 1e6 % 100000, thread, what);
    }
  }

  static void trace(String key, String what) {
    if (TRACING) {
      TRACE.computeIfAbsent(key, k -> new java.util.concurrent.ConcurrentLinkedQueue<>())
          .add(new Traced(System.nanoTime(), Thread.currentThread().getName(), what));
    }
  }

  /** The steps traced for {@code key} and for every key ("*"), in time order, one per line. */
  static String traceOf(String key) {
    List<Traced> merged = new ArrayList<>(TRACE.getOrDefault(key, new java.util.concurrent.ConcurrentLinkedQueue<>()));
    merged.addAll(TRACE.getOrDefault("*", new java.util.concurrent.ConcurrentLinkedQueue<>()));
    merged.sort(java.util.Comparator.comparingLong(Traced::nanos));
    StringBuilder out = new StringBuilder();
    for (Traced t : merged) {
      out.append("\n  ").append(t);
    }
    return out.toString();
  }

  /** Servers by address ({@link Member#identity}). */
  final Map<String, SimNode> nodes = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** One server: its data and its one request queue, shared by the connections to it. */
  static final class SimNode {
    final Node node;
    final Map<String, CachedValue> data = new ConcurrentHashMap<>();
    private final LinkedBlockingQueue<Runnable> queue = new LinkedBlockingQueue<>();
    private final Thread worker;
    private final Object gate = new Object();
    private boolean paused;
    private volatile boolean down;
    private volatile long epoch;
    private volatile boolean closed;
    /**
     * Share of requests lost on the way, unapplied, as with a connection reset (0 to 1); in a batch,
     * each key's request on its own.
     */
    volatile double lossRate;
    /** A broken server that answers deletes as done and keeps the values: for checking the checker. */
    volatile boolean ignoresDeletes;
    /** Single-key deletes fail unapplied while set, as when their request is lost. */
    volatile boolean losesDeletes;
    /** Each request waits up to this many microseconds before it is served (in order): a busy server. */
    volatile int jitterMicros;
    /** Starts of the server process: each restart is a new run, with or without its data ({@code serverRun}). */
    volatile int runs;

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
        int jitter = jitterMicros;
        if (jitter > 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(jitter) * 1000L);
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
      runs++;
      down = false;
    }

    <T> CompletableFuture<T> submit(Supplier<T> work) {
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

    void close() {
      closed = true;
      resume();
      worker.interrupt();
    }
  }

  /** A connection to a server; closing it leaves the server and its data. */
  static final class SimConnection implements NodeConnection {
    private final SimNode server;
    private final Node node;
    private volatile boolean closed;

    SimConnection(SimNode server, Node node) {
      this.server = server;
      this.node = node;
    }

    private <T> CompletableFuture<T> submit(Supplier<T> work) {
      if (closed) {
        return CompletableFuture.failedFuture(new IllegalStateException(node + ": the connection is closed"));
      }
      return server.submit(work);
    }

    @Override
    public Node node() {
      return node;
    }

    @Override
    public CompletableFuture<CachedValue> get(String key) {
      return submit(() -> {
        CachedValue v = server.data.get(key);
        trace(key, node.name() + " get " + (v == null ? null : new String(v.bytes())));
        return v;
      });
    }

    /**
     * Whether the request for one key of a batch is lost, unapplied, as with a batch whose server
     * stops halfway or whose reply is partly lost: the key alone fails, the rest of the batch goes
     * through (at the node's loss rate, per key).
     */
    private boolean lostInBatch(String key, String operation) {
      if (server.lossRate > 0 && ThreadLocalRandom.current().nextDouble() < server.lossRate) {
        trace(key, node.name() + " " + operation + " lost");
        return true;
      }
      return false;
    }

    private static final IOException LOST = new IOException("no reply for this key of the batch");

    @Override
    public CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys) {
      List<String> copy = new ArrayList<>(keys);
      return submit(
          () -> {
            Map<String, CachedValue> out = new HashMap<>();
            Map<String, Throwable> lost = new HashMap<>();
            for (String k : copy) {
              if (lostInBatch(k, "getMulti")) {
                lost.put(k, LOST);
                continue;
              }
              CachedValue v = server.data.get(k);
              trace(k, node.name() + " getMulti " + (v == null ? null : new String(v.bytes())));
              if (v != null) {
                out.put(k, v);
              }
            }
            return BatchReply.of(out, lost);
          });
    }

    @Override
    public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
      return submit(() -> {
        trace(key, node.name() + " set " + new String(value.bytes()));
        server.data.put(key, value);
        return null;
      });
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> setMulti(Map<String, CachedValue> values, Duration ttl) {
      Map<String, CachedValue> copy = new LinkedHashMap<>(values);
      return submit(() -> {
        Map<String, Boolean> stored = new HashMap<>();
        Map<String, Throwable> lost = new HashMap<>();
        copy.forEach(
            (k, v) -> {
              if (lostInBatch(k, "setMulti")) {
                lost.put(k, LOST);
                return;
              }
              trace(k, node.name() + " setMulti " + new String(v.bytes()));
              server.data.put(k, v);
              stored.put(k, Boolean.TRUE);
            });
        return BatchReply.of(stored, lost);
      });
    }

    @Override
    public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
      return submit(() -> {
        boolean added = server.data.putIfAbsent(key, value) == null;
        trace(key, node.name() + " add " + new String(value.bytes()) + " " + added);
        return added;
      });
    }

    @Override
    public CompletableFuture<Boolean> delete(String key) {
      return submit(() -> {
        trace(key, node.name() + " delete" + (server.losesDeletes ? " lost" : ""));
        if (server.losesDeletes) {
          throw new IllegalStateException(node + ": the delete was lost");
        }
        return server.ignoresDeletes ? Boolean.TRUE : server.data.remove(key) != null;
      });
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys) {
      List<String> copy = new ArrayList<>(keys);
      return submit(() -> {
        Map<String, Boolean> out = new LinkedHashMap<>();
        Map<String, Throwable> lost = new HashMap<>();
        for (String k : copy) {
          if (lostInBatch(k, "deleteMulti")) {
            lost.put(k, LOST);
            continue;
          }
          trace(k, node.name() + " deleteMulti");
          out.put(k, server.ignoresDeletes || server.data.remove(k) != null);
        }
        return BatchReply.of(out, lost);
      });
    }

    @Override
    public CompletableFuture<Boolean> touch(String key, Duration ttl) {
      return submit(() -> server.data.containsKey(key));
    }

    @Override
    public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
      return submit(() -> {
        CachedValue old = server.data.get(key);
        long v = old == null ? initial : Long.parseLong(new String(old.bytes())) + delta;
        server.data.put(key, CachedValue.of(Long.toString(v).getBytes(), 0));
        trace(key, node.name() + " incr " + v);
        return v;
      });
    }

    /** No value expires here: {@link Duration#ZERO} for a key held, null for one absent (a round trip, as a real server's). */
    @Override
    public CompletableFuture<Duration> remainingTtl(String key) {
      return submit(() -> server.data.containsKey(key) ? Duration.ZERO : null);
    }

    @Override
    public CompletableFuture<Long> incrIfPresent(String key, long delta) {
      return submit(() -> {
        CachedValue old = server.data.get(key);
        if (old == null) {
          trace(key, node.name() + " incrIfPresent absent");
          return null;
        }
        long v = Long.parseLong(new String(old.bytes())) + delta;
        server.data.put(key, CachedValue.of(Long.toString(v).getBytes(), 0));
        trace(key, node.name() + " incrIfPresent " + v);
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
        server.data.clear();
        return null;
      });
    }

    /** The server's run: a new one after each restart, as memcached's pid and start time or Redis's run_id. */
    @Override
    public CompletableFuture<io.shardwise.spi.ServerRun> serverRun() {
      return submit(() -> new io.shardwise.spi.ServerRun("run " + server.runs, server.data.size()));
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /**
   * Stops and continues, kills and restarts (with their data, as a persistent Redis or the worst
   * case, or empty, as a memcached) random servers of {@code nodes}, one at a time, until {@code
   * running} is cleared; the pauses are shorter than the detection, or about as long. Runs on the
   * calling thread.
   */
  void chaos(List<Node> nodes, long seed, java.util.concurrent.atomic.AtomicBoolean running) {
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    try {
      Thread.sleep(100);
      while (running.get()) {
        SimNode victim = node(nodes.get(random.nextInt(nodes.size())));
        int action = random.nextInt(4);
        trace("*", "chaos " + victim.node + " " + (action == 2 ? "kill" : action == 3 ? "kill, restart empty" : "pause"));
        if (action == 0) {
          victim.pause();
          Thread.sleep(20 + random.nextInt(150));
          victim.resume();
        } else if (action == 1) {
          victim.pause();
          Thread.sleep(5 + random.nextInt(60));
          victim.resume();
        } else {
          victim.kill();
          Thread.sleep(20 + random.nextInt(150));
          victim.restart(action == 2); // with its data, or empty as a restarted memcached
        }
        trace("*", "chaos " + victim.node + " back");
        Thread.sleep(random.nextInt(80));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      nodes.forEach(n -> node(n).resume());
    }
  }

  /** Failover that detects in a few requests and probes every few milliseconds, for model tests. */
  static FailoverOptions.Builder fastFailover() {
    return FailoverOptions.builder()
        .failureThreshold(3)
        .maxEjectedPercent(100)
        .probeInterval(Duration.ofMillis(5))
        .maxProbeInterval(Duration.ofMillis(30))
        .probeTimeout(Duration.ofMillis(100));
  }

  /** The server at {@code node}'s address. */
  SimNode node(Node node) {
    return nodes.computeIfAbsent(Member.identity(node), id -> new SimNode(node));
  }

  @Override
  public String name() {
    return "memcached";
  }

  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    return new SimConnection(node(node), node);
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
