package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.spill.BoundedReads;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Executes getMulti: every key is routed as a single read is ({@link Routes#readNode}, {@link
 * Routes#spillNode}, {@link MovedKeys}), and the keys are grouped by the step they go to: one
 * request per node for the first step, then, for bounded loads, one per primary for the spilled
 * keys that found no copy, and for keys of a change still being taken over, one per source node
 * and round for the keys that missed. Every key's outcome is what happened to that key.
 */
public final class MultiGets<V> {

  private final Requests requests;
  private final Routes routes;
  private final WarmUp warmUp;
  private final ClientMetrics metrics;
  private final ValueCodec<V> codec;
  private final MovingGets<V> moving;

  public MultiGets(Requests requests, Routes routes, WarmUp warmUp, ClientMetrics metrics, ValueCodec<V> codec) {
    this.requests = requests;
    this.routes = routes;
    this.warmUp = warmUp;
    this.metrics = metrics;
    this.codec = codec;
    this.moving = new MovingGets<>(this, requests, warmUp, codec);
  }

  /**
   * Sends the first requests of a getMulti of {@code distinct} on {@code t}, which the caller
   * counted itself on and which is released when the getMulti is done, and returns at once.
   */
  public PendingGetMulti<V> start(Topology t, Set<String> distinct) {
    PendingGetMulti<V> pending;
    try {
      pending = t.readsHistory() ? moving.start(t, distinct, System.nanoTime()) : plain(t, distinct);
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    pending.done.whenComplete((x, y) -> t.exit());
    return pending;
  }

  /**
   * The keys of one getMulti on one topology, grouped by the node each is read on: its route's first
   * step ({@link Routes#readNode}, or the spill node under bounded loads); keys with no node are
   * already errors.
   */
  private final class ReadPlan {
    final Topology t;
    final List<List<String>> byNode = new ArrayList<>();
    /**
     * The node of each key, in the order the keys were given; {@link Routes#NONE} if none, {@link
     * Routes#OLD_COPY} for a read answered as a miss because the only copy left may be old.
     */
    final int[] nodeOf;
    final Map<String, ShardwiseException> unavailable = new LinkedHashMap<>();
    /** Reads spilled away from their over-cap primary: key -> primary. */
    final Map<String, Integer> spilledReads = new HashMap<>();

    ReadPlan(Topology t, Collection<String> keys) {
      this.t = t;
      int n = t.nodes.size();
      for (int i = 0; i < n; i++) {
        byNode.add(null);
      }
      nodeOf = new int[keys.size()];
      int index = 0;
      for (String key : keys) {
        long hash = t.hash(key);
        nodeOf[index++] = route(key, hash, t.router.primary(hash));
      }
    }

    private int route(String key, long hash, int primary) {
      int spill = Routes.spillNode(t, key, hash, primary);
      if (spill >= 0) {
        metrics.redirected(t.nodes.get(primary), t.nodes.get(spill), "spill");
        spilledReads.put(key, primary);
        return add(spill, key);
      }
      int node = routes.readNode(t, hash, primary, key);
      if (node == Routes.NONE) {
        unavailable.put(key, routes.unavailable(t, primary, key));
        return node;
      }
      if (node == Routes.OLD_COPY) {
        metrics.oldCopySkipped(t.nodes.get(routes.select(t, hash, primary)));
        return node;
      }
      if (node != primary) {
        metrics.redirected(t.nodes.get(primary), t.nodes.get(node), "failover");
      }
      return add(node, key);
    }

    private int add(int node, String key) {
      List<String> list = byNode.get(node);
      if (list == null) {
        // Twice a node's fair share: one growth at most for most batches.
        list = new ArrayList<>(Math.max(10, 2 * nodeOf.length / byNode.size()));
        byNode.set(node, list);
      }
      list.add(key);
      return node;
    }
  }

  /**
   * Sends one getMulti request per node of {@code t} (in parts, for a node with more keys than the
   * batch size: {@link Requests#inParts}), and returns at once.
   */
  PendingGetMulti<V> plain(Topology t, Set<String> distinct) {
    ReadPlan plan = new ReadPlan(t, distinct);
    // Per node, its reply; read once all parts are done.
    @SuppressWarnings({"unchecked", "rawtypes"})
    NodeReply<CachedValue>[] replies = new NodeReply[plan.byNode.size()];
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (int i = 0; i < plan.byNode.size(); i++) {
      List<String> nodeKeys = plan.byNode.get(i);
      if (nodeKeys == null) {
        continue;
      }
      int node = i;
      parts.add(
          requests.inParts(t.members[node], nodeKeys, null, true, keys -> requests.send(t, node, "getMulti", c -> c.getMulti(keys)))
              .thenAccept(
                  reply -> {
                    int answered = nodeKeys.size() - reply.failedCount(nodeKeys.size());
                    if (answered > 0) {
                      int hits = reply.replies().size();
                      metrics.reads(t.nodes.get(node), hits, answered - hits);
                    }
                    replies[node] = reply;
                  }));
    }
    if (plan.spilledReads.isEmpty()) {
      return new PendingGetMulti<>(Requests.allOf(parts), () -> assemble(distinct, plan, replies, Map.of()));
    }
    Map<String, Object> secondRound = new ConcurrentHashMap<>();
    return new PendingGetMulti<>(
        Requests.allOf(parts).thenCompose(x -> readSpilledMisses(plan, replies, secondRound)),
        () -> assemble(distinct, plan, replies, secondRound));
  }

  /** A hit of a later round of a getMulti (its value may be null). */
  record SecondRoundHit<T>(T value) {}

  /** A miss of the second round of a bounded getMulti. */
  private static final Object SECOND_ROUND_MISS = new Object();

  /**
   * The result of a getMulti in the caller's key order, built in one pass: each key's outcome is
   * in the reply of its node, unless the second round of a bounded getMulti read it again.
   */
  private MultiResult<V> assemble(
      Set<String> distinct, ReadPlan plan, NodeReply<CachedValue>[] replies, Map<String, Object> secondRound) {
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
      if (node == Routes.NONE) {
        result.error(key, plan.unavailable.get(key));
        continue;
      }
      if (node == Routes.OLD_COPY) {
        result.miss(key);
        continue;
      }
      NodeReply<CachedValue> reply = replies[node];
      Throwable failure = reply.failure(key);
      if (failure != null) {
        result.error(key, requests.asShardwise(plan.t.members[node], failure));
        continue;
      }
      CachedValue cv = reply.replies().get(key);
      if (cv == null) {
        result.miss(key);
        continue;
      }
      V value;
      try {
        value = codec.decode(cv);
      } catch (RuntimeException e) {
        // A value that cannot be decoded is that key's error.
        result.error(key, requests.asShardwise(plan.t.members[node], e));
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
      ReadPlan plan, NodeReply<CachedValue>[] replies, Map<String, Object> secondRound) {
    Map<Integer, List<String>> byPrimary = new LinkedHashMap<>();
    Map<String, Integer> spillNode = new HashMap<>();
    for (int node = 0; node < plan.byNode.size(); node++) {
      List<String> nodeKeys = plan.byNode.get(node);
      if (nodeKeys == null) {
        continue;
      }
      NodeReply<CachedValue> reply = replies[node];
      for (String key : nodeKeys) {
        Integer primary = plan.spilledReads.get(key);
        if (primary != null && (reply.failure(key) != null || !reply.replies().containsKey(key))) {
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
            BoundedReads.Spill spill = plan.t.bounded.spillFor(key);
            if (spill != null) {
              spills.put(key, spill);
              generations.put(key, spill.generation.get());
            }
          }
          parts.add(
              requests
                  .inParts(
                      plan.t.members[primary],
                      keys,
                      null,
                      true,
                      part -> requests.send(plan.t, primary, "getMultiFallback", c -> c.getMulti(part)))
                  .thenAccept(
                      reply -> {
                        for (String key : keys) {
                          Throwable failure = reply.failure(key);
                          if (failure != null) {
                            secondRound.put(key, requests.asShardwise(plan.t.members[primary], failure));
                            continue;
                          }
                          CachedValue cv = reply.replies().get(key);
                          if (cv == null) {
                            secondRound.put(key, SECOND_ROUND_MISS);
                            continue;
                          }
                          try {
                            secondRound.put(key, new SecondRoundHit<>(codec.decode(cv)));
                          } catch (RuntimeException e) {
                            secondRound.put(key, requests.asShardwise(plan.t.members[primary], e));
                            continue;
                          }
                          BoundedReads.Spill spill = spills.get(key);
                          if (spill != null) {
                            plan.t.bounded.leaveCopy(
                                spill, generations.get(key), key, plan.t.members[spillNode.get(key)], cv, requests);
                          }
                        }
                      }));
        });
    return Requests.allOf(parts);
  }
}
