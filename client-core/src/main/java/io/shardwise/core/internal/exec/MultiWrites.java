package io.shardwise.core.internal.exec;

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
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * Executes setMulti and deleteMulti over the keys' preference lists, for any replica count, for
 * {@link Writes}: every key is planned as a single write of it is, all under one fence, and
 * the keys are grouped by the node they go to: one batch per node, in parts ({@link #sendBatch}).
 * A replica that is out gets the key in its journal; a replica whose batch failed for the key gets
 * its copy marked old. A key whose replicas are all out goes where the failure mode sends it ({@link
 * WriteSteps#redirect}, journaled against the nodes skipped), in one more batch per node, with the
 * failover TTL. On a topology with a history, a key whose route reads or deletes elsewhere (a change
 * settling or warming) is written by itself, as a single write of it is. Each key's outcome is
 * decided over what happened to that key alone, and the result lists the keys in the caller's order.
 */
final class MultiWrites {

  /**
   * The request of one part of a node's batch ({@code redirected}: of keys whose replicas are all
   * out, sent where the failure mode says); the node's reply has a value for each key whose write
   * it confirmed: {@code true} for a set, whether the key existed for a delete.
   */
  @FunctionalInterface
  interface PartOp {
    Function<NodeConnection, CompletableFuture<BatchReply<Boolean>>> of(List<String> part, boolean redirected);
  }

  /** {@link Run#counts}: a key written by itself ({@link Run#own}). */
  private static final int OWN = Integer.MIN_VALUE;

  private final WriteSteps steps;
  private final Repairs repairs;

  MultiWrites(WriteSteps steps, Repairs repairs) {
    this.steps = steps;
    this.repairs = repairs;
  }

  /**
   * Stores or deletes ({@code removes}) {@code keys} on every available replica of each, in
   * batches of the parts {@code op} makes; releases {@code t} when done. A key that moves is
   * written by {@code single}, as a single write of it is.
   *
   * @param bytes the size of each key's value, or null
   */
  CompletableFuture<MultiResult<Boolean>> write(
      Topology t, Collection<String> keys, boolean removes, ToIntFunction<String> bytes, PartOp op, Function<String, CompletableFuture<Boolean>> single) {
    CompletableFuture<MultiResult<Boolean>> f;
    try {
      f = new Run(t, keys.toArray(new String[0]), removes).start(single, bytes, op);
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((r, x) -> t.exit());
    return f;
  }

  /** One multi-key write on one topology: per key state in flat arrays, a row per key. */
  private final class Run {
    final Topology t;
    final String[] keys;
    /** A deleteMulti: a repair copy that raced a key's delete is deleted again. */
    final boolean removes;
    final int width;
    /**
     * Per key, the nodes it is sent to: {@link #counts}[k] of the row of {@link #width} entries; 0
     * when it failed before anything was sent ({@link #errors}), -1 for a key sent where the failure
     * mode says, its replicas all out (the row's first entry), {@link #OWN} for a key written by itself.
     */
    final int[] targets;
    final int[] counts;
    ShardwiseException[] errors;
    /** Per key written by itself, its write. */
    CompletableFuture<Boolean>[] own;
    /** Per key: whether it waits for the warm-up copies under way once written ({@link WriteSteps#afterWarmUpWrite}). */
    boolean[] warm;
    /** With repair on, per key: the generation its write moved it to before it was sent. */
    long[] generations;
    /** Per key written in a batch, its outcome once every batch has answered ({@link #settle}). */
    Object[] outcomes;
    /** Per key: what its write waits for once the batches are answered, or null. */
    CompletableFuture<?>[] waits;
    /** Per side (0: the key's replicas, 1: where the failure mode sent it) and node, its batch's reply. */
    final NodeReply<Boolean>[][] replies;

    @SuppressWarnings({"unchecked", "rawtypes"})
    Run(Topology t, String[] keys, boolean removes) {
      this.t = t;
      this.keys = keys;
      this.removes = removes;
      width = t.replicas;
      targets = new int[keys.length * width];
      counts = new int[keys.length];
      replies = new NodeReply[2][t.members.length];
    }

    CompletableFuture<MultiResult<Boolean>> start(Function<String, CompletableFuture<Boolean>> single, ToIntFunction<String> bytes, PartOp op) {
      List<CompletableFuture<?>> parts = new ArrayList<>();
      List<String> batched = t.history.length != 0 || steps.warmUp.copying() ? moving(single, parts) : Arrays.asList(keys);
      if (repairs.enabled(t)) {
        // Before anything is sent: a repair copy of an older value read meanwhile is not kept.
        generations = new long[keys.length];
        for (int k = 0; k < keys.length; k++) {
          generations[k] = counts[k] == OWN ? -1 : steps.warmUp.bump(keys[k]);
        }
      }
      // Each key's outcome, and the marks of the replicas that failed it, as soon as every batch
      // has answered: before the generation moves again (afterBatches) and before the copies that
      // spilled reads left are deleted (afterWrites). Until its mark, a replica that failed the
      // write still serves the older value, and a read repair, handoff or spilled read that began
      // after those steps would copy it where it outlives the write (a single write marks first
      // too: ToAll#settle).
      CompletableFuture<Void> sent = send(bytes, op).thenRun(this::settle);
      parts.add(sent.thenCompose(x -> afterBatches()));
      if (t.bounded != null && !batched.isEmpty()) {
        // Done once the copies spilled reads left are gone; never deleted on a replica of the key.
        parts.add(t.bounded.afterWrites(batched, sent, steps.requests, (k, m) -> Moves.holds(t, k, m)));
      }
      return Requests.allOf(parts).handle((x, y) -> (Void) null).thenCompose(x -> sent.thenApply(y -> result()));
    }

    /**
     * On a topology with a history, or while warm-up copies are under way: the keys whose route reads
     * or deletes elsewhere (a change settling or warming) are written by {@code single}, as a single
     * write of each is, their writes added to {@code parts}; returns the others, which go in batches.
     * A key that moved in a change only remembered has its copies on its former replicas marked old
     * and its generation moved first (a read routed while that change was still warming may be about
     * to copy), and waits for the copies of it under way once written (see {@code WarmUp}), as every
     * batched key does while copies are under way.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private List<String> moving(Function<String, CompletableFuture<Boolean>> single, List<CompletableFuture<?>> parts) {
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
            own[k] = single.apply(key);
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

    /**
     * Plans each batched key under one fence, as a single write of it is, and sends one batch per
     * node (and one per node for keys whose replicas are all out), handed to the connections inside
     * the fence.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private CompletableFuture<Void> send(ToIntFunction<String> bytes, PartOp op) {
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
              sent.add(sendBatch(node, byNode[side][i], bytes, op, side == 1).thenAccept(reply -> sideReplies[node] = reply));
            }
          }
        }
      }
      return Requests.allOf(sent);
    }

    /**
     * Sends {@code nodeKeys} to {@code node} in parts ({@link Requests#inParts}); a part that timed
     * out on a node that still answers is sent again for a set, which done twice leaves the same
     * value, not for a delete, whose second reply would call a key it deleted absent. If some of
     * the keys are marked old there, each part is handed over as {@link WriteSteps#send} hands over a
     * write of one such key: in the order of the node's old-copy deletes; the marks of the keys it
     * wrote are cleared once all parts are done.
     */
    private CompletableFuture<NodeReply<Boolean>> sendBatch(int node, List<String> nodeKeys, ToIntFunction<String> bytes, PartOp op, boolean redirected) {
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
      if (marked == null) {
        return steps.requests.inParts(member, nodeKeys, bytes, !removes, part -> steps.requests.send(t, node, operation, op.of(part, redirected)));
      }
      Map<String, Long> cleared = marked;
      return steps.requests
          .inParts(member, nodeKeys, bytes, !removes, part -> dirty.handOff(() -> steps.requests.send(t, node, operation, op.of(part, redirected))))
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
     * Once the batches are answered, what each batched key's write still waits for: with repair on,
     * the end {@link WriteSteps#afterReplicatedWrite} gives it; while warm-up copies may race it, the
     * copies of it under way ({@link WriteSteps#afterWarmUpWrite}). A key whose wait fails fails with the
     * reason.
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
            ? steps.afterReplicatedWrite(keys[k], generations[k], removes ? t.replicaMembers(t.hash(keys[k])) : Member.NONE)
            : warm != null && warm[k] ? steps.afterWarmUpWrite(keys[k]) : null;
        if (wait != null) {
          waits = waits == null ? new CompletableFuture<?>[keys.length] : waits;
          waits[k] = wait;
          all.add(wait);
        }
      }
      return Requests.allOf(all).handle((x, y) -> (Void) null);
    }

    /**
     * Notes each batched key's outcome over the nodes it was sent to, by the rule of a single write
     * ({@link ToAll#outcome}): a value confirmed is {@code true} for a set, whether the key existed
     * for a delete; a node whose reply does not confirm the key failed it, and the copy of a replica
     * that failed it is marked old.
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
