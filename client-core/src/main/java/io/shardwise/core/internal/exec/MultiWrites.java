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
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import java.util.ArrayList;
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
 * Executes setMulti and deleteMulti over the keys' preference lists, for any replica count, for
 * {@link ReplicaWrites}: every key is planned as a single write of it is, all under one fence, and
 * the keys are grouped by the node they go to: one batch per node ({@link NodeBatches}). A replica
 * that is out gets the key in its journal; a replica whose batch failed for the key gets its copy
 * marked old. A key whose replicas are all out goes where the failure mode sends it ({@link
 * Writes#redirect}, journaled against the nodes skipped), in one more batch per node, with the
 * failover TTL. Every key's outcome is decided over the nodes it was sent to, as a single write's
 * is.
 */
final class MultiWrites {

  private final Requests requests;
  private final Routes routes;
  private final Failback failback;
  private final NodeBatches batches;
  private final Writes writes;
  private final Repairs repairs;

  MultiWrites(Requests requests, Routes routes, Failback failback, Writes writes, Repairs repairs) {
    this.writes = writes;
    this.repairs = repairs;
    this.requests = requests;
    this.routes = routes;
    this.failback = failback;
    this.batches = new NodeBatches(requests);
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
    return setMulti(t, encoded, ttl);
  }

  private CompletableFuture<MultiResult<Boolean>> setMulti(Topology t, Map<String, CachedValue> encoded, Duration ttl) {
    Duration capped = failback.cap(ttl);
    return multi(
        t, encoded.keySet(), false, (node, keys, redirected) -> batches.storeOn(t, node, keys, encoded, redirected ? capped : ttl));
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
    return deleteMulti(t, distinct);
  }

  private CompletableFuture<MultiResult<Boolean>> deleteMulti(Topology t, Set<String> distinct) {
    return multi(t, distinct, true, (node, keys, redirected) -> batches.deleteOn(t, node, keys));
  }

  /**
   * Sends one node's batch of a multi-key write ({@code redirected}: keys whose replicas are all
   * out, sent where the failure mode says); the node's reply has a value for each key whose write it
   * confirmed: {@code true} for a set, whether the key existed for a delete.
   */
  @FunctionalInterface
  private interface NodeBatch {
    CompletableFuture<NodeReply<Boolean>> send(int node, List<String> keys, boolean redirected);
  }

  /**
   * A multi-key write of {@code keys} on {@code t} ({@code removes}: a deleteMulti); releases
   * {@code t} when done. With repair on, every key's generation moves before the batches are sent,
   * and each key's write ends as {@link Writes#afterReplicatedWrite} says.
   */
  private CompletableFuture<MultiResult<Boolean>> multi(
      Topology t, Collection<String> keys, boolean removes, NodeBatch batch) {
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
      f = multiRouted(t, keys, batch);
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
          Map<String, CompletableFuture<Void>> waits = new LinkedHashMap<>();
          int[] replicas = removes ? new int[t.replicas] : null;
          int i = 0;
          for (String key : keys) {
            Member[] owners = removes ? replicasOf(t, key, replicas) : NO_MEMBERS;
            CompletableFuture<Void> copies = writes.afterReplicatedWrite(key, generations[i++], owners);
            if (copies != null) {
              waits.put(key, copies);
            }
          }
          return waits.isEmpty() ? written : afterWaits(written, waits);
        });
  }

  /**
   * Once each key's wait in {@code waits} is done, {@code written}'s result, in which a key whose
   * wait failed fails with the reason (the key alone).
   */
  private static CompletableFuture<MultiResult<Boolean>> afterWaits(
      CompletableFuture<MultiResult<Boolean>> written, Map<String, CompletableFuture<Void>> waits) {
    return Requests.allOf(new ArrayList<>(waits.values()))
        .handle((x, y) -> (Void) null)
        .thenCompose(
            x -> written.thenApply(
                result -> {
                  Map<String, ShardwiseException> failed = new LinkedHashMap<>();
                  waits.forEach((key, wait) -> {
                    Throwable failure = Requests.failureOf(wait);
                    if (failure != null) {
                      failed.put(key, Requests.unwrap(failure));
                    }
                  });
                  return failed.isEmpty() ? result : withErrors(result, failed);
                }));
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

  /**
   * Plans each key under one fence, as a single write of it is, and sends one batch per node (and
   * one per node for keys whose replicas are all out), handed to the connections inside the fence.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private CompletableFuture<MultiResult<Boolean>> multiRouted(Topology t, Collection<String> keys, NodeBatch batch) {
    String[] keyOf = keys.toArray(new String[0]);
    int n = keyOf.length;
    int width = t.replicas;
    // Per key, the nodes it is sent to: counts[k] of the row of width entries in targets; 0 when it
    // failed before anything was sent (errors[k]), and -1 for a key sent where the failure mode
    // says, its replicas all out (the row's first entry).
    int[] targets = new int[n * width];
    int[] counts = new int[n];
    ShardwiseException[] errors = null;
    List<String>[][] byNode = new List[2][t.members.length];
    NodeReply<Boolean>[][] replies = new NodeReply[2][t.members.length];
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    try (Fence fence = failback.fence()) {
      for (int k = 0; k < n; k++) {
        ShardwiseException error = null;
        try {
          counts[k] = route(t, keyOf[k], fence, targets, k * width);
        } catch (ShardwiseException e) {
          error = e;
        }
        if (error != null || counts[k] == 0) {
          errors = errors == null ? new ShardwiseException[n] : errors;
          errors[k] = error != null ? error : new NodeUnavailableException(t.members[t.primary(keyOf[k])].node, "its replicas kept coming back while it was routed");
          continue;
        }
        int side = counts[k] < 0 ? 1 : 0;
        for (int i = 0; i < Math.abs(counts[k]); i++) {
          int node = targets[k * width + i];
          if (byNode[side][node] == null) {
            byNode[side][node] = new ArrayList<>(Math.max(10, 2 * n * width / t.members.length));
          }
          byNode[side][node].add(keyOf[k]);
        }
      }
      for (int side = 0; side < 2; side++) {
        for (int i = 0; i < t.members.length; i++) {
          if (byNode[side][i] != null) {
            int node = i;
            NodeReply<Boolean>[] sideReplies = replies[side];
            sent.add(batch.send(node, byNode[side][i], side == 1).thenAccept(reply -> sideReplies[node] = reply));
          }
        }
      }
    }
    ShardwiseException[] failed = errors;
    return Requests.allOf(sent)
        .thenApply(
            x -> {
              MultiResult.Builder<Boolean> result = MultiResult.builder(n);
              for (int k = 0; k < n; k++) {
                if (counts[k] == 0) {
                  result.error(keyOf[k], failed[k]);
                } else {
                  outcome(t, keyOf[k], targets, k * width, counts[k], replies, result);
                }
              }
              return result.build();
            });
  }

  /**
   * Routes {@code key} inside {@code fence}: its write targets into {@code targets} from {@code at},
   * journaled against its replicas that are out; returns how many, or -1 for the one node the failure
   * mode sends it to when every replica is out, or 0 if its replicas kept coming back.
   *
   * @throws ShardwiseException if a journal is full or the failure mode sends the key nowhere
   */
  private int route(Topology t, String key, Fence fence, int[] targets, int at) {
    long hash = t.hash(key);
    for (int attempt = 0; attempt <= t.replicas; attempt++) {
      Routes.Plan p = routes.plan(t, key, hash);
      if (p.outCount > 0) {
        if (!fence.enter(t.members, p.out, p.outCount)) {
          continue;
        }
        if (p.writeCount == 0) {
          // Every replica out, and kept out by the fences held: where the failure mode says.
          int primary = p.replicas[0];
          if (!routes.redistributes()) {
            throw routes.unavailable(t, primary, key);
          }
          targets[at] = writes.redirect(t, key, hash, primary, fence);
          return targets[at] == primary ? 1 : -1;
        }
        NodeUnavailableException full = fence.recordMissed(t.members, key, p.out, p.outCount);
        if (full != null) {
          throw full;
        }
      }
      System.arraycopy(p.writes, 0, targets, at, p.writeCount);
      return p.writeCount;
    }
    return 0;
  }

  /**
   * One key's outcome over the {@code count} nodes it was sent to ({@code -1}: one, where the failure
   * mode sent it), as a single write's outcome is decided ({@link ReplicaWrites}); a replica whose
   * write failed gets its copy marked old.
   */
  private void outcome(
      Topology t, String key, int[] targets, int at, int count, NodeReply<Boolean>[][] replies, MultiResult.Builder<Boolean> result) {
    Boolean value = null;
    ShardwiseException first = null;
    ShardwiseException unmarked = null;
    for (int i = 0; i < Math.abs(count); i++) {
      int node = targets[at + i];
      NodeReply<Boolean> reply = replies[count < 0 ? 1 : 0][node];
      if (reply.confirmed(key)) {
        Boolean written = reply.replies().get(key);
        value = value == null ? written : Boolean.valueOf(value || written);
        continue;
      }
      ShardwiseException e = batches.notWritten(t.members[node], reply, key);
      if (first == null) {
        first = e;
      }
      if (count > 0 && t.replicated && !failback.markFailedCopy(t.members[node], key) && unmarked == null) {
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
        batched =
            sent.handle((r, x) -> (Void) null)
                .thenCompose(
                    x -> {
                      Map<String, CompletableFuture<Void>> waits = new LinkedHashMap<>();
                      for (String k : waiting) {
                        waits.put(k, writes.afterWarmUpWrite(k));
                      }
                      return afterWaits(sent, waits);
                    });
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
                  copyOutcome(part, key, result);
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
