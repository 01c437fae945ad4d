package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Moves;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BinaryOperator;
import java.util.function.Function;

/**
 * Executes the write of one key, for any replica count: to the key's replicas ({@link Routes}), as
 * its {@link Shape} says, complete when each one sent to has answered. A replica that is out gets
 * the key in its journal ({@link Failback}); one that fails while another succeeds gets its copy
 * marked old ({@link ToAll#outcome}); with none available, the write goes where the failure mode
 * sends it ({@link WriteSteps#targets}). setMulti and deleteMulti: {@link MultiWrites}.
 */
public final class Writes {

  /** How a write is spread over a key's replicas. */
  public enum Shape {
    /** To every available replica (set, delete, touch). */
    ALL,
    /**
     * Decided on the first available replica; if it stored, the key's copies on the others are
     * deleted (add: an add there could keep an older value, a set could land after a later write).
     */
    DECIDE_THEN_DELETE,
    /** A counter (incr, decr): see {@link Counters}; with one copy of each key, a plain incr. */
    COUNT
  }

  /** One write of one key, as the caller asked for it. */
  record Write<T>(
      String key, String operation, Duration ttl, WriteSteps.WriteOp<T> op, WriteSteps.Kind kind, Shape shape, BinaryOperator<T> combine) {}

  private final WriteSteps steps;
  private final Repairs repairs;
  private final Counters counters;
  private final MultiWrites multi;

  public Writes(WriteSteps steps, Repairs repairs) {
    this.steps = steps;
    this.repairs = repairs;
    this.counters = new Counters(steps, repairs);
    this.multi = new MultiWrites(steps, repairs, this);
  }

  /**
   * A write of {@code key} on {@code t}, which the caller counted itself on and this write releases;
   * {@code combine} merges the replies of the replicas that succeeded ({@link Shape#ALL}).
   */
  public <T> CompletableFuture<T> write(
      Topology t, String key, String operation, Duration ttl, WriteSteps.WriteOp<T> op, WriteSteps.Kind kind, Shape shape, BinaryOperator<T> combine) {
    if (shape == Shape.COUNT && !t.replicated) {
      shape = Shape.ALL; // one copy of each key: a plain incr, which creates the counter when absent
    }
    CompletableFuture<T> f;
    try {
      boolean plain = t.history.length == 0 && !steps.warmUp.copying();
      // No spill or retry: nothing follows the replies, and the last one's stage releases the topology.
      Topology release = plain && t.bounded == null && !steps.requests.retrying() ? t : null;
      if (release != null && t.replicas == 1) {
        // The common case, one replica up and not marked: one request (the plan decides the same).
        Member m = t.members[t.router.primary(t.hash(key))];
        if (m.available() && !m.holdsOldCopy(key)) {
          WriteSteps.WriteOp<T> one = op;
          return steps.requests.call(m, operation, c -> one.send(c, ttl), false, Function.identity(), t);
        }
      }
      Write<T> w = new Write<>(key, operation, ttl, op, kind, shape, combine);
      // With repair on, before anything is sent: a repair copy of an older value is not kept.
      long generation = repairs.enabled(t) ? steps.warmUp.bump(key) : -1;
      if (release != null && shape == Shape.ALL) {
        return route(t, w, null, generation, release);
      }
      f = plain ? route(t, w, null, generation, null) : moving(t, w, generation);
      if (t.bounded != null && kind != WriteSteps.Kind.TOUCHES) {
        // Done once the copies spilled reads left are gone; never deleted on a replica of the key.
        f = t.bounded.afterWrites(List.of(key), f, steps.requests, (k, m) -> Moves.holds(t, k, m));
      }
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((v, x) -> t.exit());
    return f;
  }

  /**
   * A write on a topology with a history, or while warm-up copies are under way: to the replicas of
   * the key's serving placement ({@link Moves}), deleted at once on its clears (marked old where that
   * fails, the write failing only if the mark cannot be recorded), marked old on its former owners.
   */
  private <T> CompletableFuture<T> moving(Topology t, Write<T> w, long repairGeneration) {
    Moves.Move move = Moves.route(t, w.key(), System.nanoTime());
    if (move == null || move.plain(t)) {
      CompletableFuture<T> written = route(t, w, null, repairGeneration, null);
      // With repair on, the write waited for the copies under way itself.
      return repairGeneration >= 0 || !steps.warmUp.copying() ? written : steps.healed(w.key(), -1, Member.NONE, written);
    }
    // Before anything is sent: a copy made from an older read is not kept. Also when the key's
    // change is only remembered now: a read routed while it was still warming may be about to copy.
    long generation = steps.warmUp.bump(w.key());
    Member[][] took = new Member[1][];
    CompletableFuture<T> written = route(move.serving(), w, took, -1, null);
    Member[] targets = took[0];
    Member first = targets.length == 0 ? null : targets[0];
    steps.markFormerOwners(w.key(), move, targets);
    List<CompletableFuture<Throwable>> clears = new ArrayList<>();
    for (Member stale : move.clears()) {
      if (!Member.in(targets, stale)) { // a write never deletes what it writes
        // Marked old where not deleted, even if the write fails (an incr may have counted elsewhere,
        // and one there would add to a count that lacks it).
        clears.add(steps.clear(stale, w.key(), f -> steps.failback.markOldCopy(stale, w.key(), first) ? null : steps.requests.movedCopyKept(stale, f)));
      }
    }
    List<CompletableFuture<?>> all = new ArrayList<>(clears);
    all.add(written);
    return Requests.allOf(all)
        .handle((x, y) -> (Void) null)
        .thenCompose(
            x -> {
              CompletableFuture<Void> copies = steps.afterWrite(w.key(), generation, w.kind() == WriteSteps.Kind.REMOVES ? move.owners() : Member.NONE);
              return copies == null ? CompletableFuture.completedFuture(null) : copies;
            })
        .thenCompose(
            x -> {
              for (CompletableFuture<Throwable> clear : clears) {
                if (clear.join() != null && !written.isCompletedExceptionally()) {
                  return CompletableFuture.<T>failedFuture(clear.join());
                }
              }
              return written;
            });
  }

  /**
   * Routes a write to the key's replicas on {@code t} and sends it; {@code took}, if not null,
   * receives the members that take it; a {@code generation} of 0 or more (repair on) ends it as
   * {@link WriteSteps#afterWrite} says; {@code release}, if not null, is released when it is done.
   */
  private <T> CompletableFuture<T> route(Topology t, Write<T> w, Member[][] took, long generation, Topology release) {
    if (took != null) {
      took[0] = Member.NONE;
    }
    long hash = t.hash(w.key());
    Routes.Plan first = steps.routes.plan(t, w.key(), hash);
    if (first.outCount == 0) {
      // Every replica available: nothing to journal, so no fence; one that fails meanwhile is marked.
      return send(t, w, Arrays.copyOf(first.writes, first.writeCount), took, generation, release);
    }
    int[] targets = new int[t.replicas];
    try (Fence fence = steps.failback.fence()) {
      int count;
      try {
        count = steps.targets(t, w.key(), hash, fence, targets, 0, w.shape() == Shape.COUNT ? p -> counters.refused(t, w.key(), p) : null);
      } catch (ShardwiseException e) {
        return released(CompletableFuture.failedFuture(e), release);
      }
      if (count > 0) {
        // Sent inside the fence: a replica readmitted meanwhile sees the key journaled, or is written.
        return send(t, w, Arrays.copyOf(targets, count), took, generation, release);
      }
      // Every replica out: where the failure mode sends it, journaled against them, with the failover TTL.
      if (took != null) {
        took[0] = new Member[] {t.members[targets[0]]};
      }
      Duration ttl = w.ttl() == null ? null : steps.failback.cap(w.ttl());
      CompletableFuture<T> one = steps.send(t, targets[0], w.key(), w.operation(), ttl, w.op(), w.kind());
      return released(generation < 0 ? one : steps.healed(w.key(), generation, Member.NONE, one), release);
    }
  }

  /** {@code f}, and {@code release}, if not null, released once it completes. */
  private static <T> CompletableFuture<T> released(CompletableFuture<T> f, Topology release) {
    if (release != null) {
      f.whenComplete((v, x) -> release.exit());
    }
    return f;
  }

  /** Sends the write to the available replicas {@code targets}; the rest as {@link #route} says. */
  private <T> CompletableFuture<T> send(Topology t, Write<T> w, int[] targets, Member[][] took, long generation, Topology release) {
    if (took != null) {
      took[0] = t.members(targets, 0, targets.length);
    }
    if (w.shape() == Shape.ALL) {
      return ToAll.send(steps, t, w, targets, release, generation);
    } else if (w.shape() == Shape.COUNT) {
      @SuppressWarnings("unchecked")
      CompletableFuture<T> counted = (CompletableFuture<T>) counters.count(t, w.key(), targets, (Counters.CounterOp) w.op(), w.ttl(), generation);
      return counted;
    }
    CompletableFuture<T> written =
        steps.send(t, targets[0], w.key(), w.operation(), w.ttl(), w.op(), w.kind())
            .thenCompose(
                stored -> Boolean.TRUE.equals(stored) && targets.length > 1 ? deleteOthers(t, w.key(), targets, stored) : CompletableFuture.completedFuture(stored));
    return generation < 0 ? written : steps.healed(w.key(), generation, t.members(targets, 1, targets.length), written);
  }

  /**
   * Deletes the key on the replicas after the first, which {@code stored} it, so that a read there
   * misses and goes on to the first; the outcome as {@link ToAll#outcome} says.
   */
  private <T> CompletableFuture<T> deleteOthers(Topology t, String key, int[] targets, T stored) {
    List<CompletableFuture<Boolean>> sent = new ArrayList<>(targets.length - 1);
    for (int i = 1; i < targets.length; i++) {
      sent.add(steps.send(t, targets[i], key, "replicaDelete", null, (c, d) -> c.delete(key), WriteSteps.Kind.REMOVES));
    }
    return Requests.allOf(sent)
        .handle(
            (x, y) -> {
              Object[] replies = new Object[targets.length];
              replies[0] = stored;
              for (int i = 1; i < targets.length; i++) {
                Throwable failure = Requests.failureOf(sent.get(i - 1));
                replies[i] = failure == null ? stored : failure;
              }
              Object outcome = ToAll.outcome(steps.failback, t, key, targets, 0, targets.length, replies, true, (a, b) -> a);
              return outcome instanceof Throwable f ? CompletableFuture.<T>failedFuture(f) : CompletableFuture.completedFuture(stored);
            })
        .thenCompose(Function.identity());
  }

  /** Stores {@code values} with {@code ttl}, or deletes {@code keys} if it is null, on every available replica of each key ({@link MultiWrites}); releases {@code t}. */
  public CompletableFuture<MultiResult<Boolean>> writeMulti(Topology t, Set<String> keys, Map<String, CachedValue> values, Duration ttl) {
    return multi.write(t, keys, values, ttl);
  }
}
