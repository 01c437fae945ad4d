package io.shardwise.core.internal.exec;

import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Topology;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BinaryOperator;

/**
 * For {@link ReplicaWrites}: a write sent to every replica in {@code targets}, and its outcome once
 * each has answered: the replies of those that succeeded, combined; the copies of those that failed
 * marked old ({@link #marks}); the first failure if none succeeded or a mark could not be recorded.
 * One callback per replica and no other stage: a set to two replicas costs one more request, and
 * little besides.
 */
final class ToAll<T> {
  private final Requests requests;
  private final Writes writes;
  private final Failback failback;
  private final Topology t;
  private final String key;
  private final int[] targets;
  private final Writes.Kind kind;
  private final BinaryOperator<T> combine;
  /** Released before the result completes, or null (the caller releases the topology). */
  private final Topology release;
  /** With repair on, the key's generation the write moved it to before it was sent, else -1. */
  private final long generation;
  private final Object[] values;
  private final Throwable[] failures;
  private final AtomicInteger left;
  private final CompletableFuture<T> result = new CompletableFuture<>();

  private ToAll(
      Requests requests, Writes writes, Failback failback, Topology t, String key, int[] targets, Writes.Kind kind, BinaryOperator<T> combine, Topology release, long generation) {
    this.requests = requests;
    this.writes = writes;
    this.failback = failback;
    this.t = t;
    this.key = key;
    this.targets = targets;
    this.kind = kind;
    this.combine = combine;
    this.release = release;
    this.generation = generation;
    this.values = new Object[targets.length];
    this.failures = new Throwable[targets.length];
    this.left = new AtomicInteger(targets.length);
  }

  /**
   * Sends the write of {@code key} to each of {@code targets}; {@code release}, if not null, is
   * released in the stage of the last reply.
   */
  static <T> CompletableFuture<T> send(
      Requests requests, Writes writes, Failback failback, Topology t, String key, int[] targets,
      String operation, Duration ttl, Writes.WriteOp<T> op, Writes.Kind kind, BinaryOperator<T> combine, Topology release, long generation) {
    ToAll<T> all = new ToAll<>(requests, writes, failback, t, key, targets, kind, combine, release, generation);
    for (int i = 0; i < targets.length; i++) {
      all.send(i, operation, ttl, op);
    }
    return all.result;
  }

  /**
   * Whether a replica whose write of kind {@code kind} failed gets its copy marked old: with other
   * copies of the key, which reads would otherwise alternate with (a touch changes no value). A
   * key's only copy is not marked: its reader sees the value before the write or the written one,
   * as after any write whose outcome is unknown.
   */
  static boolean marks(Topology t, Writes.Kind kind) {
    return kind != Writes.Kind.TOUCHES && t.replicated;
  }

  /**
   * Sends replica {@code i}'s request. Without bounded loads or retries, and with no old copy of
   * the key marked on the replica, straight to {@link Requests#callThen}: one stage per request.
   */
  private void send(int i, String operation, Duration ttl, Writes.WriteOp<T> op) {
    Member m = t.members[targets[i]];
    m.inFlight.incrementAndGet();
    if (release != null && m.oldCopies().stamp(key) == null) {
      requests.callThen(m, operation, c -> op.send(c, ttl), (value, failure) -> done(i, m, value, failure));
      return;
    }
    CompletableFuture<T> f;
    try {
      f = writes.send(t, targets[i], key, operation, ttl, op, kind);
    } catch (RuntimeException e) {
      f = CompletableFuture.failedFuture(e);
    }
    f.whenComplete((value, failure) -> done(i, m, value, failure));
  }

  private void done(int i, Member m, T value, Throwable failure) {
    m.inFlight.decrementAndGet();
    values[i] = value;
    failures[i] = failure;
    if (left.decrementAndGet() == 0) { // the last reply: every other one is visible here
      settle();
    }
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
      if (marks(t, kind) && !failback.markFailedCopy(t.members[targets[i]], key) && unmarked == null) {
        unmarked = failure;
      }
    }
    if (release != null) {
      release.exit();
    }
    Throwable failed = !any ? firstFailure : unmarked;
    CompletableFuture<Void> copies = generation < 0 ? null : writes.afterReplicatedWrite(key, generation, kind == Writes.Kind.REMOVES ? t.members(targets, 0, targets.length) : Member.NONE);
    if (copies == null) {
      complete(combined, failed);
      return;
    }
    T value = combined;
    copies.whenComplete((x, copyFailure) -> complete(value, failed != null ? failed : copyFailure));
  }

  private void complete(T value, Throwable failure) {
    if (failure != null) {
      result.completeExceptionally(failure);
    } else {
      result.complete(value);
    }
  }
}
