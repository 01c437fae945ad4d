package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.ReplicaMoves;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Executes setMulti and deleteMulti of keys stored on N replicas ({@link Routes}), for
 * {@link ReplicaWrites}: every key is planned as a single write of it is, all under one fence, and
 * the keys are grouped by replica: one batch per node ({@link MultiWrites#storeOn}, {@link
 * MultiWrites#deleteOn}). A replica that is out gets the key in its journal; a replica whose batch
 * failed for the key gets its copy marked old; the keys with no replica available go where the
 * failure mode sends them ({@link MultiWrites}). Every key's outcome is decided over the replicas
 * it was sent to, as a single write's is.
 */
final class ReplicaMultiWrites {

  private final Requests requests;
  private final Routes routes;
  private final Failback failback;
  private final MultiWrites multiWrites;
  private final Writes writes;
  private final Repairs repairs;

  ReplicaMultiWrites(
      Requests requests, Routes routes, Failback failback, MultiWrites multiWrites, Writes writes, Repairs repairs) {
    this.writes = writes;
    this.repairs = repairs;
    this.requests = requests;
    this.routes = routes;
    this.failback = failback;
    this.multiWrites = multiWrites;
  }

  /**
   * Stores {@code encoded} on every available replica of each key; releases {@code t} when done. On
   * a topology with a history, or while warm-up copies are under way, the keys that move are
   * written by {@code single} (a set of one key), the others in batches.
   */
  CompletableFuture<MultiResult<Boolean>> setMulti(
      Topology t, Map<String, CachedValue> encoded, Duration ttl, Function<String, CompletableFuture<Boolean>> single) {
    if (t.history.length != 0 || writes.copying()) {
      return moving(t, encoded.keySet(), rest -> setMulti(t, subset(encoded, rest), ttl), single);
    }
    if (t.replicas == 1) {
      return multiWrites.setMulti(t, encoded, ttl); // one replica: the batches of its own route
    }
    return setMulti(t, encoded, ttl);
  }

  private CompletableFuture<MultiResult<Boolean>> setMulti(Topology t, Map<String, CachedValue> encoded, Duration ttl) {
    return multi(
        t,
        encoded.keySet(),
        false,
        (on, keys) -> multiWrites.setMulti(on, subset(encoded, keys), ttl),
        (node, keys) -> multiWrites.storeOn(t, node, keys, encoded, ttl));
  }

  /**
   * Deletes {@code distinct} on every available replica of each key; releases {@code t} when done.
   * The keys that move are deleted by {@code single}, as {@link #setMulti} writes them.
   */
  CompletableFuture<MultiResult<Boolean>> deleteMulti(
      Topology t, Set<String> distinct, Function<String, CompletableFuture<Boolean>> single) {
    if (t.history.length != 0 || writes.copying()) {
      return moving(t, distinct, rest -> deleteMulti(t, new LinkedHashSet<>(rest)), single);
    }
    if (t.replicas == 1) {
      return multiWrites.deleteMulti(t, distinct); // one replica: the batches of its own route
    }
    return deleteMulti(t, distinct);
  }

  private CompletableFuture<MultiResult<Boolean>> deleteMulti(Topology t, Set<String> distinct) {
    return multi(
        t,
        distinct,
        true,
        (on, keys) -> multiWrites.deleteMulti(on, new LinkedHashSet<>(keys)),
        (node, keys) -> multiWrites.deleteOn(t, node, keys));
  }

  /** Sends the keys of a multi-key write that found no replica available where the failure mode says. */
  @FunctionalInterface
  private interface Elsewhere {
    CompletableFuture<MultiResult<Boolean>> send(Topology t, List<String> keys);
  }

  /**
   * Sends one node's batch of a multi-key write; the node's reply has a value for each key whose
   * write it confirmed: {@code true} for a set, whether the key existed for a delete.
   */
  @FunctionalInterface
  private interface NodeBatch {
    CompletableFuture<NodeReply<Boolean>> send(int node, List<String> keys);
  }

  /**
   * A multi-key write of {@code keys} on {@code t} ({@code removes}: a deleteMulti); releases
   * {@code t} when done. With repair on, every key's generation moves before the batches are sent,
   * and each key's write ends as {@link Writes#afterReplicatedWrite} says.
   */
  private CompletableFuture<MultiResult<Boolean>> multi(
      Topology t, Collection<String> keys, boolean removes, Elsewhere elsewhere, NodeBatch batch) {
    CompletableFuture<MultiResult<Boolean>> f;
    try {
      long[] generations = null;
      if (repairs.enabled(t)) {
        generations = new long[keys.size()];
        int i = 0;
        for (String key : keys) {
          generations[i++] = writes.bump(key);
        }
      }
      f = multiRouted(t, keys, elsewhere, batch);
      if (generations != null) {
        f = healed(t, keys, removes, generations, f);
      }
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

  /**
   * {@code written}, each key's write ended as {@link Writes#afterReplicatedWrite} says: a key whose
   * racing repair copy could not be undone or deleted fails with the reason.
   */
  private CompletableFuture<MultiResult<Boolean>> healed(
      Topology t, Collection<String> keys, boolean removes, long[] generations, CompletableFuture<MultiResult<Boolean>> written) {
    return written.thenCompose(
        result -> {
          Map<String, ShardwiseException> failed = new java.util.concurrent.ConcurrentHashMap<>();
          List<CompletableFuture<Void>> waits = null;
          int[] replicas = removes ? new int[t.replicas] : null;
          int i = 0;
          for (String key : keys) {
            Member[] owners = removes ? replicasOf(t, key, replicas) : NO_MEMBERS;
            CompletableFuture<Void> copies = writes.afterReplicatedWrite(key, generations[i++], owners);
            if (copies != null) {
              if (waits == null) {
                waits = new ArrayList<>();
              }
              waits.add(copies.handle((x, failure) -> {
                if (failure != null) {
                  failed.put(key, Requests.unwrap(failure));
                }
                return null;
              }));
            }
          }
          if (waits == null) {
            return CompletableFuture.completedFuture(result);
          }
          return Requests.allOf(waits).thenApply(x -> failed.isEmpty() ? result : withErrors(result, failed));
        });
  }

  private static final Member[] NO_MEMBERS = new Member[0];

  /** The members that are {@code key}'s replicas on {@code t}. */
  private static Member[] replicasOf(Topology t, String key, int[] scratch) {
    int count = t.router.replicas(t.hash(key), t.replicas, scratch);
    Member[] out = new Member[count];
    for (int i = 0; i < count; i++) {
      out[i] = t.members[scratch[i]];
    }
    return out;
  }

  private CompletableFuture<MultiResult<Boolean>> multiRouted(
      Topology t, Collection<String> keys, Elsewhere elsewhere, NodeBatch batch) {
    Map<String, ShardwiseException> refused = new HashMap<>();
    List<String> noReplica = new ArrayList<>();
    List<List<String>> byNode = new ArrayList<>(java.util.Collections.nCopies(t.members.length, null));
    Map<String, int[]> targetsOf = new HashMap<>();
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    Map<Integer, NodeReply<Boolean>> replies = new java.util.concurrent.ConcurrentHashMap<>();
    CompletableFuture<MultiResult<Boolean>> other;
    try (Fence fence = failback.fence()) {
      for (String key : keys) {
        long hash = t.hash(key);
        int[] targets = null;
        for (int attempt = 0; attempt <= t.replicas && targets == null; attempt++) {
          Routes.Plan p = routes.plan(t, key, hash);
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
                  } else {
                    MultiWrites.copyOutcome(fallback, key, result);
                  }
                  continue;
                }
                outcome(t, key, targets, replies, result);
              }
              return result.build();
            });
  }

  /**
   * One key's outcome over the replicas it was sent to, as a single write's outcome is decided
   * ({@link ReplicaWrites}).
   */
  private void outcome(
      Topology t, String key, int[] targets, Map<Integer, NodeReply<Boolean>> replies, MultiResult.Builder<Boolean> result) {
    Boolean value = null;
    ShardwiseException first = null;
    ShardwiseException unmarked = null;
    for (int node : targets) {
      NodeReply<Boolean> reply = replies.get(node);
      if (reply.confirmed(key)) {
        Boolean written = reply.replies().get(key);
        value = value == null ? written : Boolean.valueOf(value || written);
        continue;
      }
      ShardwiseException e = multiWrites.notWritten(t.members[node], reply, key);
      if (first == null) {
        first = e;
      }
      if (t.replicated && !failback.markFailedCopy(t.members[node], key) && unmarked == null) {
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

  /**
   * A multi-key write on a topology with a history, or while warm-up copies are under way: the keys
   * whose route reads or deletes elsewhere (a change settling or warming) are written one by one,
   * as a single write of each is; the others in batches per replica, with the marks of a key on its
   * remembered former replicas recorded first (a write confirmed on a marked node clears its mark).
   * While copies are under way the write waits for those of its keys. Releases {@code t} when done.
   */
  private CompletableFuture<MultiResult<Boolean>> moving(
      Topology t,
      Collection<String> keys,
      Function<List<String>, CompletableFuture<MultiResult<Boolean>>> batch,
      Function<String, CompletableFuture<Boolean>> single) {
    boolean copying = writes.copying();
    Map<String, CompletableFuture<Boolean>> own = new LinkedHashMap<>();
    List<String> rest = new ArrayList<>(keys.size());
    // Keys of the batch that moved in a change only remembered: a read routed while that change was
    // still warming may be about to copy; their generation moves before they are sent, and they
    // wait for their copies under way once written (see WarmUp).
    List<String> moved = new ArrayList<>();
    CompletableFuture<MultiResult<Boolean>> batched;
    try {
      long now = System.nanoTime();
      for (String key : keys) {
        ReplicaMoves.Move move = ReplicaMoves.route(t, key, now);
        if (move == null || move.plain(t)) {
          rest.add(key);
        } else if (move.sources.length == 0 && move.clears.length == 0 && move.arrived.length == 0 && !move.settling(t)) {
          for (Member former : move.formerOwners) {
            failback.markOldCopy(former, key, null);
          }
          writes.bump(key);
          rest.add(key);
          moved.add(key);
        } else {
          own.put(key, null);
        }
      }
      for (String key : own.keySet()) {
        t.active.increment(); // released by the single write
        CompletableFuture<Boolean> f;
        try {
          f = single.apply(key);
        } catch (RuntimeException e) {
          f = CompletableFuture.failedFuture(e);
        }
        own.put(key, f);
      }
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    if (rest.isEmpty()) {
      t.exit();
      batched = CompletableFuture.completedFuture(MultiResult.of(Map.of(), Set.of(), Map.of()));
    } else {
      batched = batch.apply(rest); // releases t
      if (copying || !moved.isEmpty()) {
        List<String> waiting = copying ? rest : moved;
        CompletableFuture<MultiResult<Boolean>> sent = batched;
        Map<String, ShardwiseException> failedWaits = new java.util.concurrent.ConcurrentHashMap<>();
        batched =
            sent.handle((r, x) -> (Void) null)
                .thenCompose(
                    x -> {
                      List<CompletableFuture<Void>> waits = new ArrayList<>(waiting.size());
                      for (String k : waiting) {
                        waits.add(
                            writes
                                .afterWarmUpWrite(k)
                                .handle(
                                    (r, failure) -> {
                                      if (failure != null) {
                                        failedWaits.put(k, Requests.unwrap(failure)); // the key alone fails
                                      }
                                      return null;
                                    }));
                      }
                      return Requests.allOf(waits);
                    })
                .thenCompose(x -> sent.thenApply(r -> failedWaits.isEmpty() ? r : withErrors(r, failedWaits)));
      }
    }
    List<CompletableFuture<?>> all = new ArrayList<>(own.values());
    all.add(batched);
    CompletableFuture<MultiResult<Boolean>> rounds = batched;
    return Requests.allOf(all)
        .handle((x, y) -> (Void) null)
        .thenCompose(
            x -> {
              MultiResult<Boolean> part;
              try {
                part = rounds.join();
              } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e.getCause() != null ? e.getCause() : e);
              }
              MultiResult.Builder<Boolean> result = MultiResult.builder(keys.size());
              for (String key : keys) {
                CompletableFuture<Boolean> f = own.get(key);
                if (f == null) {
                  MultiWrites.copyOutcome(part, key, result);
                  continue;
                }
                Throwable failure = f.handle((v, e) -> e).join();
                if (failure != null) {
                  result.error(key, requests.asShardwise(t.members[t.primary(key)], failure));
                } else {
                  result.hit(key, f.join());
                }
              }
              return CompletableFuture.completedFuture(result.build());
            });
  }

  /** {@code result} with the keys of {@code failed} failed as given. */
  private static MultiResult<Boolean> withErrors(MultiResult<Boolean> result, Map<String, ShardwiseException> failed) {
    MultiResult.Builder<Boolean> out = MultiResult.builder(result.values().size());
    result.values().forEach((k, v) -> {
      ShardwiseException e = failed.get(k);
      if (e == null) {
        out.hit(k, v);
      } else {
        out.error(k, e);
      }
    });
    result.misses().forEach(out::miss);
    result.errors().forEach(out::error);
    return out.build();
  }

  private static Map<String, CachedValue> subset(Map<String, CachedValue> encoded, List<String> keys) {
    Map<String, CachedValue> out = new LinkedHashMap<>();
    for (String key : keys) {
      out.put(key, encoded.get(key));
    }
    return out;
  }
}
