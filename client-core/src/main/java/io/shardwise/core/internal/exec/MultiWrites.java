package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.DirtyCopies;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Moves;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.NodeConnection;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Executes setMulti and deleteMulti over the keys' preference lists, for any replica count, for
 * {@link Writes}: every key is routed as a single write of it is ({@link WriteSteps#targets}), all
 * under one fence, and the keys are grouped by the node they go to: one batch per node, in parts,
 * and one more per node for keys whose replicas are all out, with the failover TTL. A key whose
 * route reads or deletes elsewhere (a change settling or warming) is written by itself. Each key's
 * outcome is decided over what happened to that key alone, by the rule of a single write.
 */
final class MultiWrites {

  /** {@link Run#counts}: a key written by itself ({@link Run#own}). */
  private static final int OWN = Integer.MIN_VALUE;

  private final WriteSteps steps;
  private final Repairs repairs;
  /** Writes a key that moves by itself, as a single write of it. */
  private final Writes single;

  MultiWrites(WriteSteps steps, Repairs repairs, Writes single) {
    this.steps = steps;
    this.repairs = repairs;
    this.single = single;
  }

  /**
   * Stores {@code values} with {@code ttl}, or deletes {@code keys} when {@code values} is null, on
   * every available replica of each key; releases {@code t} when done.
   */
  CompletableFuture<MultiResult<Boolean>> write(Topology t, Collection<String> keys, Map<String, CachedValue> values, Duration ttl) {
    CompletableFuture<MultiResult<Boolean>> f;
    try {
      f = new Run(t, keys.toArray(new String[0]), values, ttl).start();
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((r, x) -> t.exit());
    return f;
  }

  /** One multi-key write on one topology: per key state in flat arrays. */
  private final class Run {
    final Topology t;
    final String[] keys;
    /** The values of a setMulti; null for a deleteMulti (a repair copy racing a delete is deleted again). */
    final Map<String, CachedValue> values;
    final boolean removes;
    final Duration ttl;
    final int width;
    /**
     * Per key, the nodes it is sent to: {@link #counts}[k] of its row of {@link #width}; 0 when it
     * failed before anything was sent ({@link #errors}), -1 for a key sent where the failure mode
     * says, {@link #OWN} for a key written by itself ({@link #own}).
     */
    final int[] targets;
    final int[] counts;
    /**
     * Per key, made when needed: its write when written by itself; whether it waits for the warm-up
     * copies under way; with repair on, the generation its write moved it to before it was sent;
     * its outcome once every batch has answered; what it waits for after that, or null.
     */
    ShardwiseException[] errors;
    CompletableFuture<Boolean>[] own;
    boolean[] warm;
    long[] generations;
    Object[] outcomes;
    CompletableFuture<?>[] waits;
    /** Per side (0: the key's replicas, 1: where the failure mode sent it) and node, its batch's reply. */
    final NodeReply<Boolean>[][] replies;

    @SuppressWarnings({"unchecked", "rawtypes"})
    Run(Topology t, String[] keys, Map<String, CachedValue> values, Duration ttl) {
      this.t = t;
      this.keys = keys;
      this.values = values;
      this.removes = values == null;
      this.ttl = ttl;
      width = t.replicas;
      targets = new int[keys.length * width];
      counts = new int[keys.length];
      replies = new NodeReply[2][t.members.length];
    }

    CompletableFuture<MultiResult<Boolean>> start() {
      List<CompletableFuture<?>> parts = new ArrayList<>();
      List<String> batched = t.history.length != 0 || steps.warmUp.copying() ? moving(parts) : Arrays.asList(keys);
      if (repairs.enabled(t)) {
        // Before anything is sent: a repair copy of an older value read meanwhile is not kept.
        generations = new long[keys.length];
        for (int k = 0; k < keys.length; k++) {
          generations[k] = counts[k] == OWN ? -1 : steps.warmUp.bump(keys[k]);
        }
      }
      // Each key's outcome, and the marks of the replicas that failed it, as soon as every batch
      // has answered, before afterBatches and afterWrites: until its mark, a replica that failed
      // the write still serves the older value, which a repair, handoff or spilled read would copy
      // where it outlives the write (as ToAll#settle marks first).
      CompletableFuture<Void> sent = send().thenRun(this::settle);
      parts.add(sent.thenCompose(x -> afterBatches()));
      if (t.bounded != null && !batched.isEmpty()) {
        // Done once the copies spilled reads left are gone; never deleted on a replica of the key.
        parts.add(t.bounded.afterWrites(batched, sent, steps.requests, (k, m) -> Moves.holds(t, k, m)));
      }
      return Requests.allOf(parts).handle((x, y) -> (Void) null).thenCompose(x -> sent.thenApply(y -> result()));
    }

    /**
     * On a topology with a history, or while warm-up copies are under way: the keys whose route reads
     * or deletes elsewhere are written by themselves, their writes added to {@code parts}; returns
     * the others, which go in batches. A key that moved in a change only remembered has its former
     * owners marked and its generation moved first, as {@link Writes} does, and waits for the copies
     * of it under way once written, as every batched key does while copies are under way.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private List<String> moving(List<CompletableFuture<?>> parts) {
      boolean copying = steps.warmUp.copying();
      own = new CompletableFuture[keys.length];
      warm = new boolean[keys.length];
      List<String> batched = new ArrayList<>(keys.length);
      long now = System.nanoTime();
      for (int k = 0; k < keys.length; k++) {
        String key = keys[k];
        Moves.Move move = Moves.route(t, key, now);
        if (move == null || move.plain(t)) {
          warm[k] = copying;
        } else if (move.marksOnly(t)) {
          steps.markFormerOwners(key, move, Member.NONE);
          steps.warmUp.bump(key);
          warm[k] = true;
        } else {
          counts[k] = OWN;
          t.active.increment(); // released by the single write
          try {
            own[k] = removes
                ? single.write(t, key, "delete", null, (c, d) -> c.delete(key), WriteSteps.Kind.REMOVES, Writes.Shape.ALL, Boolean::logicalOr)
                : single.write(t, key, "set", ttl, (c, d) -> c.set(key, values.get(key), d), WriteSteps.Kind.REPLACES, Writes.Shape.ALL, (a, b) -> null)
                    .thenApply(x -> Boolean.TRUE);
          } catch (RuntimeException e) {
            own[k] = CompletableFuture.failedFuture(e);
          }
          parts.add(own[k]);
          continue;
        }
        batched.add(key);
      }
      return batched;
    }

    /** Routes each batched key under one fence and sends the batches, handed to the connections inside it. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private CompletableFuture<Void> send() {
      int n = keys.length;
      List<String>[][] byNode = new List[2][t.members.length];
      List<CompletableFuture<Void>> sent = new ArrayList<>();
      try (Fence fence = steps.failback.fence()) {
        for (int k = 0; k < n; k++) {
          if (counts[k] == OWN) {
            continue;
          }
          try {
            counts[k] = steps.targets(t, keys[k], t.hash(keys[k]), fence, targets, k * width, null);
          } catch (ShardwiseException e) {
            errors = errors == null ? new ShardwiseException[n] : errors;
            errors[k] = e;
            continue;
          }
          int side = counts[k] < 0 ? 1 : 0;
          for (int i = 0; i < Math.abs(counts[k]); i++) {
            int node = targets[k * width + i];
            if (byNode[side][node] == null) {
              byNode[side][node] = new ArrayList<>(Math.max(10, 2 * n * width / t.members.length));
            }
            byNode[side][node].add(keys[k]);
          }
        }
        for (int side = 0; side < 2; side++) {
          for (int i = 0; i < t.members.length; i++) {
            if (byNode[side][i] != null) {
              int node = i;
              NodeReply<Boolean>[] sideReplies = replies[side];
              sent.add(sendBatch(node, byNode[side][i], side == 1).thenAccept(reply -> sideReplies[node] = reply));
            }
          }
        }
      }
      return Requests.allOf(sent);
    }

    /**
     * Sends {@code nodeKeys} to {@code node} in parts ({@link Requests#inParts}), sent again after a
     * timeout for a set, which done twice leaves the same value, not for a delete, whose second reply
     * would call a key it deleted absent. Keys marked old there are handed over as {@link
     * WriteSteps#send} does, and their marks cleared once confirmed.
     */
    private CompletableFuture<NodeReply<Boolean>> sendBatch(int node, List<String> nodeKeys, boolean redirected) {
      Member member = t.members[node];
      DirtyCopies dirty = member.oldCopies();
      Map<String, Long> marked = null; // only when the node has old copies: most batches need none
      if (!dirty.isEmpty()) {
        for (String key : nodeKeys) {
          Long stamp = dirty.stamp(key);
          if (stamp != null) {
            marked = marked == null ? new HashMap<>() : marked;
            marked.put(key, stamp);
          }
        }
      }
      String operation = removes ? "deleteMulti" : "setMulti";
      ToIntFunction<String> bytes = removes ? null : key -> values.get(key).length();
      if (marked == null) {
        return steps.requests.inParts(member, nodeKeys, bytes, !removes, part -> steps.requests.send(t, node, operation, request(part, redirected)));
      }
      Map<String, Long> cleared = marked;
      return steps.requests
          .inParts(member, nodeKeys, bytes, !removes, part -> dirty.handOff(() -> steps.requests.send(t, node, operation, request(part, redirected))))
          .whenComplete(
              (reply, x) ->
                  cleared.forEach(
                      (key, stamp) -> {
                        if (reply.confirmed(key)) {
                          dirty.cleared(key, stamp);
                        }
                      }));
    }

    /**
     * The request of one part of a node's batch ({@code redirected}: of keys sent where the failure
     * mode says, with the failover TTL); the reply has a value for each key whose write it
     * confirmed: {@code true} for a set, whether the key existed for a delete.
     */
    private Function<NodeConnection, CompletableFuture<BatchReply<Boolean>>> request(List<String> part, boolean redirected) {
      if (removes) {
        return c -> c.deleteMulti(part);
      }
      Map<String, CachedValue> batch = new LinkedHashMap<>();
      for (String key : part) {
        batch.put(key, values.get(key));
      }
      Duration d = redirected ? steps.failback.cap(ttl) : ttl;
      return c -> c.setMulti(batch, d);
    }

    /**
     * Once the batches are answered, what each batched key's write still waits for, with repair on
     * or while warm-up copies may race it ({@link WriteSteps#afterWrite}). A key whose wait fails
     * fails with the reason.
     */
    private CompletableFuture<Void> afterBatches() {
      if (generations == null && warm == null) {
        return CompletableFuture.completedFuture(null);
      }
      List<CompletableFuture<?>> all = new ArrayList<>();
      for (int k = 0; k < keys.length; k++) {
        if (counts[k] == OWN) {
          continue;
        }
        // With repair on, the end of a replicated write waits for the copies under way itself.
        CompletableFuture<Void> wait = generations != null
            ? steps.afterWrite(keys[k], generations[k], removes ? t.replicaMembers(t.hash(keys[k])) : Member.NONE)
            : warm != null && warm[k] ? steps.afterWrite(keys[k], -1, Member.NONE) : null;
        if (wait != null) {
          waits = waits == null ? new CompletableFuture<?>[keys.length] : waits;
          waits[k] = wait;
          all.add(wait);
        }
      }
      return Requests.allOf(all).handle((x, y) -> (Void) null);
    }

    /**
     * Notes each batched key's outcome over the nodes it was sent to ({@link ToAll#outcome}): a node
     * whose reply does not confirm the key failed it.
     */
    private void settle() {
      outcomes = new Object[keys.length];
      boolean marks = ToAll.marks(t, removes ? WriteSteps.Kind.REMOVES : WriteSteps.Kind.REPLACES);
      for (int k = 0; k < keys.length; k++) {
        int count = Math.abs(counts[k]);
        if (counts[k] == OWN || count == 0) {
          outcomes[k] = errors == null ? null : errors[k];
          continue;
        }
        Object[] got = new Object[count];
        for (int i = 0; i < count; i++) {
          Member m = t.members[targets[k * width + i]];
          NodeReply<Boolean> reply = replies[counts[k] < 0 ? 1 : 0][targets[k * width + i]];
          got[i] = reply.confirmed(keys[k]) ? reply.replies().get(keys[k]) : steps.requests.asShardwise(m, reply.unconfirmed(keys[k], m.node));
        }
        outcomes[k] = ToAll.outcome(steps.failback, t, keys[k], targets, k * width, count, got, counts[k] > 0 && marks, Boolean::logicalOr);
      }
    }

    /** Every key's outcome, in the caller's order. */
    private MultiResult<Boolean> result() {
      MultiResult.Builder<Boolean> result = MultiResult.builder(keys.length);
      for (int k = 0; k < keys.length; k++) {
        String key = keys[k];
        Object outcome;
        if (counts[k] == OWN) {
          Throwable failure = Requests.failureOf(own[k]);
          outcome = failure == null ? own[k].join() : steps.requests.asShardwise(t.members[t.primary(key)], failure);
        } else {
          outcome = outcomes[k];
          Throwable waited = waits == null || waits[k] == null ? null : Requests.failureOf(waits[k]);
          if (waited != null && outcome instanceof Boolean) {
            outcome = Requests.unwrap(waited);
          }
        }
        if (outcome instanceof Boolean written) {
          result.hit(key, written);
        } else {
          result.error(key, (ShardwiseException) outcome);
        }
      }
      return result.build();
    }
  }
}
