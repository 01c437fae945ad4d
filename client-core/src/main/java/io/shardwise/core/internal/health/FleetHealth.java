package io.shardwise.core.internal.health;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeEventListener;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.core.FailoverOptions;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Health of every node: one Resilience4j {@link CircuitBreaker} per node counts consecutive node
 * failures (timeouts, lost or refused connections; not misses, not error replies, not
 * configuration errors), and an open circuit ejects the node from selection. An ejected node is
 * probed (memcached {@code version}, Redis {@code PING}) with exponential backoff and readmitted
 * only after a probe and its {@link Failback rejoin step} succeed — never on a timer.
 *
 * <p>Ejection is evidence against a server only if the client itself was running: a timeout of a
 * request during which this process stalled (see {@link DeadlineScanner}) is not counted, and
 * timeouts may keep at most {@link FailoverOptions#maxEjectedPercent()} of the fleet out (Envoy's
 * {@code max_ejection_percent}; mcrouter caps "soft" ejections the same way). A refused or lost
 * connection is hard evidence and ejects regardless.
 *
 * <p>Each state change is logged once and delivered to the listeners on the health thread.
 */
public final class FleetHealth implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.health");

  private final Failures failures;
  private final FailoverOptions options;
  private final NodeEvents events;
  private final ClientMetrics metrics;
  private final CircuitBreakerConfig breakerConfig;
  private final ScheduledExecutorService scheduler;
  private final Failback failback;
  /** The most nodes timeouts may keep out, for the current fleet size; changed under {@code this}. */
  private int maxEjected;
  /** Nodes in the current server list; changed under {@code this}. */
  private int fleetSize;
  /** Nodes not healthy; changed under {@code this}. */
  private int out;

  private DeadlineScanner stalls;
  private volatile Supplier<Collection<Member>> members = List::of;
  /** Told, on the thread that changes it, of each member ejected, readmitted or retired: {@link #onMemberChange}. */
  private volatile Consumer<Member> memberChanged = m -> {};
  private volatile boolean closed;

  public FleetHealth(
      Backend backend,
      FailoverOptions options,
      List<NodeEventListener> listeners,
      ClientMetrics metrics) {
    this.failures = new Failures(backend);
    this.options = options;
    this.metrics = metrics;
    this.breakerConfig = NodeHealth.breakerConfig(options.failureThreshold());
    this.scheduler =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "shardwise-health");
              t.setDaemon(true);
              return t;
            });
    this.failback = new Failback(options, metrics, scheduler);
    this.events = new NodeEvents(listeners, scheduler);
    // Old copies are deleted, and deletes that failed retried, about once a second.
    long sweep = Math.max(1_000_000_000L, options.probeInterval().toNanos() * 5);
    scheduler.scheduleWithFixedDelay(() -> failback.sweep(members.get()), sweep, sweep, TimeUnit.NANOSECONDS);
  }

  /**
   * {@code listener} is told of each member ejected (once it is out), readmitted (before it turns
   * healthy, inside its fence) and retired, on the thread that changes it: it must be quick and
   * must not block. The near cache drops what it read before.
   */
  public void onMemberChange(Consumer<Member> listener) {
    memberChanged = listener;
  }

  /** Starts keeping the health of a new member, healthy. */
  public void admit(Member m) {
    m.health = new NodeHealth(m, breakerConfig);
    failback.admit(m);
  }

  /** {@link #admit(Member)} for a server added back, which {@code earlier} was before it left. */
  public void admit(Member m, Member earlier) {
    m.health = new NodeHealth(m, breakerConfig);
    failback.admit(m, earlier);
    int journaled = failback.journaled(m);
    if (journaled > 0) {
      // Written elsewhere while its earlier member was out: the rejoin step runs before it serves.
      startEjected(
          m,
          new IllegalStateException(
              journaled + " of its keys were written elsewhere while it was out; they are deleted on it"
                  + " before it serves"));
    }
  }

  /**
   * A member that joins the fleet but did not answer its first probe: it starts out, and is
   * probed and readmitted as an ejected node is, so that no key is routed to it before it answers.
   */
  public void startEjected(Member m, Throwable cause) {
    NodeHealth h = m.health;
    synchronized (this) {
      if (h.state != NodeState.HEALTHY) {
        return; // out already (added back with a journal)
      }
      out++;
      h.state = NodeState.EJECTED;
    }
    h.breaker.transitionToOpenState();
    h.lastFailure = cause;
    ejected(h, "joins the fleet out: it did not answer when it was added: " + Failures.describe(cause));
  }

  /** The fleet now has {@code size} nodes: the ejection cap follows. */
  public synchronized void resize(int size) {
    fleetSize = size;
    maxEjected = options.maxEjectedNodes(size);
  }

  /** {@code m} left the fleet: it is no longer probed, and no longer counts as out. */
  public void retire(Member m) {
    synchronized (this) {
      if (m.retired) {
        return;
      }
      m.retired = true;
      if (m.health.state != NodeState.HEALTHY) {
        out--;
      }
    }
    memberChanged.accept(m);
  }

  /** The health thread: probes, rejoins, sweeps; for short tasks that must not block. */
  public ScheduledExecutorService healthThread() {
    return scheduler;
  }

  /** Tells this health which members the client may send to now (for the sweep of old copies). */
  public void watchMembers(Supplier<Collection<Member>> current) {
    this.members = current;
  }

  /** Tells this health which scanner sees the client's stalls. */
  public void watchStalls(DeadlineScanner scanner) {
    this.stalls = scanner;
  }

  public FailoverOptions options() {
    return options;
  }

  public Failback failback() {
    return failback;
  }

  // ---- detection -------------------------------------------------------------------------------

  /** Records the outcome of one request on a node's circuit; returns its latency. */
  public long record(Member m, long startNanos, Throwable failure) {
    return record(m, startNanos, System.nanoTime(), failure);
  }

  /** {@link #record(Member, long, Throwable)} of a request that ended at {@code endNanos}. */
  long record(Member m, long startNanos, long endNanos, Throwable failure) {
    long took = endNanos - startNanos;
    NodeHealth h = m.health;
    if (failure != null && failures.isClientQueueFull(failure)) {
      return took; // refused by this client's own queue: the server was not asked
    }
    if (failure != null && failures.isNodeFailure(failure)) {
      boolean timeout = failures.isTimeout(failure);
      // A timeout that came back at once (a connection not made in time) speaks of the time before
      // the request: a stall in the timeout before it is the client's own trouble too.
      if (timeout && stalls != null && stalls.stalledSince(took < stalls.timeoutNanos() / 2 ? startNanos - stalls.timeoutNanos() : startNanos)) {
        // This process stopped running while the request waited: no evidence against the server.
        metrics.ejectionAvoided(h.member.node, "stall");
        return took;
      }
      h.lastFailure = failure;
      h.successesSinceFailure = 0;
      h.breaker.onError(took, TimeUnit.NANOSECONDS, failure);
      // The window holds `threshold` calls: all failed means the circuit is opening. Eject now
      // rather than when the breaker's transition event is published, which a descheduled
      // thread can delay while other threads keep sending to the dead node.
      if (h.state == NodeState.HEALTHY
          && h.breaker.getMetrics().getNumberOfFailedCalls() >= options.failureThreshold()) {
        eject(h, timeout);
      }
    } else if (h.successesSinceFailure < options.failureThreshold()) {
      h.successesSinceFailure++;
      h.breaker.onSuccess(took, TimeUnit.NANOSECONDS);
      if (h.keptIn != null) {
        h.keptIn = null;
        h.detail = "";
        LOG.info("node {} answers again", NodeEvents.who(h));
      }
    }
    return took;
  }

  /** What a failure (raw, or as wrapped by the routing client) says: of the node, a timeout. */
  public Failures failures() {
    return failures;
  }

  // ---- ejection, probing, readmission ---------------------------------------------------------

  private void eject(NodeHealth h, boolean timeout) {
    synchronized (this) {
      if (h.state != NodeState.HEALTHY || closed || h.member.retired) {
        return;
      }
      if (timeout && out >= maxEjected) {
        keepIn(h);
        return;
      }
      out++;
      h.state = NodeState.EJECTED;
      h.keptIn = null;
    }
    ejected(h, "ejected after " + options.failureThreshold() + " consecutive failures; last: " + Failures.describe(h.lastFailure));
  }

  /** {@code h}, now counted out, was ejected for {@code detail}: said, and probed from now on. */
  private void ejected(NodeHealth h, String detail) {
    memberChanged.accept(h.member);
    h.ejectedAtNanos = System.nanoTime();
    h.since = Instant.now();
    synchronized (h) {
      h.probeDelayNanos = options.probeInterval().toNanos();
    }
    h.detail = detail;
    events.transition(h, NodeState.HEALTHY, NodeState.EJECTED, detail, h.lastFailure);
    scheduleProbe(h);
  }

  /** Timeouts may not keep more nodes out: {@code h} stays in, and says why once. */
  private void keepIn(NodeHealth h) {
    metrics.ejectionAvoided(h.member.node, "cap");
    if (h.keptIn != null) {
      return;
    }
    String reason =
        "times out (" + options.failureThreshold() + " in a row; last: " + Failures.describe(h.lastFailure)
            + ") but is not ejected: " + out + " of " + fleetSize + " nodes are out, the most that"
            + " timeouts may keep out (max-ejected-percent " + options.maxEjectedPercent() + "); many"
            + " nodes timing out at once points at this client (a pause, a starved CPU)";
    h.keptIn = reason;
    h.detail = reason;
    LOG.warn("node {} {}", NodeEvents.who(h), reason);
  }

  private void scheduleProbe(NodeHealth h) {
    if (closed || h.member.retired) {
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
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private void probe(NodeHealth h) {
    if (closed || h.member.retired) {
      return;
    }
    if (h.state == NodeState.EJECTED) {
      h.state = NodeState.PROBING;
      h.since = Instant.now();
      events.transition(
          h,
          NodeState.EJECTED,
          NodeState.PROBING,
          "probing with backoff up to " + options.maxProbeInterval().toMillis() + " ms",
          null);
    }
    try {
      h.member.connection
          .ping()
          .orTimeout(options.probeTimeout().toNanos(), TimeUnit.NANOSECONDS)
          .whenCompleteAsync(
              (rtt, failure) -> {
                if (failure != null) {
                  h.detail = "probing: the last probe failed: " + Failures.describe(failure);
                  LOG.debug("{}: probe failed: {}", h.member.node.name(), Failures.describe(failure));
                  scheduleProbe(h);
                } else {
                  rejoin(h);
                }
              },
              scheduler);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /** The node answered its probe: the rejoin step, then readmission (or another probe). */
  private void rejoin(NodeHealth h) {
    failback
        .rejoin(h.member, () -> readmitted(h))
        .whenCompleteAsync(
            (detail, failure) -> {
              if (failure == null) {
                h.lastRejoinFailure = null;
                String out = Duration.ofNanos(System.nanoTime() - h.ejectedAtNanos).toMillis() + " ms out";
                events.transition(h, NodeState.PROBING, NodeState.HEALTHY, "readmitted after " + out + "; " + detail, null);
                return;
              }
              rejoinFailed(h, failure);
              scheduleProbe(h);
            },
            scheduler);
  }

  /** Flips a node to healthy; called by the rejoin step inside the node's fence. */
  private void readmitted(NodeHealth h) {
    memberChanged.accept(h.member); // before it serves again
    h.breaker.transitionToClosedState();
    h.successesSinceFailure = Integer.MAX_VALUE; // a closed breaker starts with an empty window
    synchronized (this) {
      if (!h.member.retired) {
        out--;
      }
      h.state = NodeState.HEALTHY;
    }
    memberChanged.accept(h.member); // and after: a read routed before the flip may end after the first
    h.since = Instant.now();
    h.detail = "";
  }

  /**
   * The node answered its probe but its rejoin step failed: it stays out. A server that refuses
   * the step (no permission for DEL or FLUSHDB, say) keeps refusing: that is logged at WARN once
   * per distinct reason, and shown in the node's status and metrics.
   */
  private void rejoinFailed(NodeHealth h, Throwable failure) {
    String reason = Failures.describe(failure);
    h.detail = "answers, but stays out: its rejoin step (policy " + options.rejoinPolicy().id() + ") failed: " + reason;
    metrics.rejoinFailed(h.member.node, Failures.unwrap(failure));
    if (!reason.equals(h.lastRejoinFailure)) {
      h.lastRejoinFailure = reason;
      LOG.warn("node {} {}", NodeEvents.who(h), h.detail);
    }
  }

  /** The status of each of {@code members}, by node, in order. */
  public Map<Node, NodeStatus> status(Member[] members) {
    Map<Node, NodeStatus> result = new LinkedHashMap<>();
    for (Member m : members) {
      NodeHealth h = m.health;
      result.put(m.node, new NodeStatus(m.node, h.state, h.since, h.detail, failback.journaled(m)));
    }
    return result;
  }

  @Override
  public void close() {
    closed = true;
    scheduler.shutdownNow();
  }
}
