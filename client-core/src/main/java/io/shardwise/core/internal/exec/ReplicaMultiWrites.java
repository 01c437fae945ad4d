package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.route.ReplicaMoves;
import io.shardwise.core.internal.route.ReplicaRoutes;
import io.shardwise.core.internal.route.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Executes setMulti and deleteMulti of keys stored on N replicas ({@link ReplicaRoutes}), for
 * {@link ReplicaWrites}: every key is planned as a single write of it is, all under one fence, and
 * the keys are grouped by replica: one batch per node ({@link MultiWrites#storeOn}, {@link
 * MultiWrites#deleteOn}). A replica that is out gets the key in its journal; a replica whose batch
 * failed for the key gets its copy marked old; the keys with no replica available go where the
 * failure mode sends them ({@link MultiWrites}). Every key's outcome is decided over the replicas
 * it was sent to, as a single write's is.
 */
final class ReplicaMultiWrites {

  private final Requests requests;
  private final ReplicaRoutes routes;
  private final Failback failback;
  private final MultiWrites multiWrites;

  ReplicaMultiWrites(Requests requests, ReplicaRoutes routes, Failback failback, MultiWrites multiWrites) {
    this.requests = requests;
    this.routes = routes;
    this.failback = failback;
    this.multiWrites = multiWrites;
  }

  /** Stores {@code encoded} on every available replica of each key; releases {@code t} when done. */
  CompletableFuture<MultiResult<Boolean>> setMulti(Topology t, Map<String, CachedValue> encoded, Duration ttl) {
    return multi(
        t,
        encoded.keySet(),
        (on, keys) -> multiWrites.setMulti(on, subset(encoded, keys), ttl),
        (node, keys) -> multiWrites.storeOn(t, node, keys, encoded, ttl),
        (reply, key) -> {
          Throwable failure = reply.failure(key);
          return failure != null ? failure : reply.replies().get(key);
        },
        (reply, key) -> Boolean.TRUE);
  }

  /** Deletes {@code distinct} on every available replica of each key; releases {@code t} when done. */
  CompletableFuture<MultiResult<Boolean>> deleteMulti(Topology t, Set<String> distinct) {
    return multi(
        t,
        distinct,
        (on, keys) -> multiWrites.deleteMulti(on, Set.copyOf(keys)),
        (node, keys) -> multiWrites.deleteOn(t, node, keys),
        (reply, key) -> {
          Throwable failure = reply.failure(key);
          if (failure != null) {
            return failure;
          }
          return reply.replies().get(key) != null ? null : NOT_DELETED;
        },
        (reply, key) -> reply.replies().get(key));
  }

  /** A key of a deleteMulti whose own delete failed on a node, the rest of its batch going through. */
  private static final Throwable NOT_DELETED = new IllegalStateException("not deleted");

  /** Sends the keys of a multi-key write that found no replica available where the failure mode says. */
  @FunctionalInterface
  private interface Elsewhere {
    CompletableFuture<MultiResult<Boolean>> send(Topology t, List<String> keys);
  }

  /** Sends one node's batch of a multi-key write. */
  @FunctionalInterface
  private interface NodeBatch<X> {
    CompletableFuture<NodeReply<X>> send(int node, List<String> keys);
  }

  /** Why a key of a batch reply was not written (null if it was). */
  @FunctionalInterface
  private interface KeyFailure<X> {
    Throwable of(NodeReply<X> reply, String key);
  }

  /** What a batch reply says of a key written. */
  @FunctionalInterface
  private interface KeyResult<X> {
    Boolean of(NodeReply<X> reply, String key);
  }

  private <X> CompletableFuture<MultiResult<Boolean>> multi(
      Topology t,
      Collection<String> keys,
      Elsewhere elsewhere,
      NodeBatch<X> batch,
      KeyFailure<X> keyFailure,
      KeyResult<X> keyResult) {
    CompletableFuture<MultiResult<Boolean>> f;
    try {
      f = multiRouted(t, keys, elsewhere, batch, keyFailure, keyResult);
      if (t.bounded != null) {
        f = t.bounded.afterWrites(keys, f, requests, (k, m) -> ReplicaMoves.holds(t, k, m)); // done once the copies spilled reads left are gone
      }
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((r, x) -> t.exit());
    return f;
  }

  private <X> CompletableFuture<MultiResult<Boolean>> multiRouted(
      Topology t,
      Collection<String> keys,
      Elsewhere elsewhere,
      NodeBatch<X> batch,
      KeyFailure<X> keyFailure,
      KeyResult<X> keyResult) {
    Map<String, ShardwiseException> refused = new HashMap<>();
    List<String> noReplica = new ArrayList<>();
    List<List<String>> byNode = new ArrayList<>(java.util.Collections.nCopies(t.members.length, null));
    Map<String, int[]> targetsOf = new HashMap<>();
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    Map<Integer, NodeReply<X>> replies = new java.util.concurrent.ConcurrentHashMap<>();
    CompletableFuture<MultiResult<Boolean>> other;
    try (Fence fence = failback.fence()) {
      for (String key : keys) {
        long hash = t.hash(key);
        int[] targets = null;
        for (int attempt = 0; attempt <= t.replicas && targets == null; attempt++) {
          ReplicaRoutes.Plan p = routes.plan(t, key, hash);
          if (p.outCount > 0) {
            if (!fence.enter(t.members, p.out, p.outCount)) {
              continue;
            }
            if (p.writeCount == 0) {
              noReplica.add(key); // every replica out, and kept out by the fences held
              break;
            }
            NodeUnavailableException full = fence.recordMissed(t.members, key, p.out, p.outCount);
            if (full != null) {
              refused.put(key, full);
              break;
            }
          }
          targets = Arrays.copyOf(p.writes, p.writeCount);
        }
        if (targets == null) {
          if (!refused.containsKey(key) && !noReplica.contains(key)) {
            refused.put(key, new NodeUnavailableException(t.members[t.primary(key)].node, "its replicas kept coming back while it was routed"));
          }
          continue;
        }
        targetsOf.put(key, targets);
        for (int node : targets) {
          List<String> list = byNode.get(node);
          if (list == null) {
            list = new ArrayList<>();
            byNode.set(node, list);
          }
          list.add(key);
        }
      }
      // Handed to the connections inside the fence, as a single write is.
      for (int i = 0; i < byNode.size(); i++) {
        List<String> nodeKeys = byNode.get(i);
        if (nodeKeys != null) {
          int node = i;
          sent.add(batch.send(node, nodeKeys).thenAccept(reply -> replies.put(node, reply)));
        }
      }
      if (noReplica.isEmpty()) {
        other = CompletableFuture.completedFuture(MultiResult.of(Map.of(), Set.of(), Map.of()));
      } else {
        // Inside the fences of their replicas, which stay out: the failure mode's path journals
        // these keys against them. It releases the topology itself.
        t.active.increment();
        other = elsewhere.send(t, noReplica);
      }
    }
    return Requests.allOf(sent)
        .thenCombine(
            other,
            (x, fallback) -> {
              MultiResult.Builder<Boolean> result = MultiResult.builder(keys.size());
              for (String key : keys) {
                int[] targets = targetsOf.get(key);
                if (targets == null) {
                  ShardwiseException e = refused.get(key);
                  if (e != null) {
                    result.error(key, e);
                  } else if (fallback.errors().containsKey(key)) {
                    result.error(key, fallback.errors().get(key));
                  } else {
                    result.hit(key, fallback.values().get(key));
                  }
                  continue;
                }
                outcome(t, key, targets, replies, keyFailure, keyResult, result);
              }
              return result.build();
            });
  }

  /**
   * One key's outcome over the replicas it was sent to, as a single write's outcome is decided
   * ({@link ReplicaWrites}).
   */
  private <X> void outcome(
      Topology t,
      String key,
      int[] targets,
      Map<Integer, NodeReply<X>> replies,
      KeyFailure<X> keyFailure,
      KeyResult<X> keyResult,
      MultiResult.Builder<Boolean> result) {
    Boolean value = null;
    ShardwiseException first = null;
    ShardwiseException unmarked = null;
    for (int node : targets) {
      NodeReply<X> reply = replies.get(node);
      Throwable failure = keyFailure.of(reply, key);
      if (failure == null) {
        Boolean written = keyResult.of(reply, key);
        value = value == null ? written : Boolean.valueOf(value || Boolean.TRUE.equals(written));
        continue;
      }
      ShardwiseException e =
          failure == NOT_DELETED
              ? new NodeException(
                  t.members[node].node, "the delete of this key failed on the node, while others of the same batch went through", null)
              : requests.asShardwise(t.members[node], failure);
      if (first == null) {
        first = e;
      }
      if (!failback.markFailedCopy(t.members[node], key) && unmarked == null) {
        unmarked = e;
      }
    }
    if (value == null) {
      result.error(key, first);
    } else if (unmarked != null) {
      result.error(key, unmarked);
    } else {
      result.hit(key, value);
    }
  }

  private static Map<String, CachedValue> subset(Map<String, CachedValue> encoded, List<String> keys) {
    Map<String, CachedValue> out = new LinkedHashMap<>();
    for (String key : keys) {
      out.put(key, encoded.get(key));
    }
    return out;
  }
}
