package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.ReplicaRoutes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.spi.KeyRules;
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
import java.util.function.BinaryOperator;

/**
 * Executes writes of keys stored on N replicas ({@link ReplicaRoutes}): a set, delete or touch
 * goes to every available replica at once; add and incr decide on the first available one, and
 * the key's copies on the others are deleted. The write completes when every replica it was sent
 * to has answered.
 *
 * <ul>
 *   <li>A replica that is out gets the key in its journal, under its fence (as a write redirected
 *       past it does, see {@link Failback}): it drops its copy before it serves again.
 *   <li>A replica whose request fails, while another replica's succeeds, gets its copy marked old:
 *       it is not read there until a delete or a later write of it there is confirmed. The write
 *       succeeds. If the mark cannot be recorded (the marks are full), the write fails with that
 *       replica's error.
 *   <li>With no replica available, the write goes where the failure mode sends a write whose
 *       node is out ({@link Writes}).
 * </ul>
 */
public final class ReplicaWrites {

  /** How a write is spread over a key's replicas. */
  public enum Shape {
    /** To every available replica (set, delete, touch). */
    ALL,
    /**
     * Decided on the first available replica; if it stored, the key's copies on the others are
     * deleted (add: an add elsewhere could keep an older value there, a set could land after a
     * later write of the key).
     */
    DECIDE_THEN_DELETE,
    /** On the first available replica, with the key's copies on the others deleted at once (incr, decr). */
    ONE_AND_DELETE
  }

  private final Requests requests;
  private final ReplicaRoutes routes;
  private final Failback failback;
  private final Writes writes;
  private final MultiWrites multiWrites;

  public ReplicaWrites(Requests requests, ReplicaRoutes routes, Failback failback, Writes writes, MultiWrites multiWrites) {
    this.requests = requests;
    this.routes = routes;
    this.failback = failback;
    this.writes = writes;
    this.multiWrites = multiWrites;
  }

  /**
   * A write of {@code key} on {@code t}, which the caller counted itself on and which this write
   * releases when done. {@code combine} merges the replies of the replicas that succeeded (for
   * {@link Shape#ALL}).
   */
  public <T> CompletableFuture<T> write(
      Topology t,
      String key,
      String operation,
      Duration ttl,
      Writes.WriteOp<T> op,
      Writes.Kind kind,
      Shape shape,
      BinaryOperator<T> combine) {
    CompletableFuture<T> f;
    try {
      f = route(t, key, operation, ttl, op, kind, shape, combine);
      if (t.bounded != null && kind != Writes.Kind.TOUCHES) {
        f = t.bounded.afterWrite(key, f, requests); // done once the copies spilled reads left are gone
      }
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((v, x) -> t.exit());
    return f;
  }

  private <T> CompletableFuture<T> route(
      Topology t,
      String key,
      String operation,
      Duration ttl,
      Writes.WriteOp<T> op,
      Writes.Kind kind,
      Shape shape,
      BinaryOperator<T> combine) {
    long hash = t.hash(key);
    try (Fence fence = failback.fence()) {
      for (int attempt = 0; attempt <= routes.replicas(); attempt++) {
        ReplicaRoutes.Plan p = routes.plan(t, key, hash);
        if (p.outCount > 0) {
          if (!fence.enter(t.members, p.out, p.outCount)) {
            continue; // a replica came back meanwhile: plan again
          }
          if (p.writeCount == 0) {
            // Every replica is out, and stays out while their fences are held: the failure mode
            // decides, journaling the write against each of them.
            return writes.routed(t, key, hash, p.replicas[0], operation, ttl, op, kind);
          }
          NodeUnavailableException full = fence.recordMissed(t.members, key, p.out, p.outCount);
          if (full != null) {
            return CompletableFuture.failedFuture(full);
          }
        }
        int[] targets = Arrays.copyOf(p.writes, p.writeCount);
        // Sent inside the fence: a replica readmitted meanwhile sees the key journaled, or is written.
        return send(t, key, targets, operation, ttl, op, kind, shape, combine);
      }
    }
    throw new IllegalStateException("replicas of " + KeyRules.shorten(key) + " kept coming back while it was routed");
  }

  private <T> CompletableFuture<T> send(
      Topology t,
      String key,
      int[] targets,
      String operation,
      Duration ttl,
      Writes.WriteOp<T> op,
      Writes.Kind kind,
      Shape shape,
      BinaryOperator<T> combine) {
    switch (shape) {
      case ALL:
        {
          ToAll<T> all = new ToAll<>(t, key, targets, kind != Writes.Kind.TOUCHES, combine);
          for (int i = 0; i < targets.length; i++) {
            all.send(i, operation, ttl, op, kind);
          }
          return all.result;
        }
      case ONE_AND_DELETE:
        {
          CompletableFuture<T> first = one(t, targets[0], key, operation, ttl, op, kind);
          CompletableFuture<Void> others = deleteOthers(t, key, targets);
          return CompletableFuture.allOf(first, others).handle((x, y) -> (Void) null).thenCompose(x -> others).thenCompose(x -> first);
        }
      case DECIDE_THEN_DELETE:
        return one(t, targets[0], key, operation, ttl, op, kind)
            .thenCompose(
                stored -> Boolean.TRUE.equals(stored)
                    ? deleteOthers(t, key, targets).thenApply(x -> stored)
                    : CompletableFuture.completedFuture(stored));
      default:
        throw new AssertionError(shape);
    }
  }

  /** One replica's request, counted as under way on it while it is. */
  private <T> CompletableFuture<T> one(
      Topology t, int node, String key, String operation, Duration ttl, Writes.WriteOp<T> op, Writes.Kind kind) {
    Member m = t.members[node];
    m.inFlight.incrementAndGet();
    CompletableFuture<T> f;
    try {
      f = writes.send(t, node, key, operation, ttl, op, kind);
    } catch (RuntimeException e) {
      m.inFlight.decrementAndGet();
      throw e;
    }
    f.whenComplete((v, x) -> m.inFlight.decrementAndGet());
    return f;
  }

  /**
   * Deletes the key on the replicas after the first, so that a read there misses and goes on to the
   * first; fails only if a delete failed and its copy could not be marked old.
   */
  private CompletableFuture<Void> deleteOthers(Topology t, String key, int[] targets) {
    if (targets.length == 1) {
      return CompletableFuture.completedFuture(null);
    }
    int[] others = Arrays.copyOfRange(targets, 1, targets.length);
    List<CompletableFuture<Boolean>> sent = new ArrayList<>(others.length);
    for (int node : others) {
      sent.add(one(t, node, key, "replicaDelete", null, (c, d) -> c.delete(key), Writes.Kind.REMOVES));
    }
    return Requests.allOf(sent)
        .handle((x, y) -> (Void) null)
        .thenCompose(
            x -> {
              for (int i = 0; i < others.length; i++) {
                Throwable failure = failureOf(sent.get(i));
                if (failure != null && !failback.markFailedCopy(t.members[others[i]], key)) {
                  return CompletableFuture.failedFuture(requests.asShardwise(t.members[others[i]], failure));
                }
              }
              return CompletableFuture.completedFuture(null);
            });
  }

  /**
   * A write sent to every replica in {@code targets}, and its outcome once each has answered: the
   * replies of those that succeeded, combined; the copies of those that failed marked old (with
   * {@code mark}); the first failure if none succeeded or a mark could not be recorded. One
   * callback per replica and no other stage: a set to two replicas costs one more request, and
   * little besides.
   */
  private final class ToAll<T> {
    final Topology t;
    final String key;
    final int[] targets;
    final boolean mark;
    final BinaryOperator<T> combine;
    final Object[] values;
    final Throwable[] failures;
    final java.util.concurrent.atomic.AtomicInteger left;
    final CompletableFuture<T> result = new CompletableFuture<>();

    ToAll(Topology t, String key, int[] targets, boolean mark, BinaryOperator<T> combine) {
      this.t = t;
      this.key = key;
      this.targets = targets;
      this.mark = mark;
      this.combine = combine;
      this.values = new Object[targets.length];
      this.failures = new Throwable[targets.length];
      this.left = new java.util.concurrent.atomic.AtomicInteger(targets.length);
    }

    void send(int i, String operation, Duration ttl, Writes.WriteOp<T> op, Writes.Kind kind) {
      Member m = t.members[targets[i]];
      m.inFlight.incrementAndGet();
      CompletableFuture<T> f;
      try {
        f = writes.send(t, targets[i], key, operation, ttl, op, kind);
      } catch (RuntimeException e) {
        f = CompletableFuture.failedFuture(e);
      }
      f.whenComplete(
          (value, failure) -> {
            m.inFlight.decrementAndGet();
            values[i] = value;
            failures[i] = failure;
            if (left.decrementAndGet() == 0) { // the last reply: every other one is visible here
              settle();
            }
          });
    }

    @SuppressWarnings("unchecked")
    private void settle() {
      T combined = null;
      boolean any = false;
      Throwable firstFailure = null;
      Throwable unmarked = null;
      for (int i = 0; i < targets.length; i++) {
        Throwable failure = failures[i];
        if (failure == null) {
          T value = (T) values[i];
          combined = any ? combine.apply(combined, value) : value;
          any = true;
          continue;
        }
        if (firstFailure == null) {
          firstFailure = failure;
        }
        if (mark && !failback.markFailedCopy(t.members[targets[i]], key) && unmarked == null) {
          unmarked = failure;
        }
      }
      if (!any) {
        result.completeExceptionally(firstFailure);
      } else if (unmarked != null) {
        result.completeExceptionally(unmarked);
      } else {
        result.complete(combined);
      }
    }
  }

  private static Throwable failureOf(CompletableFuture<?> f) {
    return f.handle((v, x) -> x).join();
  }

  // ---- multi-key writes ------------------------------------------------------------------------

  /** Stores {@code encoded} on every available replica of each key; releases {@code t} when done. */
  public CompletableFuture<MultiResult<Boolean>> setMulti(Topology t, Map<String, CachedValue> encoded, Duration ttl) {
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
  public CompletableFuture<MultiResult<Boolean>> deleteMulti(Topology t, Set<String> distinct) {
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
        f = t.bounded.afterWrites(keys, f, requests);
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
        for (int attempt = 0; attempt <= routes.replicas() && targets == null; attempt++) {
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

  /** One key's outcome over the replicas it was sent to, as {@link ToAll} decides it for one key. */
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
