package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.MovedKeys;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.spill.BoundedReads;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Executes single-key reads: the node {@link Routes#readNode} names (one request, the common case),
 * a spill with bounded loads, and a key that moved in a server-list change, read on its serving
 * node and then on its sources ({@link MovedKeys}), a hit there copied over ({@link WarmUp}).
 */
public final class Reads {

  private final Requests requests;
  private final Routes routes;
  private final WarmUp warmUp;
  private final ClientMetrics metrics;

  public Reads(Requests requests, Routes routes, WarmUp warmUp, ClientMetrics metrics) {
    this.requests = requests;
    this.routes = routes;
    this.warmUp = warmUp;
    this.metrics = metrics;
  }

  /**
   * A read of {@code key} on {@code t}, which the caller counted itself on ({@link Topology#active})
   * and which this read releases when done; the value is decoded with {@code decode} in the stage
   * that handles the reply.
   */
  public <V> CompletableFuture<V> get(Topology t, String key, Function<CachedValue, V> decode) {
    CompletableFuture<V> f;
    try {
      if (t.bounded == null && !requests.retrying() && !t.readsHistory()) {
        // The common case, one request: the topology is released in the stage of its reply.
        long hash = t.hash(key);
        return plain(t, key, hash, t.router.primary(hash), decode);
      }
      f = routed(t, key).thenApply(decode);
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    f.whenComplete((v, x) -> t.exit());
    return f;
  }

  /** One request to the node {@link Routes#readNode} names; releases {@code t} in its reply's stage. */
  private <V> CompletableFuture<V> plain(
      Topology t, String key, long hash, int primary, Function<CachedValue, V> decode) {
    int node = routes.readNode(t, hash, primary, key);
    if (node < 0) {
      t.exit();
      return node == Routes.OLD_COPY
          ? oldCopy(t, hash, primary).thenApply(decode)
          : CompletableFuture.failedFuture(routes.unavailable(t, primary, key));
    }
    redirected(t, primary, node);
    return requests.call(t.members[node], "get", c -> c.get(key), true, decode, t);
  }

  /** A read that is not the common case: bounded loads, retries, or a change being taken over. */
  private CompletableFuture<CachedValue> routed(Topology t, String key) {
    long now = System.nanoTime();
    MovedKeys.Move move = t.readsHistory(now) ? MovedKeys.route(t, key, now) : null;
    if (move == null || (move.serving == t && move.sources.length == 0)) {
      long hash = t.hash(key);
      return onServing(t, key, hash, t.router.primary(hash));
    }
    return moved(t, move, key);
  }

  /**
   * A read routed on {@code t}: a spill of its primary, or the node {@link Routes#readNode} names;
   * null for a copy that may be old.
   */
  private CompletableFuture<CachedValue> onServing(Topology t, String key, long hash, int primary) {
    int spill = Routes.spillNode(t, key, hash, primary);
    if (spill >= 0) {
      return spilled(t, key, primary, spill);
    }
    int node = routes.readNode(t, hash, primary, key);
    if (node == Routes.NONE) {
      return CompletableFuture.failedFuture(routes.unavailable(t, primary, key));
    }
    if (node == Routes.OLD_COPY) {
      return oldCopy(t, hash, primary);
    }
    redirected(t, primary, node);
    return requests.send(t, node, "get", c -> c.get(key), true);
  }

  /**
   * A read of {@code key} routed on {@code t} as a single-copy read (a spill, the failure mode's
   * node, or a miss for a copy marked old): for a key whose replicas are all out.
   */
  CompletableFuture<CachedValue> unreplicated(Topology t, String key) {
    long hash = t.hash(key);
    return onServing(t, key, hash, t.router.primary(hash));
  }

  /** A read answered as a miss because its node's copy is marked old. */
  private CompletableFuture<CachedValue> oldCopy(Topology t, long hash, int primary) {
    metrics.oldCopySkipped(t.nodes.get(routes.select(t, hash, primary)));
    return CompletableFuture.completedFuture(null);
  }

  private void redirected(Topology t, int primary, int node) {
    if (node != primary) {
      metrics.redirected(t.nodes.get(primary), t.nodes.get(node), "failover");
    }
  }

  /**
   * A read of a key that moved in a change still being taken over: on its serving node (the
   * previous owner while the change settles, else its new node, or where the failure mode sends
   * it), then after a miss on each source in turn. A hit on a source is copied to the new node if
   * that node was read and copies are due (see {@link WarmUp}).
   */
  private CompletableFuture<CachedValue> moved(Topology t, MovedKeys.Move move, String key) {
    long generation = warmUp.generation(key);
    Topology serving = move.serving;
    int primary = move.servingPrimary;
    boolean copyToOwner = move.copies && serving == t && t.members[primary].available();
    CompletableFuture<CachedValue> first =
        copyToOwner && !t.members[primary].holdsOldCopy(key)
            ? requests.send(t, primary, "get", c -> c.get(key), true)
            : onServing(serving, key, serving.hash(key), primary);
    return first.thenCompose(
        found -> found != null
            ? CompletableFuture.completedFuture(found)
            : fromSources(move, key, 0, copyToOwner, generation));
  }

  /** Reads {@code key} on the sources of {@code move} from {@code index}, until one has it. */
  private CompletableFuture<CachedValue> fromSources(
      MovedKeys.Move move, String key, int index, boolean copyToOwner, long generation) {
    for (int i = index; i < move.sources.length; i++) {
      Member before = move.sources[i];
      if (!before.available() || before.retired() || before.holdsOldCopy(key)) {
        continue;
      }
      int next = i + 1;
      return requests
          .send(before, "warmUpGet", c -> c.get(key))
          .handle(
              (old, failure) -> {
                if (failure == null) {
                  warmUp.read(before, move.owner, old != null);
                }
                if (old != null && copyToOwner) {
                  warmUp.copy(key, old, generation, before, move.owner, requests);
                }
                return old;
              })
          .thenCompose(
              old -> old != null
                  ? CompletableFuture.completedFuture(old)
                  : fromSources(move, key, next, copyToOwner, generation));
    }
    return CompletableFuture.completedFuture(null);
  }

  /**
   * A read that spilled from its over-cap primary to {@code node}: the copy there if it has one,
   * else the primary's value, which is then left there as a copy (see {@link BoundedReads}).
   */
  private CompletableFuture<CachedValue> spilled(Topology t, String key, int primary, int node) {
    return spilled(t, key, primary, node, () -> requests.send(t, primary, "getFallback", c -> c.get(key)), () -> true);
  }

  /**
   * A read that spilled from {@code from}, over its cap, to {@code node}: the copy there if it has
   * one (a failure there counts as none), else what {@code fallback} reads where the key lives,
   * which is then left on {@code node} as a copy, unless a write of the key came in between or
   * {@code mayCopy}, asked once the value is read, says no (a replica the value may come from had
   * its copy marked old meanwhile: the write that marked it completes without it, and a copy of its
   * value made after would outlive that write).
   */
  CompletableFuture<CachedValue> spilled(
      Topology t,
      String key,
      int from,
      int node,
      Supplier<CompletableFuture<CachedValue>> fallback,
      BooleanSupplier mayCopy) {
    return spilled(t, key, from, node, fallback, mayCopy, null, 0);
  }

  /**
   * {@link #spilled}, with the key's copy record and its generation noted when the read was
   * planned (null: noted once the spill node missed): a write confirmed after that moves it, and no
   * copy of an older value read after it is kept.
   */
  CompletableFuture<CachedValue> spilled(
      Topology t,
      String key,
      int from,
      int node,
      Supplier<CompletableFuture<CachedValue>> fallback,
      BooleanSupplier mayCopy,
      BoundedReads.Spill planned,
      long plannedGeneration) {
    metrics.redirected(t.nodes.get(from), t.nodes.get(node), "spill");
    BoundedReads bounded = t.bounded;
    return requests
        .send(t, node, "get", c -> c.get(key))
        .exceptionally(failure -> null) // the spill node failed: read where the key lives instead
        .thenCompose(
            copy -> {
              if (copy != null) {
                return CompletableFuture.completedFuture(copy);
              }
              BoundedReads.Spill spill = planned != null ? planned : bounded.spillFor(key);
              long generation = planned != null ? plannedGeneration : spill == null ? 0 : spill.generation.get();
              return fallback
                  .get()
                  .thenApply(
                      value -> {
                        if (value != null && spill != null && mayCopy.getAsBoolean()) {
                          bounded.leaveCopy(spill, generation, key, t.members[node], value, requests);
                        }
                        return value;
                      });
            });
  }
}
