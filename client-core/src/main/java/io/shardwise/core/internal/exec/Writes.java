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
 * Executes the write of one key, for any replica count: the key's first N servers of its
 * preference list are its write targets ({@link Routes}), spread over as its {@link Shape} says.
 * The write completes when every replica it was sent to has answered. A replica that is out gets
 * the key in its journal, under its fence ({@link Failback}), and drops its copy before it serves
 * again; a replica whose request fails while another's succeeds gets its copy marked old ({@link
 * ToAll#outcome}); with no replica available, the write goes where the failure mode sends it
 * ({@link WriteSteps#targets}). setMulti and deleteMulti spread their keys in the same way, batched
 * per replica ({@link MultiWrites}).
 */
public final class Writes {

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
    this.counters = new Counters(steps.requests, steps.failback, steps, repairs);
    this.multi = new MultiWrites(steps, repairs, this);
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
      WriteSteps.WriteOp<T> op,
      WriteSteps.Kind kind,
      Shape shape,
      BinaryOperator<T> combine) {
    if (shape == Shape.COUNT && !t.replicated) {
      // With one copy of each key the count lives on one server: created there when absent.
      Counters.CounterOp counter = (Counters.CounterOp) op;
      @SuppressWarnings("unchecked")
      WriteSteps.WriteOp<T> create = (WriteSteps.WriteOp<T>) (WriteSteps.WriteOp<Long>) counter::create;
      op = create;
      shape = Shape.ALL;
    }
    CompletableFuture<T> f;
    try {
      boolean plain = t.history.length == 0 && !steps.warmUp.copying();
      // No spill or retry: nothing follows the replies, and the topology is released in the stage
      // of the last one.
      Topology release = plain && t.bounded == null && !steps.requests.retrying() ? t : null;
      if (release != null && t.replicas == 1) {
        // The common case of one replica, up and not marked: one request, the topology released in
        // the stage of its reply. The plan below decides the same with more work.
        Member m = t.members[t.router.primary(t.hash(key))];
        if (m.available() && !m.holdsOldCopy(key)) {
          WriteSteps.WriteOp<T> one = op;
          return steps.requests.call(m, operation, c -> one.send(c, ttl), false, Function.identity(), t);
        }
      }
      Write<T> w = new Write<>(key, operation, ttl, op, kind, shape, combine);
      // With repair on, before anything is sent: a repair copy of an older value read meanwhile is
      // not kept (see Repairs).
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
   * A write on a topology with a history (or while warm-up copies are under way): to the replicas
   * of the key's serving placement ({@link Moves}), deleted at once where reads may still look
   * (never on a replica that takes the write; marked old there when that node is out or the delete
   * fails, the write failing only if the mark cannot be recorded), marked old on the replicas of
   * changes only remembered.
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
    List<CompletableFuture<Boolean>> clears = new ArrayList<>();
    List<Member> cleared = new ArrayList<>();
    for (Member stale : move.clears()) {
      if (Member.in(targets, stale)) {
        continue; // a write never deletes what it writes
      }
      if (stale.retired() || !stale.available()) {
        steps.failback.markOldCopy(stale, w.key(), first); // read only once available, and not before its delete
        continue;
      }
      clears.add(steps.requests.send(stale, "moveDelete", c -> c.delete(w.key())));
      cleared.add(stale);
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
              for (int i = 0; i < clears.size(); i++) {
                Throwable kept = clears.get(i).handle((r, f) -> f).join();
                if (kept == null) {
                  continue;
                }
                // Not deleted: marked old there, as a clear that is out, whether or not the write
                // succeeded (an incr that failed may have counted elsewhere): an incr there would
                // otherwise add to that copy, a count without the updates counted elsewhere since.
                boolean marked = steps.failback.markOldCopy(cleared.get(i), w.key(), first);
                if (!marked && !written.isCompletedExceptionally()) {
                  return CompletableFuture.<T>failedFuture(steps.requests.movedCopyKept(cleared.get(i), kept));
                }
              }
              return written;
            });
  }

  /**
   * Routes a write to the key's replicas on {@code t} and sends it; {@code took}, if not null,
   * receives the members that take it. With {@code generation} at 0 or above (repair on), the write
   * ends as {@link WriteSteps#afterWrite} says. {@code release}, if not null (a write of
   * {@link Shape#ALL} that nothing follows), is released when the write is done.
   */
  private <T> CompletableFuture<T> route(Topology t, Write<T> w, Member[][] took, long generation, Topology release) {
    if (took != null) {
      took[0] = Member.NONE;
    }
    long hash = t.hash(w.key());
    Routes.Plan first = steps.routes.plan(t, w.key(), hash);
    if (first.outCount == 0) {
      // Every replica available: nothing to journal, so no fence (as a single write to an
      // available node takes none); a replica that fails meanwhile gets its copy marked.
      return send(t, w, Arrays.copyOf(first.writes, first.writeCount), took, generation, release);
    }
    int[] targets = new int[t.replicas];
    try (Fence fence = steps.failback.fence()) {
      int count;
      try {
        count = steps.targets(t, w.key(), hash, fence, targets, 0, w.op() instanceof Counters.CounterOp ? p -> counters.refused(t, w.key(), p) : null);
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
    switch (w.shape()) {
      case ALL:
        return ToAll.send(steps, t, w, targets, release, generation);
      case COUNT:
        {
          @SuppressWarnings("unchecked")
          CompletableFuture<T> counted = (CompletableFuture<T>) counters.count(t, w.key(), targets, (Counters.CounterOp) w.op(), w.ttl(), generation);
          return counted;
        }
      case DECIDE_THEN_DELETE:
        {
          CompletableFuture<T> written =
              steps.counting(t, targets[0], w.key(), w.operation(), w.ttl(), w.op(), w.kind())
                  .thenCompose(
                      stored -> Boolean.TRUE.equals(stored) && targets.length > 1
                          ? deleteOthers(t, w.key(), targets, stored)
                          : CompletableFuture.completedFuture(stored));
          return generation < 0 ? written : steps.healed(w.key(), generation, t.members(targets, 1, targets.length), written);
        }
      default:
        throw new AssertionError(w.shape());
    }
  }

  /**
   * Deletes the key on the replicas after the first, which {@code stored} it, so that a read there
   * misses and goes on to the first; the outcome as {@link ToAll#outcome} says.
   */
  private <T> CompletableFuture<T> deleteOthers(Topology t, String key, int[] targets, T stored) {
    List<CompletableFuture<Boolean>> sent = new ArrayList<>(targets.length - 1);
    for (int i = 1; i < targets.length; i++) {
      sent.add(steps.counting(t, targets[i], key, "replicaDelete", null, (c, d) -> c.delete(key), WriteSteps.Kind.REMOVES));
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

  /** Stores {@code encoded} on every available replica of each key ({@link MultiWrites}); releases {@code t} when done. */
  public CompletableFuture<MultiResult<Boolean>> setMulti(Topology t, Map<String, CachedValue> encoded, Duration ttl) {
    return multi.write(t, encoded.keySet(), encoded, ttl);
  }

  /** Deletes {@code distinct} on every available replica of each key ({@link MultiWrites}); releases {@code t} when done. */
  public CompletableFuture<MultiResult<Boolean>> deleteMulti(Topology t, Set<String> distinct) {
    return multi.write(t, distinct, null, null);
  }
}
