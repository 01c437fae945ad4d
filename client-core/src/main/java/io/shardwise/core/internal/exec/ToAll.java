package io.shardwise.core.internal.exec;

import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Topology;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BinaryOperator;

/**
 * For {@link Writes}: a write sent to every replica in {@code targets}, and its outcome once
 * each has answered ({@link #outcome}). One callback per replica and no other stage: a set to two
 * replicas costs one more request, and little besides.
 */
final class ToAll<T> {
  private final WriteSteps steps;
  private final Topology t;
  private final Writes.Write<T> w;
  private final int[] targets;
  /** Released before the result completes, or null (the caller releases the topology). */
  private final Topology release;
  /** With repair on, the key's generation the write moved it to before it was sent, else -1. */
  private final long generation;
  /** Per target, its reply or its failure. */
  private final Object[] replies;
  private final AtomicInteger left;
  private final CompletableFuture<T> result = new CompletableFuture<>();

  private ToAll(WriteSteps steps, Topology t, Writes.Write<T> w, int[] targets, Topology release, long generation) {
    this.steps = steps;
    this.t = t;
    this.w = w;
    this.targets = targets;
    this.release = release;
    this.generation = generation;
    this.replies = new Object[targets.length];
    this.left = new AtomicInteger(targets.length);
  }

  /** Sends {@code w} to each of {@code targets}; {@code release}, if not null, is released in the stage of the last reply. */
  static <T> CompletableFuture<T> send(WriteSteps steps, Topology t, Writes.Write<T> w, int[] targets, Topology release, long generation) {
    ToAll<T> all = new ToAll<>(steps, t, w, targets, release, generation);
    for (int i = 0; i < targets.length; i++) {
      all.send(i);
    }
    return all.result;
  }

  /**
   * Whether a replica whose write of kind {@code kind} failed gets its copy marked old: when the key
   * has other copies, which reads would otherwise alternate with, and the write is no touch. A key's
   * only copy reads as the value before the write or the written one, as after any unknown outcome.
   */
  static boolean marks(Topology t, WriteSteps.Kind kind) {
    return kind != WriteSteps.Kind.TOUCHES && t.replicated;
  }

  /**
   * The outcome of a write of {@code key}, alone or in a batch, once each of the {@code count} nodes
   * from {@code nodes[at]} answered ({@code replies[i]}, a reply or a failure): the successes
   * combined, the nodes that failed marked old with {@code marks}; the first failure if none
   * succeeded, or one whose mark could not be recorded.
   */
  @SuppressWarnings("unchecked")
  static <T> Object outcome(
      Failback failback, Topology t, String key, int[] nodes, int at, int count, Object[] replies, boolean marks, BinaryOperator<T> combine) {
    T combined = null;
    boolean any = false;
    Throwable first = null;
    Throwable unmarked = null;
    for (int i = 0; i < count; i++) {
      if (!(replies[i] instanceof Throwable failure)) {
        combined = any ? combine.apply(combined, (T) replies[i]) : (T) replies[i];
        any = true;
        continue;
      }
      first = first == null ? failure : first;
      if (marks && !failback.markFailedCopy(t.members[nodes[at + i]], key) && unmarked == null) {
        unmarked = failure;
      }
    }
    return !any ? first : unmarked != null ? unmarked : combined;
  }

  /**
   * Sends replica {@code i}'s request. Without bounded loads or retries, and with no old copy of
   * the key marked on the replica, straight to {@link Requests#callThen}: one stage per request.
   */
  private void send(int i) {
    Member m = t.members[targets[i]];
    if (release == null || m.oldCopies().stamp(w.key()) != null) {
      steps.send(t, targets[i], w.key(), w.operation(), w.ttl(), w.op(), w.kind()).whenComplete((value, failure) -> done(i, value, failure));
      return;
    }
    m.inFlight.incrementAndGet();
    steps.requests.callThen(
        m,
        w.operation(),
        c -> w.op().send(c, w.ttl()),
        (value, failure) -> {
          m.inFlight.decrementAndGet();
          done(i, value, failure);
        });
  }

  private void done(int i, T value, Throwable failure) {
    replies[i] = failure != null ? failure : value;
    if (left.decrementAndGet() == 0) { // the last reply: every other one is visible here
      settle();
    }
  }

  private void settle() {
    Object outcome = outcome(steps.failback, t, w.key(), targets, 0, targets.length, replies, marks(t, w.kind()), w.combine());
    if (release != null) {
      release.exit();
    }
    CompletableFuture<Void> copies = generation < 0 ? null : steps.afterWrite(w.key(), generation, w.kind() == WriteSteps.Kind.REMOVES ? t.members(targets, 0, targets.length) : Member.NONE);
    if (copies == null) {
      complete(outcome, null);
    } else {
      copies.whenComplete((x, copyFailure) -> complete(outcome, copyFailure));
    }
  }

  /** Completes the result with {@code outcome}, or with {@code copyFailure} if that is not a failure. */
  @SuppressWarnings("unchecked")
  private void complete(Object outcome, Throwable copyFailure) {
    Throwable failure = outcome instanceof Throwable x ? x : copyFailure;
    if (failure != null) {
      result.completeExceptionally(failure);
    } else {
      result.complete((T) outcome);
    }
  }
}
