package io.shardwise.core;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.LoadReport;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NearCacheStats;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.TopologyChange;
import io.shardwise.client.TopologyStatus;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.change.LongestTtl;
import io.shardwise.core.internal.change.Topologies;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.exec.Counters;
import io.shardwise.core.internal.heal.Refills;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.exec.PendingGetMulti;
import io.shardwise.core.internal.exec.Gets;
import io.shardwise.core.internal.exec.NearGets;
import io.shardwise.core.internal.exec.Writes;
import io.shardwise.core.internal.exec.Requests;
import io.shardwise.core.internal.exec.WriteSteps;
import io.shardwise.core.internal.health.DeadlineScanner;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.near.DropCause;
import io.shardwise.core.internal.near.MovedKeys;
import io.shardwise.core.internal.near.NearCache;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The routing client, the facade of the pieces in {@code io.shardwise.core.internal}: it checks
 * keys, values and TTLs, encodes and decodes values, holds the current topology (replaced whole by
 * {@link #updateServers} and {@link #updatePlacement}) and counts each operation on the snapshot it
 * uses, and hands the operation to its executor ({@link Gets}, {@link Writes}), the
 * same for one replica and for N, which sends what {@link Routes} and {@code Moves}
 * decide over the key's preference list. docs/architecture.md follows a get and a set through them.
 */
final class RoutingClient<V> implements AsyncCacheClient<V> {

  private final Backend backend;
  /** The current topology; replaced whole by a change ({@link PlacementChanges}). */
  private volatile Topology topology;
  private final Topologies topologies;
  private final FleetHealth health;
  private final ValueCodec<V> codec;
  /** {@link #decodeOrNull(CachedValue)}, made once: a method reference would be made per read. */
  private final Function<CachedValue, V> decodeOrNull = this::decodeOrNull;
  /** Keys, values, TTLs and deltas checked before anything is sent. */
  private final RequestChecks<V> checks;
  private final DeadlineScanner deadlines;
  private final WarmUp warmUp;
  /** The longest TTL written, for how long a changed placement is remembered. */
  private final LongestTtl ttls;
  private final Requests requests;
  private final PlacementChanges placements;
  private final NearCacheChanges nearChanges;
  private final Gets<V> gets;
  private final Writes writes;
  private final Repairs repairs;
  private final Refills refills;
  /** Values read, kept in this process; null when the near cache is off. */
  private final NearCache near;
  /** Gets through {@link #near}; null when it is off. */
  private final NearGets<V> nearGets;
  /** {@link #enter()}, made once, for {@link #nearGets}. */
  private final Supplier<Topology> enter = this::enter;
  /** {@code shardwise(<backend>}: {@link #toString()} adds the router and the current fleet size. */
  private final String description;
  private final CacheClient<V> sync;
  private volatile boolean closed;

  RoutingClient(
      Backend backend,
      Topology topology,
      FleetHealth health,
      ValueCodec<V> codec,
      Duration timeout,
      int maxValueBytes,
      int batchSize,
      int replicas,
      ReplicaReads replicaReads,
      ReplicaRepair repair,
      RouterSpec routerSpec,
      ClientMetrics metrics,
      Topologies.Settings settings,
      NearCache near) {
    this.backend = backend;
    this.near = near;
    if (near != null) {
      health.onMemberChange(m -> near.dropAll(DropCause.NODE));
    }
    this.deadlines = new DeadlineScanner(timeout.toNanos(), metrics::clientStalled);
    health.watchStalls(deadlines);
    this.topology = topology;
    this.health = health;
    health.watchMembers(
        () -> {
          Set<Member> members = new LinkedHashSet<>();
          this.topology.collectMembers(members, System.nanoTime());
          return members;
        });
    this.warmUp = new WarmUp(settings.options().copyTtl(), metrics, health.failback());
    if (near != null) {
      warmUp.onCopyEnded(near::invalidate); // warm-up, repair, handoff and refill copies are writes too
    }
    this.ttls = settings.ttls();
    this.topologies = new Topologies(settings, backend, health, metrics, () -> this.topology, this::install);
    this.codec = codec;
    this.checks = new RequestChecks<>(backend, codec, maxValueBytes);
    FailoverOptions failover = health.options();
    Routes routes = new Routes(replicaReads, failover.failureMode());
    int retries = failover.failureMode() == FailureMode.RETRY ? failover.retryAttempts() : 0;
    this.requests = new Requests(health, metrics, deadlines, timeout, retries, batchSize);
    WriteSteps steps = new WriteSteps(requests, routes, health.failback(), warmUp, metrics);
    this.refills = new Refills(health.healthThread(), metrics);
    if (repair.enabled() && !repair.checkInterval().isZero()) {
      // Only a key stored on several replicas can be put back on a server that came back empty.
      refills.start(health.healthThread(), repair.checkInterval(), () -> this.topology.replicated ? List.of(this.topology.members) : List.of());
    }
    if (repair.enabled()) {
      health.failback().checkBeforeRejoin(m -> this.topology.replicated ? refills.checkBeforeServing(m) : CompletableFuture.completedFuture(null));
    }
    this.repairs = new Repairs(repair, warmUp, requests, metrics, () -> this.topology, health.healthThread(), refills);
    health.failback().onCopiesDeleted(repairs::handOff);
    this.gets = new Gets<>(requests, routes, warmUp, repairs, metrics, codec);
    this.nearGets = near == null ? null : new NearGets<>(near, gets, codec);
    if (near != null) {
      near.refreshWith(health.healthThread(), keys -> {
        if (!closed) {
          nearGets.refresh(keys, enter);
        }
      });
    }
    this.writes = new Writes(steps, repairs);
    this.placements = new PlacementChanges(topologies, replicas, routerSpec, topology.hashTag, topology.nodes);
    this.nearChanges = new NearCacheChanges(near, () -> this.topology.nodes, () -> topologies.placement().description());
    this.description = "shardwise(" + backend.name();
    this.sync = new SyncCacheClient<>(this, timeout);
  }

  /**
   * The current topology, counted as in use ({@link Topology#active}) until the operation calls
   * {@link Topology#exit}: re-read after counting, so that a topology replaced meanwhile is never
   * used (see {@link Topologies} for why that matters).
   */
  private Topology enter() {
    while (true) {
      Topology t = topology;
      t.active.increment();
      if (topology == t) {
        return t;
      }
      t.active.decrement();
    }
  }

  /**
   * Puts {@code t} in force; then the near cache drops the entries of the keys that may have moved
   * ({@link MovedKeys}), or all of them, and keeps every read that took its ticket before, which
   * runs on the topology before, from keeping its value (see {@link NearCache.Ticket}). Installs come
   * one at a time, on the topology thread.
   */
  private void install(Topology t) {
    Topology before = topology;
    topology = t;
    if (near != null) {
      Predicate<String> moved = MovedKeys.of(before, t);
      if (moved == null) {
        near.dropAll(DropCause.CHANGE);
      } else {
        near.dropMoved(moved);
      }
    }
  }

  /** What sees this process's stalls (for the blocking view's safety net). */
  DeadlineScanner deadlines() {
    return deadlines;
  }

  // ---- single-key operations -----------------------------------------------------------------

  @Override
  public CompletableFuture<V> get(String key) {
    validate(key);
    return nearGets == null ? gets.get(enter(), key, decodeOrNull) : nearGets.get(key, enter);
  }

  @Override
  public CompletableFuture<Void> set(String key, V value, Duration ttl) {
    validate(key);
    CachedValue encoded = checks.encode(key, value);
    RequestChecks.ttl(ttl);
    return write(key, "set", ttl, (c, d) -> c.set(key, encoded, d), WriteSteps.Kind.REPLACES, Writes.Shape.ALL, (a, b) -> null);
  }

  @Override
  public CompletableFuture<Boolean> add(String key, V value, Duration ttl) {
    validate(key);
    CachedValue encoded = checks.encode(key, value);
    RequestChecks.ttl(ttl);
    return write(key, "add", ttl, (c, d) -> c.add(key, encoded, d), WriteSteps.Kind.KEEPS, Writes.Shape.DECIDE_THEN_DELETE, null);
  }

  @Override
  public CompletableFuture<Boolean> delete(String key) {
    validate(key);
    return write(key, "delete", null, (c, d) -> c.delete(key), WriteSteps.Kind.REMOVES, Writes.Shape.ALL, Boolean::logicalOr);
  }

  @Override
  public CompletableFuture<Boolean> touch(String key, Duration ttl) {
    validate(key);
    RequestChecks.ttl(ttl);
    return write(key, "touch", ttl, (c, d) -> c.touch(key, d), WriteSteps.Kind.TOUCHES, Writes.Shape.ALL, Boolean::logicalOr);
  }

  @Override
  public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
    return counter(key, RequestChecks.delta(delta), initial, ttl);
  }

  @Override
  public CompletableFuture<Long> decr(String key, long delta, long initial, Duration ttl) {
    return counter(key, -RequestChecks.delta(delta), initial, ttl);
  }

  private CompletableFuture<Long> counter(String key, long signedDelta, long initial, Duration ttl) {
    validate(key);
    RequestChecks.ttl(ttl);
    ttls.record(ttl);
    return invalidated(
        key, writes.write(enter(), key, "incr", ttl, new Counters.CounterOp(key, signedDelta, initial), WriteSteps.Kind.KEEPS, Writes.Shape.COUNT, null));
  }

  /**
   * {@code written}, a write of {@code key}, done once the near cache's entry of the key is dropped,
   * whatever the write's outcome: an entry kept before the write, or by a read that took its ticket
   * before the write was done, is not served after it ({@link NearCache}). While the write is under
   * way the value before it may still be served, as a read sent then may return it.
   */
  private <T> CompletableFuture<T> invalidated(String key, CompletableFuture<T> written) {
    return near == null ? written : written.whenComplete((r, x) -> near.invalidate(key));
  }

  /** {@link #invalidated} for each key of a batch. */
  private <T> CompletableFuture<T> invalidated(Collection<String> keys, CompletableFuture<T> written) {
    return near == null ? written : written.whenComplete((r, x) -> keys.forEach(near::invalidate));
  }

  /**
   * A write of one key: to its node, or with several replicas spread over them as {@code shape}
   * says, the replies of those that succeeded merged by {@code combine}.
   */
  private <T> CompletableFuture<T> write(
      String key,
      String operation,
      Duration ttl,
      WriteSteps.WriteOp<T> op,
      WriteSteps.Kind kind,
      Writes.Shape shape,
      java.util.function.BinaryOperator<T> combine) {
    if (ttl != null) {
      ttls.record(ttl);
    }
    return invalidated(key, writes.write(enter(), key, operation, ttl, op, kind, shape, combine));
  }

  @Override
  public CompletableFuture<Duration> ping(Node node) {
    checkOpen();
    Topology t = topology;
    return requests.send(t.members[t.indexOf(node)], "ping", NodeConnection::ping);
  }

  @Override
  public Map<Node, CompletableFuture<Duration>> pingAll() {
    checkOpen();
    Topology t = topology;
    Map<Node, CompletableFuture<Duration>> out = new LinkedHashMap<>();
    for (int i = 0; i < t.nodes.size(); i++) {
      out.put(t.nodes.get(i), requests.send(t.members[i], "ping", NodeConnection::ping));
    }
    return out;
  }

  // ---- multi-key operations ------------------------------------------------------------------

  @Override
  public CompletableFuture<MultiResult<V>> getMulti(Collection<String> keys) {
    PendingGetMulti<V> pending = startGetMulti(keys);
    return pending.done.thenApply(x -> pending.result());
  }

  /** Validates the keys, sends one request per node, and returns at once. */
  PendingGetMulti<V> startGetMulti(Collection<String> keys) {
    checkOpen();
    Set<String> distinct = checks.keys(keys);
    return nearGets == null ? gets.start(enter(), distinct, null) : nearGets.start(distinct, enter);
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> setMulti(Map<String, ? extends V> entries, Duration ttl) {
    return startSetMulti(entries, ttl).done();
  }

  /** A batch in flight, and the most parts one node's share of it is sent in ({@link Requests#partsBound}). */
  record PendingBatch<T>(CompletableFuture<T> done, long parts) {}

  /** The most parts one node's share of a batch of {@code keys} keys, {@code valueBytes} of values, is sent in. */
  long partsBound(int keys, long valueBytes) {
    return requests.partsBound(keys, valueBytes);
  }

  /** Validates and encodes every entry, sends the batches, and returns at once. */
  PendingBatch<MultiResult<Boolean>> startSetMulti(Map<String, ? extends V> entries, Duration ttl) {
    checkOpen();
    RequestChecks.ttl(ttl);
    ttls.record(ttl);
    Map<String, CachedValue> encoded = checks.values(entries); // all before the first byte is sent
    long bytes = 0;
    for (CachedValue value : encoded.values()) {
      bytes += value.length();
    }
    CompletableFuture<MultiResult<Boolean>> done = invalidated(encoded.keySet(), writes.writeMulti(enter(), encoded.keySet(), encoded, ttl));
    return new PendingBatch<>(done, requests.partsBound(encoded.size(), bytes));
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> deleteMulti(Collection<String> keys) {
    checkOpen();
    Set<String> distinct = checks.keys(keys);
    return invalidated(distinct, writes.writeMulti(enter(), distinct, null, null));
  }

  // ---- checks ------------------------------------------------------------------------------

  private void validate(String key) {
    checkOpen();
    checks.key(key);
  }

  private V decodeOrNull(CachedValue stored) {
    return stored == null ? null : codec.decode(stored);
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  // ---- the rest of the interface -------------------------------------------------------------

  @Override
  public List<Node> nodes() {
    return topology.nodes;
  }

  @Override
  public Node nodeFor(String key) {
    checks.key(key);
    Topology t = topology;
    return t.nodes.get(t.primary(key));
  }

  @Override
  public Map<Node, NodeState> nodeStates() {
    Map<Node, NodeState> states = new LinkedHashMap<>();
    health.status(topology.members).forEach((node, s) -> states.put(node, s.state()));
    return states;
  }

  @Override
  public Map<Node, NodeStatus> nodeStatus() {
    return NodeStatuses.of(health, topology.members, repairs, refills, near);
  }

  /** Checks the run each server is in now, as the periodic check does (for tests in this package). */
  void checkServerRuns() {
    Topology t = topology;
    health.healthThread().execute(() -> refills.check(List.of(t.members)));
  }

  /** How many servers' runs were read (for tests in this package). */
  int serverRunsRead() {
    return refills.watched();
  }

  @Override
  public NearCacheStats nearCacheStats() {
    return near == null ? NearCacheStats.OFF : near.stats();
  }

  /** The topology in force (for tests in this package). */
  Topology topology() {
    return topology;
  }

  @Override
  public LoadReport loadReport() {
    return topology.loadReport();
  }

  @Override
  public CompletableFuture<TopologyChange> updateServers(List<Node> servers) {
    checkOpen();
    return placements.servers(servers);
  }

  @Override
  public CompletableFuture<TopologyChange> updatePlacement(Map<String, String> settings) {
    checkOpen();
    return nearChanges.update(settings, placements::placement);
  }

  @Override
  public TopologyStatus topologyStatus() {
    return topology.status(topologies.lastChange(), warmUp.reads.sum(), warmUp.hits.sum(), warmUp.copies.sum());
  }

  @Override
  public CacheClient<V> sync() {
    return sync;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    health.close();
    deadlines.close();
    RuntimeException first = null;
    try {
      topologies.close();
    } catch (RuntimeException e) {
      first = e;
    }
    try {
      backend.close();
    } catch (RuntimeException e) {
      first = first == null ? e : first;
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return description + ", " + topologies.placement().description() + ", " + topology.nodes.size() + " nodes)";
  }
}
