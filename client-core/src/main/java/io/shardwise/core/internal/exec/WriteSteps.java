package io.shardwise.core.internal.exec;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.health.DirtyCopies;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.FailoverOrder;
import io.shardwise.core.internal.route.Moves;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * What a write of one key does alone or in a batch ({@link Writes}, {@link MultiWrites}): its route
 * through the {@link Failback} fence ({@link #targets}, {@link #redirect}), its hand-over to a node
 * where the key's copy is marked old ({@link #send}), the marks it leaves on a moved key's former
 * replicas ({@link #markFormerOwners}), and its end when copies may race it ({@link #afterWrite}).
 */
public final class WriteSteps {

  /** A write to one connection, with the TTL to give it (null for writes without one). */
  @FunctionalInterface
  public interface WriteOp<T> {
    CompletableFuture<T> send(NodeConnection connection, Duration ttl);
  }

  /** What a write does besides storing: see {@link Writes#write}. */
  public enum Kind {
    /** Leaves no older value on its node (set): an old copy marked there needs no delete first. */
    REPLACES,
    /** Removes the key (delete): as {@link #REPLACES}, and a warm-up copy racing it is deleted again. */
    REMOVES,
    /** Leaves an older value on its node if there is one (add, incr): a marked copy is deleted first. */
    KEEPS,
    /** As {@link #KEEPS}, and the spilled copies of the key stay (touch changes no value). */
    TOUCHES
  }

  final Requests requests;
  final Routes routes;
  final Failback failback;
  /** The warm-up and repair copies under way, which a write may race (see {@link #afterWrite}). */
  final WarmUp warmUp;
  private final ClientMetrics metrics;

  public WriteSteps(Requests requests, Routes routes, Failback failback, WarmUp warmUp, ClientMetrics metrics) {
    this.requests = requests;
    this.routes = routes;
    this.failback = failback;
    this.warmUp = warmUp;
    this.metrics = metrics;
  }

  /**
   * The end of a write that warm-up or repair copies may race, which moved the key's generation to
   * {@code generation} before it was sent (else -1): the generation moves again, so that a copy read
   * while the write was under way is not kept. While copies are under way, completes once the key's
   * are done ({@link WarmUp}), after a write that removed the key from {@code deleteLateOn} has a
   * copy sent since deleted again ({@link #deleteLateCopies}); null when no copy can race it.
   */
  CompletableFuture<Void> afterWrite(String key, long generation, Member[] deleteLateOn) {
    warmUp.bump(key);
    boolean late = deleteLateOn.length > 0 && warmUp.copiedSince(key, generation);
    if (!late && !warmUp.copying()) {
      return null;
    }
    CompletableFuture<Void> copies = warmUp.awaitCopies(key);
    return deleteLateOn.length == 0 ? copies : copies.thenCompose(x -> deleteLateCopies(deleteLateOn, key, generation));
  }

  /**
   * Deletes on each of {@code owners} a copy that a read during a delete may have added ({@link
   * WarmUp#copiedSince}), as {@link #clear} does, the mark made by {@link WarmUp#keptCopy}.
   */
  CompletableFuture<Void> deleteLateCopies(Member[] owners, String key, long generation) {
    List<CompletableFuture<Void>> deletes = new ArrayList<>(owners.length);
    for (Member owner : owners) {
      if (warmUp.copiedSince(key, generation)) {
        deletes.add(clear(owner, key, f -> warmUp.keptCopy(owner, key, f)).thenCompose(kept -> kept == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(kept)));
      }
    }
    return Requests.allOf(deletes);
  }

  /**
   * Deletes the key's copy on {@code m}, where a read may look; if {@code m} is out or the delete
   * fails, {@code kept} marks the copy old instead, given the reason. Completes with null, or with
   * what {@code kept} returned: the failure to report when the mark could not be recorded either.
   */
  CompletableFuture<Throwable> clear(Member m, String key, Function<Throwable, Throwable> kept) {
    CompletableFuture<Throwable> deleted =
        m.retired() || !m.available()
            ? CompletableFuture.completedFuture(new IllegalStateException(m.node + " is out"))
            : requests.send(m, "moveDelete", c -> c.delete(key)).handle((r, f) -> f);
    return deleted.thenApply(f -> f == null ? null : kept.apply(f));
  }

  /**
   * Marks old the key's copies on its former owners ({@link Moves}), except on {@code targets}, the
   * nodes that take the write (none if not known yet); copies written elsewhere while a former owner
   * was out are marked too, but on the first target ({@link Failback#markOldCopy}).
   */
  void markFormerOwners(String key, Moves.Move move, Member[] targets) {
    Member first = targets.length == 0 ? null : targets[0];
    for (Member former : move.formerOwners()) {
      if (!Member.in(targets, former)) {
        failback.markOldCopy(former, key, first);
      }
    }
  }

  /**
   * Routes a write of {@code key} on {@code t} inside {@code fence}: its available replicas, in
   * preference order, into {@code into} from {@code at}, journaled against those out; returns how
   * many, or -1 for the node the failure mode sends it to when all are out ({@link #redirect}, with
   * the failover TTL). {@code refuse}, if not null, may refuse it before anything is journaled.
   * Throws a {@link ShardwiseException} when refused, a journal is full, the failure mode sends the
   * key nowhere, or its replicas kept coming back while it was routed.
   */
  int targets(Topology t, String key, long hash, Fence fence, int[] into, int at, Function<Routes.Plan, ShardwiseException> refuse) {
    for (int attempt = 0; attempt <= t.replicas; attempt++) {
      Routes.Plan p = routes.plan(t, key, hash);
      if (p.outCount > 0) {
        if (!fence.enter(t.members, p.out, p.outCount)) {
          continue; // a replica came back meanwhile: plan again
        }
        ShardwiseException refused = refuse == null ? null : refuse.apply(p);
        if (refused != null) {
          throw refused;
        }
        if (p.writeCount == 0) {
          // Every replica out, and kept out by the fences held: where the failure mode says.
          int primary = p.replicas[0];
          if (!routes.redistributes()) {
            throw routes.unavailable(t, primary, key);
          }
          into[at] = redirect(t, key, hash, primary, fence);
          return into[at] == primary ? 1 : -1;
        }
        NodeUnavailableException full = fence.recordMissed(t.members, key, p.out, p.outCount);
        if (full != null) {
          throw full;
        }
      }
      System.arraycopy(p.writes, 0, into, at, p.writeCount);
      return p.writeCount;
    }
    throw new NodeUnavailableException(
        t.members[t.router.primary(hash)].node, "the replicas of " + KeyRules.shorten(key) + " kept coming back while it was routed");
  }

  /**
   * Where a write of {@code key} whose primary is out goes under the redistribute failure mode: the
   * next available node of its order ({@link FailoverOrder}), journaled against the nodes skipped;
   * throws a {@link ShardwiseException} when none is available, or a skipped node's journal is full.
   */
  int redirect(Topology t, String key, long hash, int primary, Fence fence) {
    for (int attempt = 0; attempt <= t.nodes.size(); attempt++) {
      FailoverOrder.Route route = t.order.route(hash, t.available);
      int target = route.target;
      if (target == Routes.NONE) {
        throw routes.unavailable(t, primary, key);
      }
      if (route.skippedCount == 0) {
        return target;
      }
      if (!fence.enter(t.members, route.skipped, route.skippedCount)) {
        continue; // a skipped node came back meanwhile: route again
      }
      ShardwiseException full = fence.record(t.members, key, t.members[target], route.skipped, route.skippedCount);
      if (full != null) {
        throw full;
      }
      metrics.redirected(t.nodes.get(primary), t.nodes.get(target), "failover");
      return target;
    }
    throw new IllegalStateException("nodes of " + KeyRules.shorten(key) + " kept coming back while it was routed");
  }

  /**
   * Sends a write of {@code key} to {@code node} of {@code t}, counted as under way there while it
   * is ({@link Member#inFlight}). If the node's copy of the key is marked old ({@link DirtyCopies}),
   * the write is handed over in the order of the node's old-copy deletes, after a delete of the key
   * when the write alone would leave the old value, and the mark is cleared once it is confirmed.
   */
  <T> CompletableFuture<T> send(Topology t, int node, String key, String operation, Duration ttl, WriteOp<T> op, Kind kind) {
    Member m = t.members[node];
    m.inFlight.incrementAndGet();
    CompletableFuture<T> sent;
    try {
      sent = sendTo(t, m, node, key, operation, ttl, op, kind);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.whenComplete((v, x) -> m.inFlight.decrementAndGet());
  }

  private <T> CompletableFuture<T> sendTo(Topology t, Member m, int node, String key, String operation, Duration ttl, WriteOp<T> op, Kind kind) {
    DirtyCopies marks = m.oldCopies();
    Long stamp = marks.stamp(key);
    if (stamp == null) {
      return requests.send(t, node, operation, c -> op.send(c, ttl));
    }
    boolean replaces = kind == Kind.REPLACES || kind == Kind.REMOVES;
    CompletableFuture<?>[] delete = new CompletableFuture<?>[1];
    CompletableFuture<T> sent =
        marks.handOff(
            () -> {
              delete[0] =
                  replaces ? CompletableFuture.completedFuture(null) : requests.send(m, "deleteOldCopy", c -> c.delete(key));
              return requests.send(t, node, operation, c -> op.send(c, ttl));
            });
    return sent.whenComplete(
        (r, failure) -> {
          if (failure == null && delete[0].isDone() && !delete[0].isCompletedExceptionally()) {
            marks.cleared(key, stamp); // the old copy is gone: replaced or deleted before
          }
        });
  }

  /** {@code written}, then the end {@link #afterWrite} gives it. */
  <T> CompletableFuture<T> healed(String key, long generation, Member[] deleteLateOn, CompletableFuture<T> written) {
    return written
        .handle((r, x) -> (Void) null)
        .thenCompose(
            x -> {
              CompletableFuture<Void> copies = afterWrite(key, generation, deleteLateOn);
              return copies == null ? written : copies.thenCompose(y -> written);
            });
  }
}
