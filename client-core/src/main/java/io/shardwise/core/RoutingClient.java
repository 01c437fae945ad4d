package io.shardwise.core;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.LoadReport;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The routing client: validates keys and values, hashes the routing key (the hash tag if
 * configured), picks the node (the key's primary, or with the primary ejected what the {@link
 * FailureMode} says), and sends the command on that node's connection with the configured
 * timeout. Multi-key operations send one batched request per node, all nodes at once, and
 * account for every key. Every outcome is recorded on the node's circuit ({@link FleetHealth}).
 */
final class RoutingClient<V> implements AsyncCacheClient<V> {

  private final Backend backend;
  private final Topology topology;
  private final FleetHealth health;
  private final ValueCodec<V> codec;
  private final KeyRules keyRules;
  private final Duration timeout;
  private final int maxValueBytes;
  private final Failback failback;
  private final boolean redistributing;
  private final boolean retrying;
  private final ClientMetrics metrics;
  private final DeadlineScanner deadlines;
  /** Null when bounded loads are off. */
  private final BoundedReads bounded;
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
      String routerDescription,
      ClientMetrics metrics,
      BoundedReads bounded) {
    this.backend = backend;
    this.metrics = metrics;
    this.bounded = bounded;
    this.deadlines = new DeadlineScanner(timeout.toNanos(), metrics::clientStalled);
    health.watchStalls(deadlines);
    this.failback = health.failback();
    this.topology = topology;
    this.health = health;
    this.codec = codec;
    this.keyRules = backend.keyRules();
    this.timeout = timeout;
    this.maxValueBytes = maxValueBytes;
    FailoverOptions failover = health.options();
    this.redistributing = failover.failureMode() == FailureMode.REDISTRIBUTE;
    this.retrying = failover.failureMode() == FailureMode.RETRY && failover.retryAttempts() > 0;
    this.description =
        "shardwise(" + backend.name() + ", " + routerDescription + ", " + topology.nodes.size() + " nodes)";
    this.sync = new SyncCacheClient<>(this, timeout);
  }

  // ---- single-key operations -----------------------------------------------------------------

  @Override
  public CompletableFuture<V> get(String key) {
    validate(key);
    long hash = topology.hash(key);
    int primary = topology.router.primary(hash);
    if (bounded != null) {
      int chosen = bounded.selectRead(key, hash);
      if (chosen >= 0 && chosen != primary && health.available(primary)) {
        return spilledGet(key, primary, chosen).thenApply(this::decodeOrNull);
      }
    }
    int node = select(hash, primary);
    if (node == FleetHealth.NONE) {
      return CompletableFuture.failedFuture(health.unavailable(primary, key));
    }
    if (node != primary && failback.isOldCopy(node, key)) {
      metrics.oldCopySkipped(topology.nodes.get(node));
      return CompletableFuture.completedFuture(null);
    }
    // Without retries the value is decoded in the stage that handles the reply: no stage of its own.
    return retrying
        ? send(node, "get", c -> c.get(key), true).thenApply(this::decodeOrNull)
        : call(node, "get", c -> c.get(key), true, this::decodeOrNull);
  }

  /**
   * A read that spilled from its over-cap primary to {@code node}: the copy there if it has one,
   * else the primary's value, which is then left there as a copy (see {@link BoundedReads}).
   */
  private CompletableFuture<CachedValue> spilledGet(String key, int primary, int node) {
    metrics.redirected(topology.nodes.get(primary), topology.nodes.get(node), "spill");
    return send(node, "get", c -> c.get(key))
        .exceptionally(failure -> null) // the spill node failed: read the primary instead
        .thenCompose(
            copy -> {
              if (copy != null) {
                return CompletableFuture.completedFuture(copy);
              }
              BoundedReads.Spill spill = bounded.spillFor(key);
              long generation = spill == null ? 0 : spill.generation.get();
              return send(primary, "getFallback", c -> c.get(key))
                  .thenApply(
                      value -> {
                        if (value != null && spill != null) {
                          leaveCopy(spill, generation, key, node, value);
                        }
                        return value;
                      });
            });
  }

  /** Writes a copy for a spilled read, unless a write of the key came in between. */
  private void leaveCopy(BoundedReads.Spill spill, long generation, String key, int node, CachedValue value) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    spill.creating.add(done); // before the check: a writer that bumps after it waits for us
    if (spill.generation.get() != generation) {
      finish(spill, done);
      return;
    }
    spill.copies.add(node);
    spill.lastCopyNanos = bounded.now();
    send(node, "addCopy", c -> c.add(key, value, bounded.options.spillTtl()))
        .whenComplete(
            (stored, failure) -> {
              if (spill.generation.get() != generation) {
                send(node, "deleteCopy", c -> c.delete(key)).whenComplete((x, y) -> finish(spill, done));
              } else {
                finish(spill, done);
              }
            });
  }

  private static void finish(BoundedReads.Spill spill, CompletableFuture<Void> done) {
    spill.creating.remove(done);
    done.complete(null);
  }

  /**
   * Completes {@code write} only after the copies of its key, if reads of it spilled, are gone:
   * the generation moves on, the copy creations under way finish, the copies are deleted.
   */
  private <T> CompletableFuture<T> afterWrite(String key, CompletableFuture<T> write) {
    if (bounded == null) {
      return write;
    }
    return write.handle((v, t) -> (Void) null).thenCompose(x -> dropCopies(key)).thenCompose(x -> write);
  }

  private CompletableFuture<Void> dropCopies(String key) {
    BoundedReads.Spill spill = bounded.spilled(key);
    if (spill == null) {
      return CompletableFuture.completedFuture(null);
    }
    spill.generation.incrementAndGet();
    List<CompletableFuture<?>> steps = new ArrayList<>(spill.creating);
    return CompletableFuture.allOf(steps.toArray(new CompletableFuture<?>[0]))
        .thenCompose(
            x -> {
              List<CompletableFuture<?>> deletes = new ArrayList<>();
              for (int node : spill.copies) {
                deletes.add(send(node, "deleteCopy", c -> c.delete(key)).handle((r, t) -> null));
              }
              return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]));
            });
  }

  @Override
  public CompletableFuture<Void> set(String key, V value, Duration ttl) {
    validate(key);
    CachedValue encoded = encode(key, value);
    checkTtl(ttl);
    return afterWrite(key, write(key, "set", ttl, (c, t) -> c.set(key, encoded, t)));
  }

  @Override
  public CompletableFuture<Boolean> add(String key, V value, Duration ttl) {
    validate(key);
    CachedValue encoded = encode(key, value);
    checkTtl(ttl);
    return afterWrite(key, write(key, "add", ttl, (c, t) -> c.add(key, encoded, t)));
  }

  @Override
  public CompletableFuture<Boolean> delete(String key) {
    validate(key);
    return afterWrite(key, write(key, "delete", null, (c, t) -> c.delete(key)));
  }

  @Override
  public CompletableFuture<Boolean> touch(String key, Duration ttl) {
    validate(key);
    checkTtl(ttl);
    return write(key, "touch", ttl, (c, t) -> c.touch(key, t));
  }

  @Override
  public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
    return counter(key, checkDelta(delta), initial, ttl);
  }

  @Override
  public CompletableFuture<Long> decr(String key, long delta, long initial, Duration ttl) {
    return counter(key, -checkDelta(delta), initial, ttl);
  }

  private CompletableFuture<Long> counter(String key, long signedDelta, long initial, Duration ttl) {
    validate(key);
    checkTtl(ttl);
    return afterWrite(key, write(key, "incr", ttl, (c, t) -> c.incr(key, signedDelta, initial, t)));
  }

  @Override
  public CompletableFuture<Duration> ping(Node node) {
    checkOpen();
    return call(topology.indexOf(node), "ping", NodeConnection::ping);
  }

  @Override
  public Map<Node, CompletableFuture<Duration>> pingAll() {
    checkOpen();
    Map<Node, CompletableFuture<Duration>> out = new LinkedHashMap<>();
    for (int i = 0; i < topology.nodes.size(); i++) {
      out.put(topology.nodes.get(i), call(i, "ping", NodeConnection::ping));
    }
    return out;
  }

  /**
   * The node for a key with this hash and primary under the failure mode: the primary, or the
   * next available node of the key's preference order (counted as a redirect), or {@link
   * FleetHealth#NONE}.
   */
  private int select(long hash, int primary) {
    int node = health.select(hash, primary);
    if (node != FleetHealth.NONE && node != primary) {
      metrics.redirected(topology.nodes.get(primary), topology.nodes.get(node), "failover");
    }
    return node;
  }

  /** A write to one connection, with the TTL to give it (null for writes without one). */
  @FunctionalInterface
  private interface WriteOp<T> {
    CompletableFuture<T> send(NodeConnection connection, Duration ttl);
  }

  /**
   * Routes a write of one key and sends it. While the key's node is out the write goes to the next
   * available node of its order, through the {@link Failback} fence: journaled against the nodes
   * it skips and with its TTL capped at the failover TTL.
   */
  private <T> CompletableFuture<T> write(String key, String operation, Duration ttl, WriteOp<T> op) {
    long hash = topology.hash(key);
    int primary = topology.router.primary(hash);
    if (health.available(primary)) {
      return send(primary, operation, c -> op.send(c, ttl));
    }
    if (!redistributing) {
      return CompletableFuture.failedFuture(health.unavailable(primary, key));
    }
    try (Failback.Fence fence = failback.fence()) {
      int target;
      try {
        target = redirect(key, hash, primary, fence);
      } catch (ShardwiseException e) {
        return CompletableFuture.failedFuture(e);
      }
      if (target == primary) {
        return send(primary, operation, c -> op.send(c, ttl)); // its node is back
      }
      // Sent inside the fence: a readmission sees this write journaled and queued, or not at all.
      Duration capped = ttl == null ? null : failback.cap(ttl);
      return send(target, operation, c -> op.send(c, capped));
    }
  }

  /**
   * Where a write of {@code key}, whose primary is out, goes under {@link
   * FailureMode#REDISTRIBUTE}: the next available node of its order, journaled through {@code
   * fence} against the nodes it skips (and counted as a redirect), or the primary if it is back.
   *
   * @throws ShardwiseException no node is available, or the journal of a skipped node is full
   */
  private int redirect(String key, long hash, int primary, Failback.Fence fence) {
    for (int attempt = 0; attempt <= topology.nodes.size(); attempt++) {
      FailoverOrder.Route route = health.order().route(hash, health.isAvailable);
      int target = route.target;
      if (target == FleetHealth.NONE) {
        throw health.unavailable(primary, key);
      }
      if (route.skippedCount == 0) {
        return target;
      }
      if (!fence.enter(route)) {
        continue; // a skipped node came back meanwhile: route again
      }
      ShardwiseException full = fence.record(key, route);
      if (full != null) {
        throw full;
      }
      metrics.redirected(topology.nodes.get(primary), topology.nodes.get(target), "failover");
      return target;
    }
    throw new IllegalStateException(
        "nodes of " + KeyRules.shorten(key) + " kept coming back while it was routed");
  }

  // ---- multi-key operations ------------------------------------------------------------------

  /** Keys grouped by the node chosen for them; keys with no available node are already errors. */
  private final class Plan {
    final List<List<String>> byNode = new ArrayList<>();
    /**
     * Writes sent elsewhere because their node is out, per node they go to: they are sent as
     * batches of their own, with the failover TTL. Null for reads.
     */
    final List<List<String>> redirectedByNode;
    /**
     * The node of each key, in the order the keys were given; {@link FleetHealth#NONE} if none,
     * {@link #OLD_COPY} for a read answered as a miss because the only copy left may be old.
     */
    final int[] nodeOf;
    final Map<String, ShardwiseException> unavailable = new LinkedHashMap<>();
    /** Reads spilled away from their over-cap primary: key -> primary. */
    final Map<String, Integer> spilledReads = new HashMap<>();

    /** A read plan. */
    Plan(Collection<String> keys) {
      this(keys, null);
    }

    /**
     * A write plan when {@code fence} is given: keys of nodes that are out are journaled through
     * it, which the caller holds until the batches are sent.
     */
    Plan(Collection<String> keys, Failback.Fence fence) {
      int n = topology.nodes.size();
      for (int i = 0; i < n; i++) {
        byNode.add(null);
      }
      redirectedByNode = fence == null ? null : new ArrayList<>(Collections.nCopies(n, null));
      nodeOf = new int[keys.size()];
      int index = 0;
      for (String key : keys) {
        int at = index++;
        long hash = topology.hash(key);
        int primary = topology.router.primary(hash);
        nodeOf[at] = fence == null ? routeRead(key, hash, primary) : routeWrite(key, hash, primary, fence);
      }
    }

    private int routeRead(String key, long hash, int primary) {
      if (bounded != null) {
        int chosen = bounded.selectRead(key, hash);
        if (chosen >= 0 && chosen != primary && health.available(primary)) {
          metrics.redirected(topology.nodes.get(primary), topology.nodes.get(chosen), "spill");
          spilledReads.put(key, primary);
          return add(byNode, chosen, key);
        }
      }
      int node = select(hash, primary);
      if (node == FleetHealth.NONE) {
        unavailable.put(key, health.unavailable(primary, key));
        return node;
      }
      if (node != primary && failback.isOldCopy(node, key)) {
        metrics.oldCopySkipped(topology.nodes.get(node));
        return OLD_COPY;
      }
      return add(byNode, node, key);
    }

    /** {@link RoutingClient#write}'s routing, for one key of a batch. */
    private int routeWrite(String key, long hash, int primary, Failback.Fence fence) {
      if (health.available(primary)) {
        return add(byNode, primary, key);
      }
      if (!redistributing) {
        unavailable.put(key, health.unavailable(primary, key));
        return FleetHealth.NONE;
      }
      int target;
      try {
        target = redirect(key, hash, primary, fence);
      } catch (ShardwiseException e) {
        unavailable.put(key, e);
        return FleetHealth.NONE;
      }
      return add(target == primary ? byNode : redirectedByNode, target, key);
    }

    private int add(List<List<String>> lists, int node, String key) {
      List<String> list = lists.get(node);
      if (list == null) {
        // Twice a node's fair share: one growth at most for most batches.
        list = new ArrayList<>(Math.max(10, 2 * nodeOf.length / lists.size()));
        lists.set(node, list);
      }
      list.add(key);
      return node;
    }
  }

  /** {@link Plan#nodeOf} of a read answered as a miss: its only copy may be old. */
  private static final int OLD_COPY = -2;

  @Override
  public CompletableFuture<MultiResult<V>> getMulti(Collection<String> keys) {
    PendingGetMulti pending = startGetMulti(keys);
    return pending.done.thenApply(x -> pending.result());
  }

  /**
   * A getMulti in flight: {@link #done} completes (never exceptionally: a node's failure is its
   * keys' error) when every node has answered, and {@link #result()} then builds the result.
   * The sync client builds it on the calling thread, so that the I/O thread that delivers the
   * last reply goes back to its socket at once.
   */
  final class PendingGetMulti {
    final CompletableFuture<Void> done;
    private final Set<String> distinct;
    private final Plan plan;
    private final Object[] replies;
    private final Map<String, Object> secondRound;

    PendingGetMulti(
        CompletableFuture<Void> done, Set<String> distinct, Plan plan, Object[] replies, Map<String, Object> secondRound) {
      this.done = done;
      this.distinct = distinct;
      this.plan = plan;
      this.replies = replies;
      this.secondRound = secondRound;
    }

    /** The result, in the caller's key order; only once {@link #done} has completed. */
    MultiResult<V> result() {
      return assemble(distinct, plan, replies, secondRound);
    }
  }

  /** Validates the keys, sends one request per node, and returns at once. */
  PendingGetMulti startGetMulti(Collection<String> keys) {
    Set<String> distinct = validated(keys);
    Plan plan = new Plan(distinct);
    // Per node, its reply (the map of hits) or its failure; read once all parts are done.
    Object[] replies = new Object[plan.byNode.size()];
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (int i = 0; i < plan.byNode.size(); i++) {
      List<String> nodeKeys = plan.byNode.get(i);
      if (nodeKeys == null) {
        continue;
      }
      int node = i;
      parts.add(
          send(node, "getMulti", c -> c.getMulti(nodeKeys))
              .handle(
                  (found, failure) -> {
                    if (failure == null) {
                      metrics.reads(topology.nodes.get(node), found.size(), nodeKeys.size() - found.size());
                    }
                    replies[node] = failure != null ? failure : found;
                    return null;
                  }));
    }
    if (plan.spilledReads.isEmpty()) {
      return new PendingGetMulti(allOf(parts), distinct, plan, replies, Map.of());
    }
    Map<String, Object> secondRound = new ConcurrentHashMap<>();
    return new PendingGetMulti(
        allOf(parts).thenCompose(x -> readSpilledMisses(plan, replies, secondRound)),
        distinct,
        plan,
        replies,
        secondRound);
  }

  /** A hit of the second round of a bounded getMulti (its value may be null). */
  private record SecondRoundHit<T>(T value) {}

  /** A miss of the second round of a bounded getMulti. */
  private static final Object SECOND_ROUND_MISS = new Object();

  /**
   * The result of a getMulti in the caller's key order, built in one pass: each key's outcome is
   * in the reply of its node, unless the second round of a bounded getMulti read it again.
   */
  private MultiResult<V> assemble(
      Set<String> distinct, Plan plan, Object[] replies, Map<String, Object> secondRound) {
    MultiResult.Builder<V> result = MultiResult.builder(distinct.size());
    int index = 0;
    for (String key : distinct) {
      int node = plan.nodeOf[index++];
      Object again = secondRound.isEmpty() ? null : secondRound.get(key);
      if (again != null) {
        if (again instanceof SecondRoundHit<?> hit) {
          @SuppressWarnings("unchecked")
          V value = (V) hit.value();
          result.hit(key, value);
        } else if (again == SECOND_ROUND_MISS) {
          result.miss(key);
        } else {
          result.error(key, (ShardwiseException) again);
        }
        continue;
      }
      if (node == FleetHealth.NONE) {
        result.error(key, plan.unavailable.get(key));
        continue;
      }
      if (node == OLD_COPY) {
        result.miss(key);
        continue;
      }
      Object reply = replies[node];
      if (reply instanceof Throwable failure) {
        result.error(key, asShardwise(node, failure));
        continue;
      }
      @SuppressWarnings("unchecked")
      CachedValue cv = ((Map<String, CachedValue>) reply).get(key);
      if (cv == null) {
        result.miss(key);
        continue;
      }
      V value;
      try {
        value = codec.decode(cv);
      } catch (RuntimeException e) {
        // A value that cannot be decoded is that key's error.
        result.error(key, asShardwise(node, e));
        continue;
      }
      result.hit(key, value);
    }
    return result.build();
  }

  /**
   * The second round of a bounded getMulti: the spilled keys that found no copy (a miss or an
   * error where they spilled) are read from their primaries, one batch per primary, and a copy
   * of each hit is left where it spilled. Each such key's new outcome goes to {@code secondRound}.
   */
  private CompletableFuture<Void> readSpilledMisses(
      Plan plan, Object[] replies, Map<String, Object> secondRound) {
    Map<Integer, List<String>> byPrimary = new LinkedHashMap<>();
    Map<String, Integer> spillNode = new HashMap<>();
    for (int node = 0; node < plan.byNode.size(); node++) {
      List<String> nodeKeys = plan.byNode.get(node);
      if (nodeKeys == null) {
        continue;
      }
      Object reply = replies[node];
      for (String key : nodeKeys) {
        Integer primary = plan.spilledReads.get(key);
        if (primary != null && (reply instanceof Throwable || !((Map<?, ?>) reply).containsKey(key))) {
          byPrimary.computeIfAbsent(primary, p -> new ArrayList<>()).add(key);
          spillNode.put(key, node);
        }
      }
    }
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    byPrimary.forEach(
        (primary, keys) -> {
          Map<String, BoundedReads.Spill> spills = new HashMap<>();
          Map<String, Long> generations = new HashMap<>();
          for (String key : keys) {
            BoundedReads.Spill spill = bounded.spillFor(key);
            if (spill != null) {
              spills.put(key, spill);
              generations.put(key, spill.generation.get());
            }
          }
          parts.add(
              send(primary, "getMultiFallback", c -> c.getMulti(keys))
                  .handle(
                      (found, failure) -> {
                        for (String key : keys) {
                          if (failure != null) {
                            secondRound.put(key, asShardwise(primary, failure));
                            continue;
                          }
                          CachedValue cv = found.get(key);
                          if (cv == null) {
                            secondRound.put(key, SECOND_ROUND_MISS);
                            continue;
                          }
                          try {
                            secondRound.put(key, new SecondRoundHit<>(codec.decode(cv)));
                          } catch (RuntimeException e) {
                            secondRound.put(key, asShardwise(primary, e));
                            continue;
                          }
                          BoundedReads.Spill spill = spills.get(key);
                          if (spill != null) {
                            leaveCopy(spill, generations.get(key), key, spillNode.get(key), cv);
                          }
                        }
                        return null;
                      }));
        });
    return allOf(parts);
  }

  /** Runs {@link #dropCopies} for every key of a finished multi-key write. */
  private <T> CompletableFuture<T> afterWrites(Collection<String> keys, CompletableFuture<T> writes) {
    if (bounded == null) {
      return writes;
    }
    return writes
        .handle((v, t) -> (Void) null)
        .thenCompose(
            x -> {
              List<CompletableFuture<?>> drops = new ArrayList<>();
              for (String key : keys) {
                if (bounded.spilled(key) != null) {
                  drops.add(dropCopies(key));
                }
              }
              return CompletableFuture.allOf(drops.toArray(new CompletableFuture<?>[0]));
            })
        .thenCompose(x -> writes);
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> setMulti(Map<String, ? extends V> entries, Duration ttl) {
    checkOpen();
    Objects.requireNonNull(entries, "values");
    checkTtl(ttl);
    // Validate and encode everything before the first byte is sent.
    Map<String, CachedValue> encoded = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends V> e : entries.entrySet()) {
      keyRules.validate(e.getKey());
      encoded.put(e.getKey(), encode(e.getKey(), e.getValue()));
    }
    Map<String, Boolean> stored = new HashMap<>();
    Map<String, ShardwiseException> errors = new LinkedHashMap<>();
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    try (Failback.Fence fence = failback.fence()) {
      Plan plan = new Plan(encoded.keySet(), fence);
      errors.putAll(plan.unavailable);
      Duration capped = failback.cap(ttl);
      for (int i = 0; i < plan.byNode.size(); i++) {
        parts.add(storeBatch(i, plan.byNode.get(i), encoded, ttl, stored, errors));
        parts.add(storeBatch(i, plan.redirectedByNode.get(i), encoded, capped, stored, errors));
      }
    }
    return afterWrites(
        encoded.keySet(), allOf(parts).thenApply(x -> ordered(encoded.keySet(), stored, Set.of(), errors)));
  }

  /** One setMulti batch to one node; each key's outcome goes to {@code stored} or {@code errors}. */
  private CompletableFuture<Void> storeBatch(
      int node,
      List<String> nodeKeys,
      Map<String, CachedValue> encoded,
      Duration ttl,
      Map<String, Boolean> stored,
      Map<String, ShardwiseException> errors) {
    if (nodeKeys == null) {
      return CompletableFuture.completedFuture(null);
    }
    Map<String, CachedValue> batch = new LinkedHashMap<>();
    for (String key : nodeKeys) {
      batch.put(key, encoded.get(key));
    }
    return send(node, "setMulti", c -> c.setMulti(batch, ttl))
        .handle(
            (failedKeys, failure) -> {
              synchronized (stored) {
                for (String key : nodeKeys) {
                  Throwable keyFailure = failure != null ? failure : failedKeys.get(key);
                  if (keyFailure == null) {
                    stored.put(key, Boolean.TRUE);
                  } else {
                    errors.put(key, asShardwise(node, keyFailure));
                  }
                }
              }
              return null;
            });
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> deleteMulti(Collection<String> keys) {
    Set<String> distinct = validated(keys);
    Map<String, Boolean> deleted = new HashMap<>();
    Map<String, ShardwiseException> errors = new LinkedHashMap<>();
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    try (Failback.Fence fence = failback.fence()) {
      Plan plan = new Plan(distinct, fence);
      errors.putAll(plan.unavailable);
      for (int i = 0; i < plan.byNode.size(); i++) {
        parts.add(deleteBatch(i, plan.byNode.get(i), deleted, errors));
        parts.add(deleteBatch(i, plan.redirectedByNode.get(i), deleted, errors));
      }
    }
    return afterWrites(distinct, allOf(parts).thenApply(x -> ordered(distinct, deleted, Set.of(), errors)));
  }

  /** One deleteMulti batch to one node; each key's outcome goes to {@code deleted} or {@code errors}. */
  private CompletableFuture<Void> deleteBatch(
      int node, List<String> nodeKeys, Map<String, Boolean> deleted, Map<String, ShardwiseException> errors) {
    if (nodeKeys == null) {
      return CompletableFuture.completedFuture(null);
    }
    return send(node, "deleteMulti", c -> c.deleteMulti(nodeKeys))
        .handle(
            (result, failure) -> {
              synchronized (deleted) {
                for (String key : nodeKeys) {
                  Boolean existed = failure == null ? result.get(key) : null;
                  if (existed != null) {
                    deleted.put(key, existed);
                  } else {
                    errors.put(
                        key,
                        failure != null
                            ? asShardwise(node, failure)
                            : new NodeException(topology.nodes.get(node), "no result for this key", null));
                  }
                }
              }
              return null;
            });
  }

  /** The distinct keys, in order, each validated before anything is sent. */
  private Set<String> validated(Collection<String> keys) {
    checkOpen();
    Objects.requireNonNull(keys, "keys");
    Set<String> distinct = new LinkedHashSet<>(keys.size() <= 12 ? 16 : (int) (keys.size() / 0.75f) + 1);
    for (String key : keys) {
      keyRules.validate(key);
      distinct.add(key);
    }
    return distinct;
  }

  /** A result whose parts iterate in the order the caller gave the keys. */
  private static <T> MultiResult<T> ordered(
      Collection<String> keys, Map<String, T> values, Set<String> misses, Map<String, ShardwiseException> errors) {
    Map<String, T> v = new LinkedHashMap<>();
    Set<String> m = new LinkedHashSet<>();
    Map<String, ShardwiseException> e = new LinkedHashMap<>();
    for (String key : keys) {
      if (values.containsKey(key)) {
        v.put(key, values.get(key));
      } else if (misses.contains(key)) {
        m.add(key);
      } else if (errors.containsKey(key)) {
        e.put(key, errors.get(key));
      }
    }
    return MultiResult.of(v, m, e);
  }

  private static CompletableFuture<Void> allOf(List<CompletableFuture<Void>> parts) {
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private void validate(String key) {
    checkOpen();
    keyRules.validate(key);
  }

  /** {@link #call}, retried on the same node after a node failure with {@link FailureMode#RETRY}. */
  private <T> CompletableFuture<T> send(
      int node, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
    return send(node, operation, op, false);
  }

  /**
   * {@link #send}; with {@code countRead} the reply (a value or null) is also reported to {@link
   * ClientMetrics#reads} as one hit or one miss.
   */
  private <T> CompletableFuture<T> send(
      int node,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead) {
    CompletableFuture<T> first = call(node, operation, op, countRead);
    return retrying
        ? retry(first, node, operation, op, countRead, health.options().retryAttempts())
        : first;
  }

  private <T> CompletableFuture<T> retry(
      CompletableFuture<T> attempt,
      int node,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead,
      int left) {
    if (left == 0) {
      return attempt;
    }
    return attempt.exceptionallyCompose(
        failure ->
            health.isNodeFailure(failure) && health.available(node)
                ? retry(
                    call(node, operation, op, countRead),
                    node,
                    operation,
                    op,
                    countRead,
                    left - 1)
                : CompletableFuture.failedFuture(failure));
  }

  /**
   * Sends one request to one node with the timeout, records the outcome on the node's circuit,
   * and turns every failure into a {@link NodeException} that names the node.
   */
  private <T> CompletableFuture<T> call(
      int node, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
    return call(node, operation, op, false);
  }

  private <T> CompletableFuture<T> call(
      int node,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead) {
    return call(node, operation, op, countRead, Function.identity());
  }

  /**
   * {@link #call}, then {@code finish} applied to the reply in the same stage; an exception from
   * {@code finish} fails the returned future but is not a node failure.
   */
  private <T, R> CompletableFuture<R> call(
      int node,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead,
      Function<? super T, ? extends R> finish) {
    long start = System.nanoTime();
    if (bounded != null) {
      bounded.loads.record(node);
    }
    CompletableFuture<T> sent;
    try {
      sent = op.apply(topology.connections[node]);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    deadlines.watch(sent);
    return sent.handle(
            (value, failure) -> {
              long took = health.record(node, start, failure);
              if (failure != null) {
                ShardwiseException e = asShardwise(node, failure);
                metrics.request(topology.nodes.get(node), operation, took, e);
                throw e;
              }
              Node n = topology.nodes.get(node);
              metrics.request(n, operation, took, null);
              if (countRead) {
                metrics.reads(n, value == null ? 0 : 1, value == null ? 1 : 0);
              }
              return finish.apply(value);
            });
  }

  private ShardwiseException asShardwise(int node, Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof ShardwiseException) {
      return (ShardwiseException) cause;
    }
    Node n = topology.nodes.get(node);
    if (cause instanceof TimeoutException) {
      return new NodeTimeoutException(n, timeout, cause);
    }
    String message = cause.getMessage();
    return new NodeException(
        n, message == null || message.isBlank() ? cause.getClass().getSimpleName() : message, cause);
  }

  private V decodeOrNull(CachedValue stored) {
    return stored == null ? null : codec.decode(stored);
  }

  private CachedValue encode(String key, V value) {
    if (value == null) {
      throw new IllegalArgumentException(
          "values must not be null (use delete to remove a key): " + KeyRules.shorten(key));
    }
    CachedValue encoded = codec.encode(value);
    if (encoded.length() > maxValueBytes) {
      throw new IllegalArgumentException(
          "values are at most "
              + maxValueBytes
              + " bytes after encoding; got "
              + encoded.length()
              + " for "
              + KeyRules.shorten(key));
    }
    return encoded;
  }

  private static void checkTtl(Duration ttl) {
    if (ttl == null) {
      throw new IllegalArgumentException("ttl must not be null; use Duration.ZERO for no expiry");
    }
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must be >= 0 but was " + ttl);
    }
  }

  private static long checkDelta(long delta) {
    if (delta < 0) {
      throw new IllegalArgumentException("delta must be >= 0 but was " + delta);
    }
    return delta;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(description + " is closed");
    }
  }

  // ---- the rest of the interface -------------------------------------------------------------

  @Override
  public List<Node> nodes() {
    return topology.nodes;
  }

  @Override
  public Node nodeFor(String key) {
    keyRules.validate(key);
    return topology.nodes.get(topology.primary(key));
  }

  @Override
  public Map<Node, NodeState> nodeStates() {
    return health.states();
  }

  @Override
  public Map<Node, NodeStatus> nodeStatus() {
    return health.status();
  }

  @Override
  public LoadReport loadReport() {
    if (bounded == null) {
      List<LoadReport.NodeLoad> lines = new ArrayList<>();
      for (Node n : topology.nodes) {
        lines.add(new LoadReport.NodeLoad(n, 0, 0, 0, 0));
      }
      return new LoadReport(false, 0, lines, Map.of());
    }
    return bounded.report(topology.nodes);
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
    for (NodeConnection c : topology.connections) {
      try {
        c.close();
      } catch (RuntimeException e) {
        first = first == null ? e : first;
      }
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
    return description;
  }
}
