package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Moves;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.spill.BoundedReads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Executes reads over a key's preference list, for any replica count ({@link Routes}): to one
 * available replica not marked old, then after a miss, an error or a timeout to the next (as
 * mcrouter's {@code MissFailoverRoute}); with every replica out, where the failure mode sends it
 * ({@link #unreadable}); under bounded loads, maybe past the replicas ({@link #spilled}). getMulti
 * does the same per key, in rounds of one request per node ({@link MultiGets}).
 */
public final class Gets<V> {

  final Requests requests;
  final Routes routes;
  final Repairs repairs;
  final ClientMetrics metrics;
  private final WarmUp warmUp;
  private final MultiGets<V> multi;

  public Gets(Requests requests, Routes routes, WarmUp warmUp, Repairs repairs, ClientMetrics metrics, ValueCodec<V> codec) {
    this.requests = requests;
    this.routes = routes;
    this.repairs = repairs;
    this.metrics = metrics;
    this.warmUp = warmUp;
    this.multi = new MultiGets<>(this, codec);
  }

  /** A read of {@code key} on {@code t}, which the caller counted itself on and which this read releases. */
  public <R> CompletableFuture<R> get(Topology t, String key, Function<CachedValue, R> decode) {
    CompletableFuture<R> f;
    try {
      if (t.replicas == 1 && t.bounded == null && !requests.retrying() && !t.readsHistory()) {
        // The common case, one replica up and not marked: one request (the plan decides the same).
        Member m = t.members[t.router.primary(t.hash(key))];
        if (m.available() && !m.holdsOldCopy(key)) {
          return requests.call(m, "get", c -> c.get(key), true, decode, t);
        }
      }
      Moves.Move move = t.readsHistory() ? Moves.route(t, key, System.nanoTime()) : null;
      f = read(t, move != null && move.readsElsewhere(t) ? move : null, key).thenApply(decode);
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((v, x) -> t.exit());
    return f;
  }

  /**
   * Where a read of {@code key} goes when none of its replicas in {@code p} can be read: {@link
   * Routes#OLD_COPY} (a miss) when those up, or the node the failure mode sends it to, hold a copy
   * marked old; else that node ({@link Routes#select}, the redirect counted), or {@link Routes#NONE}.
   */
  int unreadable(Topology t, String key, long hash, Routes.Plan p) {
    int primary = t.router.primary(hash);
    int node = p.writeCount > 0 ? p.writes[0] : routes.select(t, hash, primary);
    if (p.writeCount > 0 || node >= 0 && t.members[node].holdsOldCopy(key)) {
      metrics.oldCopySkipped(t.nodes.get(node));
      return Routes.OLD_COPY;
    } else if (node != Routes.NONE && node != primary) {
      metrics.redirected(t.nodes.get(primary), t.nodes.get(node), "failover");
    }
    return node;
  }

  /**
   * A read of {@code key} on {@code t}, in the order of its read plan. For a key that moves ({@code
   * move} not null, {@link Moves}): on its serving replicas, those that arrived first, then on its
   * sources, never spilled; once copies are due ({@link WarmUp}), a hit is copied to the replicas
   * that missed before it.
   */
  CompletableFuture<CachedValue> read(Topology t, Moves.Move move, String key) {
    Topology serving = move == null ? t : move.serving();
    long generation = move != null || repairs.enabled(t) ? warmUp.readGeneration(key) : NO_REPAIR;
    long hash = serving.hash(key);
    Routes.Plan p = routes.readPlan(serving, key, hash);
    if (p.readCount == 0) {
      int node = unreadable(serving, key, hash, p);
      CompletableFuture<CachedValue> one = node == Routes.NONE
          ? CompletableFuture.failedFuture(routes.unavailable(serving, serving.router.primary(hash), key))
          : node == Routes.OLD_COPY ? CompletableFuture.completedFuture(null) : requests.send(serving, node, "get", c -> c.get(key), true);
      return move == null ? one : one.thenCompose(
          found -> found != null ? CompletableFuture.completedFuture(found) : fromSources(move, key, 0, Member.NONE, generation));
    }
    int[] order = Arrays.copyOf(p.reads, p.readCount);
    boolean copies = move != null && move.copies() && serving == t;
    for (int i = 0, k = 0; copies && i < order.length; i++) {
      int node = order[i];
      if (Member.in(move.arrived(), t.members[node])) { // ahead of the others, in their order
        System.arraycopy(order, k, order, k + 1, i - k);
        order[k++] = node;
      }
    }
    int[] ranks = new int[order.length]; // of each node among the key's replicas
    for (int i = 0; i < order.length; i++) {
      ranks[i] = Routes.rank(p, order[i]);
    }
    return move == null && p.spill >= 0
        ? spilled(t, key, order, ranks, p.spill)
        : tryFrom(serving, move, key, order, ranks, 0, false, move == null || copies ? generation : NO_REPAIR, null, "get");
  }

  /**
   * A read spilled past every replica, over their caps, to {@code spill}: its copy there, else (a
   * failure counts as none) the replicas in {@code order}, the value then left there ({@link #leaveSpillCopy}).
   */
  private CompletableFuture<CachedValue> spilled(Topology t, String key, int[] order, int[] ranks, int spill) {
    BoundedReads.Spill planned = t.bounded.spillFor(key);
    long generation = planned == null ? 0 : planned.generation.get();
    metrics.redirected(t.nodes.get(order[0]), t.nodes.get(spill), "spill");
    return requests
        .send(t, spill, "get", c -> c.get(key))
        .exceptionally(failure -> null) // the spill node failed: read the replicas instead
        .thenCompose(
            copy -> copy != null
                ? CompletableFuture.completedFuture(copy)
                : tryFrom(t, null, key, order, ranks, 0, false, NO_REPAIR, null, FALLBACK).thenApply(
                    value -> {
                      leaveSpillCopy(t, key, value, spill, planned, generation, order, 0, order.length);
                      return value;
                    }));
  }

  /**
   * Leaves {@code value}, read on a replica after the spill node {@code spill} missed, there as a
   * copy under {@code planned} and its {@code generation}, noted before any replica was read (a
   * write confirmed since moved it: no older value is kept). None while a replica among {@code
   * order[from]} to {@code order[to - 1]} is marked old: a copy would outlive the write that marked it.
   */
  void leaveSpillCopy(
      Topology t, String key, CachedValue value, int spill, BoundedReads.Spill planned, long generation, int[] order, int from, int to) {
    if (value == null || planned == null) {
      return;
    }
    for (int i = from; i < to; i++) {
      if (t.members[order[i]].holdsOldCopy(key)) {
        return;
      }
    }
    t.bounded.leaveCopy(planned, generation, key, t.members[spill], value, requests);
  }

  /** Reads {@code key} on the sources of {@code move} from {@code index}, until one has it. */
  private CompletableFuture<CachedValue> fromSources(Moves.Move move, String key, int index, Member[] copyTo, long generation) {
    for (int i = index; i < move.sources().length; i++) {
      Member before = move.sources()[i];
      if (!before.available() || before.retired() || before.holdsOldCopy(key)) {
        continue;
      }
      int next = i + 1;
      return requests
          .send(before, "warmUpGet", c -> c.get(key))
          .handle(
              (old, failure) -> {
                if (failure == null) {
                  warmUp.read(before, move.owners()[0], old != null);
                }
                if (old != null) {
                  for (Member owner : copyTo) {
                    warmUp.copy(key, old, generation, before, owner, requests);
                  }
                }
                return old;
              })
          .thenCompose(
              old -> old != null
                  ? CompletableFuture.completedFuture(old)
                  : fromSources(move, key, next, copyTo, generation));
    }
    return CompletableFuture.completedFuture(null);
  }

  /** The operation name of the replicas' reads after a spill node missed, which the cap does not govern (docs/bounded.md). */
  private static final String FALLBACK = "getFallback";

  /** The generation of a read that repairs and copies nothing ({@link #tryFrom}). */
  private static final long NO_REPAIR = -1;

  /**
   * Reads {@code key} on {@code order[i]}, then on the next replicas after a miss or a failure. With
   * a {@code generation} (else {@link #NO_REPAIR}), a hit after misses is copied to the replicas that
   * missed ({@code missedOn}): a read repair ({@link Repairs#afterRead}), or for a key that moves, a
   * warm-up copy, its sources read once every replica missed ({@link #fromSources}).
   */
  private CompletableFuture<CachedValue> tryFrom(
      Topology t, Moves.Move move, String key, int[] order, int[] ranks, int i, boolean missed, long generation, List<Member> missedOn, String operation) {
    Member m = t.members[order[i]];
    if (t.replicated) {
      metrics.replicaRead(m.node, ranks[i]);
    }
    routes.sent(m); // counted as sent there
    CompletableFuture<CachedValue> sent;
    try {
      sent = requests.send(t, order[i], operation, c -> c.get(key), true);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    return sent.handle(
            (value, failure) -> {
              m.inFlight.decrementAndGet();
              if (value != null) {
                if (missedOn != null && move == null) {
                  repairs.afterRead(key, value, generation, m, missedOn);
                } else if (missedOn != null) {
                  for (Member owner : missedOn) {
                    warmUp.copy(key, value, generation, m, owner, requests);
                  }
                }
                return CompletableFuture.completedFuture(value);
              }
              List<Member> missing = missedOn;
              if (failure == null && generation != NO_REPAIR) {
                if (missing == null) {
                  missing = new ArrayList<>(order.length);
                }
                missing.add(m);
              }
              boolean anyMiss = missed || failure == null;
              if (i + 1 < order.length) {
                metrics.replicaFailover(m.node, t.nodes.get(order[i + 1]), failure == null ? "miss" : "error");
                return tryFrom(t, move, key, order, ranks, i + 1, anyMiss, generation, missing, operation);
              }
              if (!anyMiss) {
                return CompletableFuture.<CachedValue>failedFuture(failure);
              }
              return move == null
                  ? CompletableFuture.<CachedValue>completedFuture(null)
                  : fromSources(move, key, 0, missing == null ? Member.NONE : missing.toArray(Member.NONE), generation);
            })
        .thenCompose(Function.identity());
  }

  /** Sends a getMulti of {@code distinct} on {@code t} ({@link MultiGets}), releasing it when done; {@code read}, if any, is handed each value read. */
  public PendingGetMulti<V> start(Topology t, Set<String> distinct, BiConsumer<String, CachedValue> read) {
    return multi.start(t, distinct, read);
  }
}
