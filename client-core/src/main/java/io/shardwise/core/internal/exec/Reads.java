package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.spill.BoundedReads;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Reads of a key whose replicas are all out, routed as the failure mode says ({@link
 * Routes#readNode}: the next available node of the key's preference list, an error, or a miss for
 * a copy marked old), and the reads that spill past a key's replicas under bounded loads ({@link
 * #spilled}). {@link ReplicaGets} hands them over.
 */
public final class Reads {

  private final Requests requests;
  private final Routes routes;
  private final ClientMetrics metrics;

  public Reads(Requests requests, Routes routes, ClientMetrics metrics) {
    this.requests = requests;
    this.routes = routes;
    this.metrics = metrics;
  }

  /**
   * A read of {@code key}, whose replicas are all out, routed on {@code t} as the failure mode says
   * ({@link #failoverNode}): the next available node of its preference list, an error, or a miss
   * for a copy there marked old.
   */
  CompletableFuture<CachedValue> unreplicated(Topology t, String key) {
    long hash = t.hash(key);
    int node = failoverNode(t, key, hash);
    if (node == Routes.NONE) {
      return CompletableFuture.failedFuture(routes.unavailable(t, t.router.primary(hash), key));
    }
    return node == Routes.OLD_COPY ? CompletableFuture.completedFuture(null) : requests.send(t, node, "get", c -> c.get(key), true);
  }

  /**
   * The node a read of {@code key}, whose replicas are all out, goes to as the failure mode says
   * ({@link Routes#readNode}), its redirect counted; {@link Routes#NONE} when none (the error is
   * {@link Routes#unavailable}), or {@link Routes#OLD_COPY}, counted as skipped, when that node's
   * copy is marked old: the read is a miss.
   */
  int failoverNode(Topology t, String key, long hash) {
    int primary = t.router.primary(hash);
    int node = routes.readNode(t, hash, primary, key);
    if (node == Routes.OLD_COPY) {
      metrics.oldCopySkipped(t.nodes.get(routes.select(t, hash, primary)));
    } else if (node != Routes.NONE && node != primary) {
      metrics.redirected(t.nodes.get(primary), t.nodes.get(node), "failover");
    }
    return node;
  }

  /**
   * A read that spilled from {@code from}, over its cap, to {@code node}: the copy there if it has
   * one (a failure there counts as none), else what {@code fallback} reads where the key lives,
   * which is then left on {@code node} as a copy, unless a write of the key came in between or
   * {@code mayCopy}, asked once the value is read, says no (a replica the value may come from had
   * its copy marked old meanwhile: the write that marked it completes without it, and a copy of its
   * value made after would outlive that write). With {@code planned}, the key's copy record and its
   * generation noted when the read was planned (null: noted once the spill node missed): a write
   * confirmed after that moves it, and no copy of an older value read after it is kept.
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
