package io.shardwise.core;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.shardwise.client.NoNodeAvailableException;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeEventListener;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Health of every node: one Resilience4j {@link CircuitBreaker} per node counts consecutive node
 * failures (timeouts, lost or refused connections; not misses, not error replies), and an open
 * circuit ejects the node from selection. An ejected node is probed (memcached {@code version},
 * Redis {@code PING}) with exponential backoff and readmitted only after a probe and its {@link
 * RejoinPolicy rejoin step} succeed — never on a timer.
 *
 * <p>Each state change is logged once and delivered to the listeners on the health thread.
 */
final class FleetHealth implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.health");
  private static final int DELETE_CHUNK = 1000;

  /** {@link #select} result when no node is available. */
  static final int NONE = -1;

  private final Topology topology;
  private final Backend backend;
  private final FailoverOptions options;
  private final List<NodeEventListener> listeners;
  private final NodeHealth[] nodes;
  private final ScheduledExecutorService scheduler;
  private volatile boolean closed;

  /** One node's circuit, state and journal. */
  final class NodeHealth {
    final int index;
    final Node node;
    final CircuitBreaker breaker;
    final Journal journal;
    volatile NodeState state = NodeState.HEALTHY;
    /** Incremented at every readmission; writers compare it to see a readmission race. */
    volatile long epoch;
    volatile Throwable lastFailure;
    /**
     * Writes redirected away from this node hold the read side while they check its state and
     * journal the key; readmission holds the write side while it deletes the last journaled keys
     * and flips the state, so no redirected write slips between the two.
     */
    final ReentrantReadWriteLock redirectLock = new ReentrantReadWriteLock();
    private long probeDelayNanos;
    private long ejectedAtNanos;
    /**
     * Successes recorded on the breaker since its last failure. Once the window (of {@code
     * threshold} calls) holds only successes, more successes change nothing, so they are not
     * recorded: the breaker is then touched only around failures, not on every request.
     */
    volatile int successesSinceFailure = Integer.MAX_VALUE;

    NodeHealth(int index, Node node, CircuitBreakerConfig config) {
      this.index = index;
      this.node = node;
      this.breaker = CircuitBreaker.of("shardwise:" + node.name(), config);
      this.journal = new Journal(options.journalCapacity());
      // No event consumers on the breaker: with one registered, Resilience4j builds an event
      // object for every recorded success. The client ejects on the failure count itself.
    }

    boolean available() {
      return state == NodeState.HEALTHY;
    }
  }

  FleetHealth(Topology topology, Backend backend, FailoverOptions options, List<NodeEventListener> listeners) {
    this.topology = topology;
    this.backend = backend;
    this.options = options;
    this.listeners = List.copyOf(listeners);
    CircuitBreakerConfig config =
        CircuitBreakerConfig.custom()
            // Open after `threshold` failures in a row: a window of that many calls, all failed.
            .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
            .slidingWindowSize(options.failureThreshold())
            .minimumNumberOfCalls(options.failureThreshold())
            .failureRateThreshold(100f)
            // Readmission is by probe only: the circuit never half-opens on a timer.
            .automaticTransitionFromOpenToHalfOpenEnabled(false)
            .waitDurationInOpenState(Duration.ofDays(365))
            .writableStackTraceEnabled(false)
            .build();
    this.nodes = new NodeHealth[topology.nodes.size()];
    for (int i = 0; i < nodes.length; i++) {
      nodes[i] = new NodeHealth(i, topology.nodes.get(i), config);
    }
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "shardwise-health");
              t.setDaemon(true);
              return t;
            });
  }

  FailoverOptions options() {
    return options;
  }

  NodeHealth node(int index) {
    return nodes[index];
  }

  boolean available(int index) {
    return nodes[index].available();
  }

  /**
   * The node a request for a key with this hash and primary goes to under the failure mode: the
   * primary if it is available; with {@link FailureMode#REDISTRIBUTE} the first available node of
   * the key's preference order; else {@link #NONE}.
   */
  int select(long keyHash, int primary) {
    if (nodes[primary].available()) {
      return primary;
    }
    if (options.failureMode() != FailureMode.REDISTRIBUTE) {
      return NONE;
    }
    int[] order = new int[nodes.length];
    int count = topology.router.preferenceOrder(keyHash, order);
    for (int i = 1; i < count; i++) {
      if (nodes[order[i]].available()) {
        return order[i];
      }
    }
    return NONE;
  }

  /** The error for a request that found no node (see {@link #select}). */
  ShardwiseException unavailable(int primary, String key) {
    if (options.failureMode() != FailureMode.REDISTRIBUTE) {
      NodeHealth h = nodes[primary];
      return new NodeUnavailableException(
          h.node,
          "ejected (" + h.state.name().toLowerCase(java.util.Locale.ROOT) + "); failure mode "
              + options.failureMode().id() + " does not send " + KeyRules.shorten(key) + " elsewhere");
    }
    return new NoNodeAvailableException(
        "no node is available for " + KeyRules.shorten(key) + ": all " + nodes.length + " nodes are ejected");
  }

  /** Records the outcome of one request on a node's circuit; returns its latency. */
  long record(int index, long startNanos, Throwable failure) {
    long took = System.nanoTime() - startNanos;
    NodeHealth h = nodes[index];
    if (failure != null && isNodeFailure(failure)) {
      h.lastFailure = failure;
      h.successesSinceFailure = 0;
      h.breaker.onError(took, TimeUnit.NANOSECONDS, failure);
      // The window holds `threshold` calls: all failed means the circuit is opening. Eject now
      // rather than when the breaker's transition event is published, which a descheduled
      // thread can delay while other threads keep sending to the dead node.
      if (h.state == NodeState.HEALTHY
          && h.breaker.getMetrics().getNumberOfFailedCalls() >= options.failureThreshold()) {
        ejected(h);
      }
    } else if (h.successesSinceFailure < options.failureThreshold()) {
      h.successesSinceFailure++;
      h.breaker.onSuccess(took, TimeUnit.NANOSECONDS);
    }
    return took;
  }

  /**
   * Whether {@code failure} (raw, or as wrapped by the routing client) says the node failed rather
   * than the request.
   */
  boolean isNodeFailure(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    if (t instanceof NodeUnavailableException
        || t instanceof NoNodeAvailableException
        || t instanceof io.shardwise.client.NodeSecurityException) {
      // Not sent, or a configuration error (credentials, permissions, TLS): waiting does not fix
      // it, and rerouting would hide it.
      return false;
    }
    if (t instanceof NodeTimeoutException || t instanceof TimeoutException) {
      return true;
    }
    if (t instanceof NodeException && t.getCause() != null) {
      t = t.getCause();
    }
    return backend.isNodeFailure(t);
  }

  // ---- ejection, probing, readmission ---------------------------------------------------------

  private void ejected(NodeHealth h) {
    synchronized (h) {
      if (h.state != NodeState.HEALTHY || closed) {
        return;
      }
      h.state = NodeState.EJECTED;
      h.ejectedAtNanos = System.nanoTime();
      h.probeDelayNanos = options.probeInterval().toNanos();
    }
    Throwable cause = h.lastFailure;
    transition(
        h,
        NodeState.HEALTHY,
        NodeState.EJECTED,
        "ejected after " + options.failureThreshold() + " consecutive failures; last: " + describe(cause),
        cause);
    scheduleProbe(h);
  }

  private void scheduleProbe(NodeHealth h) {
    if (closed) {
      return;
    }
    long delay;
    synchronized (h) {
      delay = h.probeDelayNanos;
      h.probeDelayNanos = Math.min(options.maxProbeInterval().toNanos(), h.probeDelayNanos * 2);
    }
    // Up to 20% jitter so that many clients do not probe a recovering server in step.
    long jittered = delay - ThreadLocalRandom.current().nextLong(delay / 5 + 1);
    try {
      scheduler.schedule(() -> probe(h), jittered, TimeUnit.NANOSECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private void probe(NodeHealth h) {
    if (closed) {
      return;
    }
    if (h.state == NodeState.EJECTED) {
      h.state = NodeState.PROBING;
      transition(h, NodeState.EJECTED, NodeState.PROBING, "probing with backoff up to " + options.maxProbeInterval().toMillis() + " ms", null);
    }
    NodeConnection c = topology.connections[h.index];
    try {
      step(c.ping())
          .thenCompose(rtt -> rejoin(h, c))
          .whenCompleteAsync(
              (detail, failure) -> {
                if (failure != null || !readmit(h, detail)) {
                  LOG.debug("{}: probe or rejoin failed: {}", h.node.name(), describe(failure));
                  scheduleProbe(h);
                }
              },
              scheduler);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** Runs the rejoin policy on a node that answered its probe; completes with what was done. */
  private CompletableFuture<String> rejoin(NodeHealth h, NodeConnection c) {
    switch (options.rejoinPolicy()) {
      case KEEP:
        return CompletableFuture.completedFuture("rejoin policy keep: readmitted with its data");
      case FLUSH:
        if (h.journal.size() == 0 && !h.journal.overflowed()) {
          // Nothing was written elsewhere through this client while it was out: nothing it
          // holds can be older than a write this client made, so emptying it protects nothing.
          return CompletableFuture.completedFuture(
              "rejoin policy flush: no key was written elsewhere while it was out, so its data was kept");
        }
        return flush(h, c, "rejoin policy flush: emptied it");
      case JOURNAL:
        if (h.journal.overflowed()) {
          return flush(h, c, "journal overflowed past " + options.journalCapacity() + " keys: emptied it");
        }
        Map<String, Integer> written = h.journal.snapshot();
        return deleteEverywhere(h, written)
            .thenApply(
                deleted -> {
                  h.journal.remove(written);
                  return "rejoin policy journal: deleted the "
                      + written.size()
                      + " keys written while it was out, on it and on their fallback nodes";
                });
      default:
        throw new AssertionError(options.rejoinPolicy());
    }
  }

  private CompletableFuture<String> flush(NodeHealth h, NodeConnection c, String detail) {
    return step(c.flushAll())
        .thenCompose(
            x -> {
              // The fallback copies are newer than anything the node held, but would be read
              // (stale) if the node were ejected again: remove those the journal knows.
              Map<String, Integer> written = h.journal.overflowed() ? Map.of() : h.journal.snapshot();
              return deleteOn(h.index, fallbacks(written))
                  .thenApply(
                      y -> {
                        if (h.journal.overflowed()) {
                          h.journal.reset(); // the node is empty: nothing it holds can be stale
                        } else {
                          h.journal.remove(written);
                        }
                        return detail;
                      });
            });
  }

  /** Deletes the keys on the node itself and on the node each went to instead. */
  private CompletableFuture<Void> deleteEverywhere(NodeHealth h, Map<String, Integer> written) {
    Map<Integer, List<String>> targets = fallbacks(written);
    targets.computeIfAbsent(h.index, i -> new ArrayList<>()).addAll(written.keySet());
    return deleteOn(h.index, targets);
  }

  private static Map<Integer, List<String>> fallbacks(Map<String, Integer> written) {
    Map<Integer, List<String>> byNode = new LinkedHashMap<>();
    written.forEach((key, node) -> byNode.computeIfAbsent(node, i -> new ArrayList<>()).add(key));
    return byNode;
  }

  /**
   * Deletes keys on nodes: on {@code rejoining} (which answered its probe) and on available
   * nodes; a fallback that is ejected itself now is skipped, its own rejoin handles its data.
   */
  private CompletableFuture<Void> deleteOn(int rejoining, Map<Integer, List<String>> targets) {
    List<CompletableFuture<?>> parts = new ArrayList<>();
    targets.forEach(
        (node, keys) -> {
          if (node == rejoining || nodes[node].available()) {
            for (int i = 0; i < keys.size(); i += DELETE_CHUNK) {
              List<String> chunk = keys.subList(i, Math.min(keys.size(), i + DELETE_CHUNK));
              parts.add(step(topology.connections[node].deleteMulti(new ArrayList<>(chunk))));
            }
          }
        });
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  private <T> CompletableFuture<T> step(CompletableFuture<T> f) {
    return f.orTimeout(options.probeTimeout().toNanos(), TimeUnit.NANOSECONDS);
  }

  /**
   * Readmits a node whose rejoin step succeeded, on the health thread. With the journal policy
   * the keys journaled since the rejoin step are deleted first, under the redirect lock, so the
   * node never serves a value older than one written while it was out.
   *
   * @return false if the last deletes failed (the node stays out and is probed again)
   */
  private boolean readmit(NodeHealth h, String detail) {
    long outNanos;
    h.redirectLock.writeLock().lock();
    try {
      if (closed || h.state == NodeState.HEALTHY) {
        return true;
      }
      if (options.rejoinPolicy() == RejoinPolicy.JOURNAL) {
        Map<String, Integer> late = h.journal.snapshot();
        if (!late.isEmpty()) {
          try {
            deleteEverywhere(h, late).get(options.probeTimeout().toNanos(), TimeUnit.NANOSECONDS);
          } catch (ExecutionException | TimeoutException e) {
            return false;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
          }
          h.journal.remove(late);
        }
      }
      h.breaker.transitionToClosedState();
      h.successesSinceFailure = Integer.MAX_VALUE; // a closed breaker starts with an empty window
      h.epoch++;
      h.state = NodeState.HEALTHY;
      outNanos = System.nanoTime() - h.ejectedAtNanos;
    } finally {
      h.redirectLock.writeLock().unlock();
    }
    transition(
        h,
        NodeState.PROBING,
        NodeState.HEALTHY,
        "readmitted after " + Duration.ofNanos(outNanos).toMillis() + " ms out; " + detail,
        null);
    return true;
  }

  /**
   * Routes a write whose primary is ejected: under the primary's redirect lock, returns the
   * primary itself if it was readmitted meanwhile, else journals the key against {@code
   * fallback} and returns the fallback.
   */
  int redirectWrite(int primary, int fallback, String key) {
    NodeHealth h = nodes[primary];
    h.redirectLock.readLock().lock();
    try {
      if (h.available()) {
        return primary;
      }
      h.journal.record(key, fallback);
      return fallback;
    } finally {
      h.redirectLock.readLock().unlock();
    }
  }

  /**
   * A write that went to {@code fallback} while {@code primary} was ejected finished after the
   * primary was readmitted: remove the key from both so neither serves an old value.
   */
  void forget(int primary, int fallback, String key) {
    deleteOn(primary, Map.of(primary, List.of(key), fallback, List.of(key)));
  }

  private void transition(NodeHealth h, NodeState from, NodeState to, String detail, Throwable cause) {
    String who = h.node.hasExplicitName() ? h.node.name() + " (" + h.node.address() + ")" : h.node.name();
    if (to == NodeState.EJECTED) {
      LOG.warn("node {} {}", who, detail);
    } else {
      LOG.info("node {} {}", who, detail);
    }
    if (listeners.isEmpty()) {
      return;
    }
    NodeEvent event = new NodeEvent(h.node, from, to, Instant.now(), detail, cause);
    try {
      scheduler.execute(
          () -> {
            for (NodeEventListener l : listeners) {
              try {
                l.onEvent(event);
              } catch (RuntimeException e) {
                LOG.warn("node event listener {} failed on {}", l, event, e);
              }
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // closed
    }
  }

  Map<Node, NodeState> states() {
    Map<Node, NodeState> out = new LinkedHashMap<>();
    for (NodeHealth h : nodes) {
      out.put(h.node, h.state);
    }
    return out;
  }

  private static String describe(Throwable t) {
    if (t == null) {
      return "unknown";
    }
    Throwable c = t;
    while ((c instanceof CompletionException || c instanceof ExecutionException) && c.getCause() != null) {
      c = c.getCause();
    }
    String m = c.getMessage();
    return c.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  @Override
  public void close() {
    closed = true;
    scheduler.shutdownNow();
  }
}
