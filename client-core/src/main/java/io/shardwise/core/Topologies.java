package io.shardwise.core;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.TopologyChange;
import io.shardwise.core.config.ServerListChecks;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
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
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server-list changes at runtime: builds the next {@link Topology}, opens the connections of the
 * added servers before any request can reach them, installs the topology in one write, and closes
 * the servers no topology in use refers to any more.
 *
 * <p>Closing safely. A request reads the current topology and counts itself on it ({@code
 * Topology.active}) until its future completes, re-reading the reference after counting; so once
 * a topology has been replaced and its count is 0, no request uses it or will. A server is closed
 * when neither the current topology (nor the previous one its {@link Transition} still reads and
 * writes moved keys on) nor any replaced topology still counted refers to it.
 *
 * <p>Changes are applied one at a time on one thread of their own (started with the first
 * change); a change that comes while the last one is still settling waits for that phase to end.
 */
final class Topologies implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");
  /** Keys sampled to measure the share that a change moves. */
  private static final int SAMPLE = 10_000;
  private static final long DRAIN_POLL_MILLIS = 20;

  /** What a topology is built from, besides its servers. */
  record Settings(
      Function<List<Node>, Router> routers,
      HashTag hashTag,
      Duration requestTimeout,
      BoundedOptions bounded,
      LongSupplier nanoClock,
      TopologyOptions options) {}

  private final Settings settings;
  private final Backend backend;
  private final FleetHealth health;
  private final ClientMetrics metrics;
  private final Supplier<Topology> current;
  private final Consumer<Topology> install;
  /** Every open member, by {@link Member#identity}. Changed on the topology thread only. */
  private final Map<Node, Member> open = new LinkedHashMap<>();
  /** Topologies replaced but possibly still in use. Changed on the topology thread only. */
  private final List<Topology> replaced = new ArrayList<>();
  /**
   * The members of the change being prepared (its new connections are being opened): a drain
   * that runs meanwhile must not close one it kept from the list in force. Topology thread only.
   */
  private Member[] preparing = new Member[0];
  private ScheduledExecutorService thread;
  private CompletableFuture<?> last = CompletableFuture.completedFuture(null);
  private volatile TopologyChange lastChange;
  private volatile boolean closed;

  Topologies(
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
    for (Member m : current.get().members) {
      open.put(Member.identity(m.node), m);
    }
  }

  /** The first topology of a client: one member per server, connected and admitted. */
  static Topology initial(Router router, HashTag hashTag, Member[] members, BoundedOptions bounded, LongSupplier clock) {
    BoundedReads reads =
        bounded.enabled() ? new BoundedReads(router, bounded, clock, i -> members[i].available()) : null;
    return new Topology(router, hashTag, members, reads, null);
  }

  TopologyChange lastChange() {
    return lastChange;
  }

  /** Queues a change to {@code servers}; see {@link io.shardwise.client.AsyncCacheClient#updateServers}. */
  synchronized CompletableFuture<TopologyChange> update(List<Node> servers) {
    List<Node> list;
    Router router;
    try {
      Objects.requireNonNull(servers, "servers");
      list = ServerList.validate(servers);
      ServerListChecks.checkDistinctServers(list);
      router = buildRouter(list);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(refused(servers, e));
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
        .thenComposeAsync(x -> prepare(list, router), thread)
        .handleAsync(
            (prepared, failure) -> {
              preparing = new Member[0];
              if (failure != null) {
                result.completeExceptionally(unwrap(failure));
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

  private Router buildRouter(List<Node> list) {
    Router r;
    try {
      r = settings.routers().apply(list);
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

  private static Throwable unwrap(Throwable t) {
    while (t instanceof java.util.concurrent.CompletionException && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Completes when the current topology's moved keys have left their settling phase. */
  private CompletableFuture<Void> whenSettled() {
    Topology t = current.get();
    if (t.transition == null || t.transition.phase(System.nanoTime()) != Transition.Phase.SETTLING) {
      return CompletableFuture.completedFuture(null);
    }
    long wait = t.transition.settleUntilNanos() - System.nanoTime();
    CompletableFuture<Void> done = new CompletableFuture<>();
    thread.schedule(() -> done.complete(null), Math.max(0, wait), TimeUnit.NANOSECONDS);
    return done;
  }

  /** A change with its members: the ones kept, and the new ones, connected. */
  private record Prepared(List<Node> list, Router router, Member[] members, List<Member> added) {}

  /** Opens connections to the added servers and waits for their first attempt; on the topology thread. */
  private CompletableFuture<Prepared> prepare(List<Node> list, Router router) {
    List<Node> placed = router.nodes();
    Member[] members = new Member[placed.size()];
    List<Member> added = new ArrayList<>();
    try {
      for (int i = 0; i < members.length; i++) {
        Node node = placed.get(i);
        Member m = open.get(Member.identity(node));
        if (m == null) {
          NodeConnection c = backend.connect(node, settings.requestTimeout());
          m = new Member(node, c);
          added.add(m);
        }
        members[i] = m;
      }
    } catch (RuntimeException e) {
      added.forEach(m -> m.connection.close());
      return CompletableFuture.failedFuture(refused(list, e));
    }
    preparing = members;
    List<CompletableFuture<?>> ready = new ArrayList<>();
    for (Member m : added) {
      ready.add(m.connection.ready().handle((x, y) -> null));
    }
    long wait = settings.options().connectWait().toNanos();
    return CompletableFuture.allOf(ready.toArray(new CompletableFuture<?>[0]))
        .completeOnTimeout(null, wait, TimeUnit.NANOSECONDS)
        .thenCompose(x -> probe(added, wait))
        .thenApply(x -> new Prepared(list, router, members, added));
  }

  /** Admits each added member, healthy if it answers a ping, else out and probed. */
  private CompletableFuture<Void> probe(List<Member> added, long waitNanos) {
    List<CompletableFuture<Void>> pings = new ArrayList<>();
    for (Member m : added) {
      health.admit(m);
      pings.add(
          m.connection
              .ping()
              .orTimeout(Math.max(waitNanos, settings.requestTimeout().toNanos()), TimeUnit.NANOSECONDS)
              .handle(
                  (rtt, failure) -> {
                    if (failure != null) {
                      health.startEjected(m, unwrap(failure));
                    }
                    return null;
                  }));
    }
    return CompletableFuture.allOf(pings.toArray(new CompletableFuture<?>[0]));
  }

  /** Installs the next topology; on the topology thread. */
  private TopologyChange apply(Prepared p) {
    if (closed) {
      p.added().forEach(m -> m.connection.close());
      throw new IllegalStateException("the client is closed");
    }
    Topology before = current.get();
    for (int i = 0; i < p.members().length; i++) {
      p.members()[i].node = p.router().nodes().get(i); // a reweight keeps the member
    }
    for (Member m : p.added()) {
      open.put(Member.identity(m.node), m);
    }
    Member[] members = p.members();
    BoundedReads bounded = null;
    if (before.bounded != null) {
      int[] previous = new int[members.length];
      for (int i = 0; i < members.length; i++) {
        previous[i] = indexOf(before.members, members[i]);
      }
      bounded = before.bounded.remapped(p.router(), previous, i -> members[i].available());
    } else if (settings.bounded().enabled()) {
      bounded = new BoundedReads(p.router(), settings.bounded(), settings.nanoClock(), i -> members[i].available());
    }
    Topology settledBefore = before.transition == null ? before : before.settled();
    Topology plain = new Topology(p.router(), settings.hashTag(), members, bounded, null);
    double moved = movedShare(settledBefore, plain);
    TopologyOptions options = settings.options();
    Duration window = options.settle().plus(options.warmUp());
    boolean moving = moved > 0 && !window.isZero();
    Set<Node> beforeSet = new HashSet<>(before.nodes);
    Set<Node> afterSet = new HashSet<>(p.list());
    List<Node> addedNodes = p.list().stream().filter(n -> !beforeSet.contains(n)).toList();
    List<Node> removedNodes = before.nodes.stream().filter(n -> !afterSet.contains(n)).toList();
    TopologyChange change =
        new TopologyChange(
            before.nodes, plain.nodes, addedNodes, removedNodes, moved, Instant.now(), moving ? window : Duration.ZERO);
    long start = System.nanoTime();
    Topology next =
        moving
            ? new Topology(p.router(), settings.hashTag(), members, bounded, new Transition(settledBefore, change, start, options))
            : plain;
    health.resize(members.length);
    install.accept(next);
    before.replacedAtNanos = System.nanoTime();
    replaced.add(before);
    lastChange = change;
    LOG.info(
        "servers changed: {}{}",
        change,
        moving
            ? "; moved keys settle for " + options.settle().toMillis() + " ms, then warm up for "
                + options.warmUp().toSeconds() + " s"
            : "");
    metrics.topologyChanged(change);
    if (moving) {
      long end = next.transition.warmUntilNanos() - start;
      thread.schedule(() -> endTransition(next), Math.max(0, end), TimeUnit.NANOSECONDS);
    }
    scheduleDrain();
    return change;
  }

  private static int indexOf(Member[] members, Member m) {
    for (int i = 0; i < members.length; i++) {
      if (members[i] == m) {
        return i;
      }
    }
    return -1;
  }

  /** The share of a fixed sample of keys whose server differs between {@code a} and {@code b}. */
  private static double movedShare(Topology a, Topology b) {
    int moved = 0;
    for (int i = 0; i < SAMPLE; i++) {
      String key = "shardwise:sample:" + i;
      if (a.members[a.primary(key)] != b.members[b.primary(key)]) {
        moved++;
      }
    }
    return moved / (double) SAMPLE;
  }

  /** The moved keys of {@code t} have been taken over: routing by its list alone from now. */
  private void endTransition(Topology t) {
    if (closed || current.get() != t) {
      return; // a later change replaced it
    }
    install.accept(t.settled());
    t.replacedAtNanos = System.nanoTime();
    replaced.add(t);
    LOG.info("servers changed: the keys moved by the change to {} nodes are taken over", t.nodes.size());
    scheduleDrain();
  }

  private void scheduleDrain() {
    try {
      thread.schedule(this::drain, DRAIN_POLL_MILLIS, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /**
   * Forgets replaced topologies nothing uses any more, then closes the members that no topology
   * still in use refers to. Polls until every replaced topology is forgotten.
   */
  private void drain() {
    if (closed) {
      return;
    }
    Topology now = current.get();
    long stuck = System.nanoTime() - stuckAfterNanos();
    replaced.removeIf(t -> t != now && (t.active.sum() == 0 || forget(t, stuck)));
    Set<Member> used = new HashSet<>(List.of(preparing));
    now.collectMembers(used);
    replaced.forEach(t -> t.collectMembers(used));
    List<Member> unused = new ArrayList<>();
    for (Member m : open.values()) {
      if (!used.contains(m)) {
        unused.add(m);
      }
    }
    for (Member m : unused) {
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

  /**
   * How long a replaced topology may stay in use: every request completes within its timeout, so
   * one still counted much later is a leak of this client, not a slow request.
   */
  private long stuckAfterNanos() {
    return Math.max(Duration.ofMinutes(1).toNanos(), 10 * settings.requestTimeout().toNanos());
  }

  /** Whether to stop waiting for {@code t}, replaced before {@code stuck} and still counted in use. */
  private boolean forget(Topology t, long stuck) {
    if (t.replacedAtNanos - stuck > 0) {
      return false;
    }
    LOG.warn(
        "a replaced server list ({} servers) is still counted in use {} s after it was replaced; its"
            + " servers are closed anyway (requests still on them fail)",
        t.nodes.size(),
        Duration.ofNanos(System.nanoTime() - t.replacedAtNanos).toSeconds());
    return true;
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
