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
 * setMulti and deleteMulti over the keys' preference lists, for any replica count: each key routed
 * as a single write of it is ({@link WriteSteps#targets}), all under one fence, then one batch per
 * node, in parts, and one more per node for keys sent where the failure mode says (failover TTL). A
 * key whose route reads or deletes elsewhere (a change settling or warming) is written by itself.
 * Each key's outcome is decided by the rule of a single write, over what happened to that key.
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

  /** {@link Writes#writeMulti}: stores {@code values}, or deletes {@code keys} if it is null; releases {@code t}. */
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
    /** Per key, made when needed: its own write; whether it waits for copies; its repair generation; its outcome; what it waits for then. */
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
      // Outcomes and marks first, as ToAll#settle: until marked, a replica that failed serves the
      // older value, which a repair, handoff or spilled read would copy where it outlives the write.
      CompletableFuture<Void> sent = send().thenRun(this::settle);
      parts.add(sent.thenCompose(x -> afterBatches()));
      if (t.bounded != null && !batched.isEmpty()) {
        // Done once the copies spilled reads left are gone; never deleted on a replica of the key.
        parts.add(t.bounded.afterWrites(batched, sent, steps.requests, (k, m) -> Moves.holds(t, k, m)));
      }
      return Requests.allOf(parts).handle((x, y) -> (Void) null).thenCompose(x -> sent.thenApply(y -> result()));
    }

    /**
     * With a history or copies under way: writes by itself each key whose route reads or deletes
     * elsewhere, adding it to {@code parts}, and returns the others, for the batches. A key that moved
     * in a change only remembered has its former owners marked and its generation moved first, as in
     * {@link Writes}; batched keys wait for the copies under way once written.
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
     * timeout for a set, not for a delete (its second reply would call a key it deleted absent); keys
     * marked old there are handed over as {@link WriteSteps#send} does.
     */
    private CompletableFuture<NodeReply<Boolean>> sendBatch(int node, List<String> nodeKeys, boolean redirected) {
      Member member = t.members[node];
      DirtyCopies dirty = member.oldCopies();
      boolean anyMarked = !dirty.isEmpty(); // most batches' nodes hold no old copy: no map for them
      Map<String, Long> marked = anyMarked ? new HashMap<>() : Map.of();
      for (int i = 0; anyMarked && i < nodeKeys.size(); i++) {
        Long stamp = dirty.stamp(nodeKeys.get(i));
        if (stamp != null) {
          marked.put(nodeKeys.get(i), stamp);
        }
      }
      String operation = removes ? "deleteMulti" : "setMulti";
      ToIntFunction<String> bytes = removes ? null : key -> values.get(key).length();
      Function<List<String>, CompletableFuture<BatchReply<Boolean>>> send = part -> steps.requests.send(t, node, operation, request(part, redirected));
      return steps.requests
          .inParts(member, nodeKeys, bytes, !removes, marked.isEmpty() ? send : part -> dirty.handOff(() -> send.apply(part)))
          .whenComplete(
              (reply, x) ->
                  marked.forEach(
                      (key, stamp) -> {
                        if (reply.confirmed(key)) {
                          dirty.cleared(key, stamp); // replaced or deleted: the old copy is gone
                        }
                      }));
    }

    /**
     * The request of one part of a node's batch ({@code redirected}: with the failover TTL); its reply
     * has a value for each key confirmed: {@code true} for a set, whether the key existed for a delete.
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

    /** Once the batches are answered, what each batched key still waits for ({@link WriteSteps#afterWrite}); a failed wait fails the key. */
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
        Object outcome = counts[k] == OWN ? steps.requests.outcomeOf(own[k], t.members[t.primary(key)]) : outcomes[k];
        Throwable waited = waits == null || waits[k] == null ? null : Requests.failureOf(waits[k]);
        if (waited != null && outcome instanceof Boolean) {
          outcome = Requests.unwrap(waited);
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
