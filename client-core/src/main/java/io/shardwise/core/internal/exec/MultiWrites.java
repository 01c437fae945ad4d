package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.DirtyCopies;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.ReplicaMoves;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * setMulti and deleteMulti of keys routed one node each: every key goes to its node, or through the
 * fence to the next node of its order while that is out ({@link WritePlan}), and the keys are
 * grouped by the node they go to: one batch per node, and one more per node for the keys redirected
 * there (they carry the failover TTL). {@link ReplicaMultiWrites} sends a batch of keys stored on
 * one replica here whole, and the keys whose replicas are all out; it sends its own batches through
 * {@link #storeOn} and {@link #deleteOn}. Every key's outcome is what happened to that key.
 */
public final class MultiWrites {

  private final Requests requests;
  private final Routes routes;
  private final Failback failback;
  private final Writes writes;

  public MultiWrites(Requests requests, Routes routes, Failback failback, Writes writes) {
    this.requests = requests;
    this.routes = routes;
    this.failback = failback;
    this.writes = writes;
  }

  /**
   * Stores {@code encoded} with {@code ttl} on {@code t}, which the caller counted itself on and
   * which is released when the write is done.
   */
  public CompletableFuture<MultiResult<Boolean>> setMulti(Topology t, Map<String, CachedValue> encoded, Duration ttl) {
    Map<String, Boolean> stored = new HashMap<>();
    Map<String, ShardwiseException> errors = new LinkedHashMap<>();
    return run(t, encoded.keySet(), () -> storeAll(t, encoded.keySet(), encoded, ttl, stored, errors), stored, errors);
  }

  /** Deletes {@code distinct} on {@code t}, as {@link #setMulti} stores. */
  public CompletableFuture<MultiResult<Boolean>> deleteMulti(Topology t, Set<String> distinct) {
    Map<String, Boolean> deleted = new HashMap<>();
    Map<String, ShardwiseException> errors = new LinkedHashMap<>();
    return run(t, distinct, () -> deleteAll(t, distinct, deleted, errors), deleted, errors);
  }

  /**
   * Runs a multi-key write of {@code keys} on {@code t} ({@code batches} sends it) and releases
   * {@code t} when it is done. With bounded loads the result waits for the spilled copies to be gone.
   */
  private CompletableFuture<MultiResult<Boolean>> run(
      Topology t,
      Collection<String> keys,
      java.util.function.Supplier<CompletableFuture<Void>> batches,
      Map<String, Boolean> results,
      Map<String, ShardwiseException> errors) {
    CompletableFuture<MultiResult<Boolean>> f;
    try {
      CompletableFuture<MultiResult<Boolean>> result = batches.get().thenApply(x -> ordered(keys, results, errors));
      f = t.bounded == null ? result : t.bounded.afterWrites(keys, result, requests, (k, m) -> ReplicaMoves.holds(t, k, m));
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((r, x) -> t.exit());
    return f;
  }

  /**
   * Stores {@code keys} on topology {@code t}: one batch per node, and one per node for redirected
   * keys (with the failover TTL).
   */
  private CompletableFuture<Void> storeAll(
      Topology t,
      Collection<String> keys,
      Map<String, CachedValue> encoded,
      Duration ttl,
      Map<String, Boolean> stored,
      Map<String, ShardwiseException> errors) {
    Duration capped = failback.cap(ttl);
    return planned(
        t, keys, stored, errors, (node, batch, redirected) -> storeBatch(t, node, batch, encoded, redirected ? capped : ttl, stored, errors));
  }

  /** One setMulti batch to one node; each key's outcome goes to {@code stored} or {@code errors}. */
  private CompletableFuture<Void> storeBatch(
      Topology t,
      int node,
      List<String> nodeKeys,
      Map<String, CachedValue> encoded,
      Duration ttl,
      Map<String, Boolean> stored,
      Map<String, ShardwiseException> errors) {
    if (nodeKeys == null) {
      return CompletableFuture.completedFuture(null);
    }
    return storeOn(t, node, nodeKeys, encoded, ttl)
        .thenAccept(
            reply -> {
              synchronized (stored) {
                for (String key : nodeKeys) {
                  if (reply.confirmed(key)) {
                    stored.put(key, Boolean.TRUE);
                  } else {
                    errors.put(key, notWritten(t.members[node], reply, key));
                  }
                }
              }
            });
  }

  /** A setMulti of {@code nodeKeys}' values to one node, in parts; what its reply says of each key. */
  CompletableFuture<NodeReply<Boolean>> storeOn(
      Topology t, int node, List<String> nodeKeys, Map<String, CachedValue> encoded, Duration ttl) {
    return sendBatch(
        t,
        node,
        nodeKeys,
        "setMulti",
        true,
        key -> encoded.get(key).length(),
        part -> {
          Map<String, CachedValue> batch = new LinkedHashMap<>();
          for (String key : part) {
            batch.put(key, encoded.get(key));
          }
          return c -> c.setMulti(batch, ttl);
        });
  }

  /** A deleteMulti of {@code nodeKeys} on one node, in parts; what its reply says of each key. */
  CompletableFuture<NodeReply<Boolean>> deleteOn(Topology t, int node, List<String> nodeKeys) {
    return sendBatch(t, node, nodeKeys, "deleteMulti", false, null, part -> c -> c.deleteMulti(part));
  }

  /** Why the write of {@code key} on {@code m} is not confirmed by {@code reply} ({@link NodeReply#unconfirmed}). */
  ShardwiseException notWritten(Member m, NodeReply<?> reply, String key) {
    return requests.asShardwise(m, reply.unconfirmed(key, m.node));
  }

  /** Deletes {@code keys} on topology {@code t}, one batch per node. */
  private CompletableFuture<Void> deleteAll(
      Topology t, Collection<String> keys, Map<String, Boolean> deleted, Map<String, ShardwiseException> errors) {
    return planned(t, keys, deleted, errors, (node, batch, redirected) -> deleteBatch(t, node, batch, deleted, errors));
  }

  /** Sends one batch of a multi-key write to one node; {@code redirected}: its keys' own node is out. */
  @FunctionalInterface
  private interface Batch {
    CompletableFuture<Void> send(int node, List<String> keys, boolean redirected);
  }

  /**
   * Routes {@code keys} on {@code t} under one fence ({@link WritePlan}), notes the keys with no
   * node in {@code errors} (under the lock of {@code results}), and sends each node's batches, held
   * in the fence until they are handed over.
   */
  private CompletableFuture<Void> planned(
      Topology t, Collection<String> keys, Map<String, Boolean> results, Map<String, ShardwiseException> errors, Batch batch) {
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    try (Fence fence = failback.fence()) {
      WritePlan plan = new WritePlan(t, keys, fence, routes, writes);
      synchronized (results) {
        errors.putAll(plan.unavailable);
      }
      for (int i = 0; i < plan.byNode.size(); i++) {
        if (plan.byNode.get(i) != null) {
          parts.add(batch.send(i, plan.byNode.get(i), false));
        }
        if (plan.redirectedByNode.get(i) != null) {
          parts.add(batch.send(i, plan.redirectedByNode.get(i), true));
        }
      }
    }
    return Requests.allOf(parts);
  }

  /** One deleteMulti batch to one node; each key's outcome goes to {@code deleted} or {@code errors}. */
  private CompletableFuture<Void> deleteBatch(
      Topology t, int node, List<String> nodeKeys, Map<String, Boolean> deleted, Map<String, ShardwiseException> errors) {
    if (nodeKeys == null) {
      return CompletableFuture.completedFuture(null);
    }
    return deleteOn(t, node, nodeKeys)
        .thenAccept(
            reply -> {
              synchronized (deleted) {
                for (String key : nodeKeys) {
                  if (reply.confirmed(key)) {
                    deleted.put(key, reply.replies().get(key));
                  } else {
                    errors.put(key, notWritten(t.members[node], reply, key));
                  }
                }
              }
            });
  }

  /**
   * Sends a batch write (set or delete: each leaves no older value of its key) to {@code node}, in
   * parts ({@link Requests#inParts}). If some of its keys are marked old there, each part is handed
   * over as {@link Writes} hands over a write of one such key: in the order of the node's old-copy
   * deletes; the marks of the keys it wrote are cleared once all parts are done.
   *
   * @param repeatable whether a part that timed out on a node that still answers is sent again
   *     ({@link Requests#inParts}): true for a set, which done twice leaves the same value; false
   *     for a delete, whose second reply would call a key it deleted absent
   * @param bytes the size of each key's value, or null
   * @param opFor the request of one part
   */
  private <X> CompletableFuture<NodeReply<X>> sendBatch(
      Topology t,
      int node,
      List<String> keys,
      String operation,
      boolean repeatable,
      ToIntFunction<String> bytes,
      Function<List<String>, Function<NodeConnection, CompletableFuture<BatchReply<X>>>> opFor) {
    Member member = t.members[node];
    DirtyCopies dirty = member.oldCopies();
    Map<String, Long> marked = null; // only when the node has old copies: most batches need none
    if (!dirty.isEmpty()) {
      for (String key : keys) {
        Long stamp = dirty.stamp(key);
        if (stamp != null) {
          if (marked == null) {
            marked = new HashMap<>();
          }
          marked.put(key, stamp);
        }
      }
    }
    if (marked == null) {
      return requests.inParts(member, keys, bytes, repeatable, part -> requests.send(t, node, operation, opFor.apply(part)));
    }
    Map<String, Long> cleared = marked;
    return requests
        .inParts(member, keys, bytes, repeatable, part -> dirty.handOff(() -> requests.send(t, node, operation, opFor.apply(part))))
        .whenComplete(
            (reply, x) ->
                cleared.forEach(
                    (key, stamp) -> {
                      if (reply.confirmed(key)) {
                        dirty.cleared(key, stamp);
                      }
                    }));
  }

  /** A result whose parts iterate in the order the caller gave the keys. */
  private static <T> MultiResult<T> ordered(Collection<String> keys, Map<String, T> values, Map<String, ShardwiseException> errors) {
    Map<String, T> v = new LinkedHashMap<>();
    Map<String, ShardwiseException> e = new LinkedHashMap<>();
    for (String key : keys) {
      if (values.containsKey(key)) {
        v.put(key, values.get(key));
      } else {
        e.put(key, errors.containsKey(key) ? errors.get(key) : noOutcome(key));
      }
    }
    return MultiResult.of(v, Set.of(), e);
  }

  /**
   * Puts the outcome {@code from} has for {@code key} into {@code into}; a key {@code from} left out
   * fails: its write is not known to be done.
   */
  static void copyOutcome(MultiResult<Boolean> from, String key, MultiResult.Builder<Boolean> into) {
    if (from.values().containsKey(key)) {
      into.hit(key, from.values().get(key));
    } else {
      into.error(key, from.errors().containsKey(key) ? from.errors().get(key) : noOutcome(key));
    }
  }

  private static ShardwiseException noOutcome(String key) {
    return new ShardwiseException("no outcome was recorded for " + KeyRules.shorten(key) + ": it is not known to be written");
  }

}
