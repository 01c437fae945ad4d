package io.shardwise.core.internal.change;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.TopologyChange;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.internal.health.Failures;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.ServerListChecks;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.route.Transition;
import io.shardwise.core.internal.spill.BoundedReads;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.Backend;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Placement changes at runtime, of the server list, the router or the hash tag, on one code path:
 * builds the next {@link Topology} ({@link NextTopology}), opens the connections of the added
 * servers before any request can reach them ({@link AddedServers}), installs the topology in one
 * write, and closes the servers no topology in use refers to any more ({@link ReplacedTopologies}).
 *
 * <p>Closing safely. A request reads the current topology and counts itself on it ({@code
 * Topology.active}) until its future completes, re-reading the reference after counting; so once
 * a topology has been replaced and its count is 0, no request uses it or will. A server is closed
 * when neither the current topology (nor a previous one its {@link Transition history} still reads
 * and writes moved keys on) nor any replaced topology still counted refers to it.
 *
 * <p>History. Each change that moves keys is added to the new topology's {@link Topology#history},
 * and stays there after its warm-up (remembered: writes of its moved keys mark their previous
 * owners) until every value written under the placement it left has expired: the longest TTL this
 * client has written ({@link LongestTtl}) after that placement's last writes. A client that writes
 * values without expiry remembers its last {@link ChangeHistory#MAX_HISTORY} placements. A change
 * reversed stays in the history (while the reversal settles, the keys moving back are also read on
 * the servers that held them before), and a server added back gets the old-copy marks its earlier
 * member gathered.
 *
 * <p>Changes are applied one at a time on one thread of their own (started with the first
 * change); a change that comes while the last one is still settling waits for that phase to end.
 */
public final class Topologies implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");
  private static final long DRAIN_POLL_MILLIS = 20;

  /** What the next topologies are built with, besides their placement. */
  public record Settings(
      Placement placement,
      Duration requestTimeout,
      LongSupplier nanoClock,
      TopologyOptions options,
      LongestTtl ttls) {}

  private final Settings settings;
  private final Backend backend;
  private final FleetHealth health;
  private final ClientMetrics metrics;
  private final Supplier<Topology> current;
  private final Consumer<Topology> install;
  private final AddedServers servers;
  /** The placement of the current topology. Changed on the topology thread only. */
  private volatile Placement inForce;
  /** Every open member, by {@link Member#identity}. Changed on the topology thread only. */
  private final Map<String, Member> open = new LinkedHashMap<>();
  /** Topologies replaced but possibly still in use. */
  private final ReplacedTopologies replaced;
  private ScheduledExecutorService thread;
  private CompletableFuture<?> last = CompletableFuture.completedFuture(null);
  private volatile TopologyChange lastChange;
  private volatile boolean closed;

  public Topologies(
      Settings settings,
      Backend backend,
      FleetHealth health,
      ClientMetrics metrics,
      Supplier<Topology> current,
      Consumer<Topology> install) {
    this.settings = settings;
    this.backend = backend;
    this.health = health;
    this.metrics = metrics;
    this.current = current;
    this.install = install;
    this.servers = new AddedServers(backend, health, settings.requestTimeout(), settings.options().connectWait());
    this.inForce = settings.placement();
    this.replaced = new ReplacedTopologies(settings.requestTimeout());
    for (Member m : current.get().members) {
      open.put(Member.identity(m.node), m);
    }
  }

  public TopologyChange lastChange() {
    return lastChange;
  }

  /** The placement in force: the router and hash tag of the current topology. */
  public Placement placement() {
    return inForce;
  }

  /**
   * Queues a change to {@code placement} over {@code servers} (either may be the one in force);
   * see {@link io.shardwise.client.AsyncCacheClient#updateServers} and {@code updatePlacement}. The
   * router is built at once: a list or placement it cannot take fails the returned future and
   * nothing changes.
   */
  public synchronized CompletableFuture<TopologyChange> update(Placement placement, List<Node> servers) {
    List<Node> list;
    Router router;
    try {
      Objects.requireNonNull(servers, "servers");
      list = ServerList.validate(servers);
      ServerListChecks.checkDistinctServers(list);
      router = buildRouter(placement, list);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(refused(servers, e));
    }
    Set<String> known = ChangeHistory.identities(current.get().nodes);
    List<String> unresolved =
        backend.resolvesHosts()
            ? ServerListChecks.unresolvedHosts(list.stream().filter(n -> !known.contains(Member.identity(n))).toList())
            : List.of();
    if (!unresolved.isEmpty()) {
      // Not an IllegalArgumentException: the list is not wrong, and a watched source offers it again.
      return CompletableFuture.failedFuture(
          new IllegalStateException(
              "new server list " + servers + " not applied for now, the current list stays in force: "
                  + String.join(", ", unresolved) + (unresolved.size() == 1 ? " does" : " do")
                  + " not resolve to an address (a source offers it again at its next read)"));
    }
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("the client is closed"));
    }
    if (thread == null) {
      thread =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                Thread t = new Thread(r, "shardwise-topology");
                t.setDaemon(true);
                return t;
              });
    }
    CompletableFuture<TopologyChange> result = new CompletableFuture<>();
    last = last.handle((x, y) -> null).thenComposeAsync(x -> whenSettled(), thread)
        .thenComposeAsync(x -> prepare(placement, list, router), thread)
        .handleAsync(
            (prepared, failure) -> {
              replaced.preparing(new Member[0]);
              if (failure != null) {
                result.completeExceptionally(Failures.unwrap(failure));
              } else {
                try {
                  result.complete(apply(prepared));
                } catch (RuntimeException e) {
                  result.completeExceptionally(e);
                }
              }
              return null;
            },
            thread);
    return result;
  }

  private static Router buildRouter(Placement placement, List<Node> list) {
    Router r;
    try {
      r = placement.routers().apply(list);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("the router cannot be built for this list: " + e.getMessage(), e);
    }
    if (r.size() != list.size()) {
      throw new IllegalArgumentException("the router placed " + r.size() + " of " + list.size() + " servers");
    }
    return r;
  }

  private static IllegalArgumentException refused(List<Node> servers, RuntimeException e) {
    return new IllegalArgumentException(
        "new server list " + servers + " refused, the current list stays in force: " + e.getMessage(), e);
  }

  /** Completes when the current topology's moved keys have left their settling phase. */
  private CompletableFuture<Void> whenSettled() {
    Transition latest = current.get().latest();
    if (latest == null || latest.phase(System.nanoTime()) != Transition.Phase.SETTLING) {
      return CompletableFuture.completedFuture(null);
    }
    long wait = latest.settleUntilNanos() - System.nanoTime();
    CompletableFuture<Void> done = new CompletableFuture<>();
    thread.schedule(() -> done.complete(null), Math.max(0, wait), TimeUnit.NANOSECONDS);
    return done;
  }

  /** Opens connections to the added servers and waits for their first attempt; on the topology thread. */
  private CompletableFuture<AddedServers.Prepared> prepare(Placement placement, List<Node> list, Router router) {
    AddedServers.Prepared p;
    try {
      p = servers.connect(placement, list, router, current.get(), open);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(refused(list, e));
    }
    replaced.preparing(p.members());
    return servers.admit(p);
  }

  /** Installs the next topology; on the topology thread. */
  private TopologyChange apply(AddedServers.Prepared p) {
    if (closed) {
      p.added().forEach(m -> m.connection.close());
      throw new IllegalStateException("the client is closed");
    }
    Topology before = current.get();
    for (Member m : p.added()) {
      open.put(Member.identity(m.node), m);
    }
    BoundedOptions boundedBefore = inForce.bounded();
    BoundedOptions boundedAfter = p.placement().bounded();
    if (boundedAfter.enabled()) {
      settings.ttls().record(boundedAfter.spillTtl()); // before a copy is made with it
    }
    NextTopology.Result next = NextTopology.of(before, inForce, p, settings, health.failback());
    TopologyChange change = next.change();
    health.resize(p.members().length);
    install.accept(next.topology());
    inForce = p.placement();
    replaced.add(before);
    lastChange = change;
    TopologyOptions options = settings.options();
    LOG.info(
        "{} changed: {}{}",
        change.placementChanged() ? "placement" : "servers",
        change,
        change.warmUp().isZero()
            ? ""
            : "; moved keys settle for " + options.settle().toMillis() + " ms, then warm up for "
                + (options.warmUp().toMillis() < 10_000
                    ? options.warmUp().toMillis() + " ms"
                    : options.warmUp().toSeconds() + " s"));
    if (!boundedAfter.equals(boundedBefore)) {
      LOG.info("bounded loads changed: {} -> {}", boundedBefore, boundedAfter);
    }
    metrics.topologyChanged(change);
    BoundedReads bounded = next.topology().bounded;
    if (bounded != null && !bounded.spills() && before.bounded != null && before.bounded.spills()) {
      scheduleCopyRegistryCheck(boundedBefore.spillTtl());
    }
    Transition latest = next.topology().latest();
    if (next.moves() && latest != null) {
      later(this::review, latest.warmUntilNanos() - System.nanoTime());
    }
    scheduleDrain();
    return change;
  }

  /**
   * Runs when a change's warm-up ends, and when a remembered change may be forgotten: a change
   * whose warm-up has ended is given the time it is forgotten (its settle end plus the longest
   * TTL written so far: no value written under its placement lives longer), forgotten changes
   * leave the current topology, and the servers no longer needed are closed.
   */
  private void review() {
    if (closed) {
      return;
    }
    Topology t = current.get();
    long next = ChangeHistory.forgetTimes(t.history, System.nanoTime(), settings.ttls().longestNanos());
    if (next == 0) {
      Topology without =
          t.withHistory(ChangeHistory.kept(List.of(t.history), Map.of()).toArray(new Transition[0]));
      install.accept(without);
      replaced.add(t);
      LOG.info(
          "servers changed: {} earlier placements forgotten, every value written under them has expired",
          t.history.length - without.history.length);
    }
    next = ChangeHistory.forgetTimes(current.get().history, System.nanoTime(), settings.ttls().longestNanos());
    if (next != Long.MAX_VALUE) {
      later(this::review, next);
    }
    scheduleDrain();
  }

  /**
   * Checks, {@code after} from now and then as often until it can, whether the copy registry that
   * bounded loads turned off left in force may go: once no replaced topology is in use (one that
   * still spills could register a copy) and every registered copy has expired, with a request
   * timeout more for a copy that reached its server late. The topology then goes back to no
   * bounded-load state at all (the requests' common path).
   */
  private void scheduleCopyRegistryCheck(Duration after) {
    long delayNanos = after.plus(settings.requestTimeout()).toNanos();
    later(() -> checkCopyRegistry(delayNanos), delayNanos);
  }

  private void checkCopyRegistry(long delayNanos) {
    if (closed) {
      return;
    }
    Topology t = current.get();
    if (t.bounded == null || t.bounded.spills()) {
      return; // dropped already, or on again: the registry goes on with it
    }
    if (!replaced.isEmpty() || !t.bounded.copiesExpired(settings.requestTimeout().toNanos())) {
      later(() -> checkCopyRegistry(delayNanos), delayNanos);
      return;
    }
    install.accept(new Topology(t.router, t.hashTag, t.members, null, t.replicas).withHistory(t.history));
    replaced.add(t);
    LOG.info("bounded loads off: every copy spilled reads made before has expired, writes no longer look for them");
    scheduleDrain();
  }

  private void scheduleDrain() {
    later(this::drain, TimeUnit.MILLISECONDS.toNanos(DRAIN_POLL_MILLIS));
  }

  /** Runs {@code task} on the topology thread {@code nanos} from now, unless the client is closed. */
  private void later(Runnable task, long nanos) {
    try {
      thread.schedule(task, Math.max(0, nanos), TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** Closes the members no topology in use refers to; polls until every replaced one is forgotten. */
  private void drain() {
    if (closed) {
      return;
    }
    for (Member m : replaced.unused(current.get(), open.values())) {
      open.remove(Member.identity(m.node));
      health.retire(m);
      try {
        m.connection.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the connection to removed server {} failed", m.node.name(), e);
      }
      LOG.info("server {} left the fleet: its connection is closed", m.node.name());
    }
    if (!replaced.isEmpty()) {
      scheduleDrain();
    }
  }

  /** Closes every member's connection and the topology thread. */
  @Override
  public synchronized void close() {
    closed = true;
    if (thread != null) {
      thread.shutdownNow();
      try {
        thread.awaitTermination(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    RuntimeException first = null;
    Set<Member> all = new java.util.LinkedHashSet<>(open.values());
    for (Member m : current.get().members) {
      all.add(m);
    }
    for (Member m : all) {
      m.retired = true;
      try {
        m.connection.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "Topologies[%d open]", open.size());
  }
}
