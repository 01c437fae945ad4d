package io.shardwise.core.internal.change;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.TopologyChange;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.ServerListChecks;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.route.Transition;
import io.shardwise.core.internal.spill.BoundedReads;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
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
 * when neither the current topology (nor a previous one its {@link Transition history} still reads
 * and writes moved keys on) nor any replaced topology still counted refers to it.
 *
 * <p>History. Each change that moves keys is added to the new topology's {@link Topology#history},
 * and stays there after its warm-up (remembered: writes of its moved keys mark their previous
 * owners) until every value written under the placement it left has expired: the longest TTL this
 * client has written ({@link LongestTtl}) after that placement's last writes. A client that writes
 * values without expiry remembers its last {@link ChangeHistory#MAX_HISTORY} placements. A placement that comes
 * back (a change reversed) leaves the history, and a server added back gets the old-copy marks its
 * earlier member gathered.
 *
 * <p>Changes are applied one at a time on one thread of their own (started with the first
 * change); a change that comes while the last one is still settling waits for that phase to end.
 */
public final class Topologies implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");
  private static final long DRAIN_POLL_MILLIS = 20;

  /** What a topology is built from, besides its servers. */
  public record Settings(
      Function<List<Node>, Router> routers,
      HashTag hashTag,
      Duration requestTimeout,
      BoundedOptions bounded,
      LongSupplier nanoClock,
      TopologyOptions options,
      LongestTtl ttls) {}

  private final Settings settings;
  private final Backend backend;
  private final FleetHealth health;
  private final ClientMetrics metrics;
  private final Supplier<Topology> current;
  private final Consumer<Topology> install;
  /** Every open member, by {@link Member#identity}. Changed on the topology thread only. */
  private final Map<String, Member> open = new LinkedHashMap<>();
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
    for (Member m : current.get().members) {
      open.put(Member.identity(m.node), m);
    }
  }

  /** The first topology of a client: one member per server, connected and admitted. */
  public static Topology initial(Router router, HashTag hashTag, Member[] members, BoundedOptions bounded, LongSupplier clock) {
    BoundedReads reads =
        bounded.enabled() ? new BoundedReads(router, bounded, clock, i -> members[i].available()) : null;
    return new Topology(router, hashTag, members, reads);
  }

  public TopologyChange lastChange() {
    return lastChange;
  }

  /** Queues a change to {@code servers}; see {@link io.shardwise.client.AsyncCacheClient#updateServers}. */
  public synchronized CompletableFuture<TopologyChange> update(List<Node> servers) {
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
    Transition latest = current.get().latest();
    if (latest == null || latest.phase(System.nanoTime()) != Transition.Phase.SETTLING) {
      return CompletableFuture.completedFuture(null);
    }
    long wait = latest.settleUntilNanos() - System.nanoTime();
    CompletableFuture<Void> done = new CompletableFuture<>();
    thread.schedule(() -> done.complete(null), Math.max(0, wait), TimeUnit.NANOSECONDS);
    return done;
  }

  /**
   * A change with its members: the ones kept, and the new ones, connected; for a server added back,
   * {@code earlier} maps the new member to the member it had before (kept by the history).
  /**
   * A change with its members: the ones kept, and the new ones, connected; {@code earlier} maps a
   * server added back to the member it had before, which the history still remembers.
   */
  private record Prepared(
      List<Node> list, Router router, Member[] members, List<Member> added, Map<Member, Member> earlier) {}

  /** Opens connections to the added servers and waits for their first attempt; on the topology thread. */
  private CompletableFuture<Prepared> prepare(List<Node> list, Router router) {
    List<Node> placed = router.nodes();
    Member[] members = new Member[placed.size()];
    List<Member> added = new ArrayList<>();
    Map<Member, Member> earlier = new HashMap<>();
    Map<String, Member> remembered = ChangeHistory.remembered(current.get(), open);
    try {
      for (int i = 0; i < members.length; i++) {
        Node node = placed.get(i);
        Member m = open.get(Member.identity(node));
        if (m == null) {
          NodeConnection c = backend.connect(node, settings.requestTimeout());
          m = new Member(node, c);
          added.add(m);
          Member before = remembered.get(Member.identity(node));
          if (before != null) {
            earlier.put(m, before);
          }
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
        .thenCompose(x -> probe(added, earlier, wait))
        .thenApply(x -> new Prepared(list, router, members, added, earlier));
  }

  /** Admits each added member, healthy if it answers a ping, else out and probed. */
  private CompletableFuture<Void> probe(List<Member> added, Map<Member, Member> earlier, long waitNanos) {
    List<CompletableFuture<Void>> pings = new ArrayList<>();
    for (Member m : added) {
      Member before = earlier.get(m);
      if (before == null) {
        health.admit(m);
      } else {
        health.admit(m, before);
        if (before.oldCopies().hasOverflowed()) {
          LOG.warn(
              "server {} is added back: more keys it held were written elsewhere since it left than"
                  + " this client could remember ({}, journal-capacity); it may serve values older than"
                  + " those for the others: flush it, or restart it empty, before adding it back",
              m.node.name(),
              health.options().journalCapacity());
        }
      }
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
      p.members()[i].node = p.router().nodes().get(i); // a reweight or a new name keeps the member
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
    Topology placementBefore = before.placement();
    Topology plain = new Topology(p.router(), settings.hashTag(), members, bounded);
    double moved = ChangeHistory.movedShare(placementBefore, plain);
    TopologyOptions options = settings.options();
    Duration window = options.settle().plus(options.warmUp());
    boolean moving = moved > 0 && !window.isZero();
    Set<String> beforeSet = ChangeHistory.identities(before.nodes);
    Set<String> afterSet = ChangeHistory.identities(p.list());
    List<Node> addedNodes = p.list().stream().filter(n -> !beforeSet.contains(Member.identity(n))).toList();
    List<Node> removedNodes = before.nodes.stream().filter(n -> !afterSet.contains(Member.identity(n))).toList();
    TopologyChange change =
        new TopologyChange(
            before.nodes, plain.nodes, addedNodes, removedNodes, moved, Instant.now(), moving ? window : Duration.ZERO);
    long start = System.nanoTime();
    List<Transition> history = new ArrayList<>();
    if (moved > 0) {
      history.add(new Transition(placementBefore, change, start, options));
    }
    history.addAll(List.of(before.history));
    Topology next = plain.withHistory(ChangeHistory.kept(history, plain, p.earlier()).toArray(new Transition[0]));
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
                + (options.warmUp().toMillis() < 10_000
                    ? options.warmUp().toMillis() + " ms"
                    : options.warmUp().toSeconds() + " s")
            : "");
    metrics.topologyChanged(change);
    if (moved > 0) {
      long end = next.latest().warmUntilNanos() - start;
      thread.schedule(this::review, Math.max(0, end), TimeUnit.NANOSECONDS);
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
          t.withHistory(ChangeHistory.kept(List.of(t.history), t.placement(), Map.of()).toArray(new Transition[0]));
      install.accept(without);
      t.replacedAtNanos = System.nanoTime();
      replaced.add(t);
      LOG.info(
          "servers changed: {} earlier placements forgotten, every value written under them has expired",
          t.history.length - without.history.length);
    }
    next = ChangeHistory.forgetTimes(current.get().history, System.nanoTime(), settings.ttls().longestNanos());
    if (next != Long.MAX_VALUE) {
      thread.schedule(this::review, next, TimeUnit.NANOSECONDS);
    }
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
    long nowNanos = System.nanoTime();
    long stuck = nowNanos - stuckAfterNanos();
    replaced.removeIf(t -> t != now && (t.active.sum() == 0 || forget(t, stuck)));
    Set<Member> used = new HashSet<>(List.of(preparing));
    now.collectMembers(used, nowNanos);
    replaced.forEach(t -> t.collectMembers(used, nowNanos));
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
