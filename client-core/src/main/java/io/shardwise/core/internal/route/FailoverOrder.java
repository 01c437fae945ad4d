package io.shardwise.core.internal.route;

import io.shardwise.routing.Router;
import java.util.function.IntPredicate;

/**
 * Where a key goes while nodes are out: the first available node of its preference order, and
 * the unavailable nodes it skips on the way, from {@link Router#walkToAvailable}. Allocation free:
 * each thread reuses its own route, and the built-in routers walk lazily (a few steps for the ring,
 * Maglev, jump and multi-probe; one pass for rendezvous, as its primary lookup).
 */
public final class FailoverOrder {

  /** No node is available for the key. */
  static final int NONE = -1;

  /** A key's route: its target and the nodes before it that were skipped. Per thread, reused. */
  public static final class Route {
    public int target;
    public final int[] skipped;
    public int skippedCount;

    Route(int nodes) {
      this.skipped = new int[nodes];
    }
  }

  private final Router router;
  private final int nodes;
  private final ThreadLocal<Route> routes;

  FailoverOrder(Router router) {
    this.router = router;
    this.nodes = router.size();
    this.routes = ThreadLocal.withInitial(() -> new Route(nodes));
  }

  /**
   * The route of a key with this hash: the first node of its preference order that is {@code
   * available}, or {@link #NONE}, with the nodes before it. The result belongs to the calling
   * thread and is overwritten by its next call.
   */
  public Route route(long keyHash, IntPredicate available) {
    Route route = routes.get();
    int skipped = router.walkToAvailable(keyHash, available, route.skipped);
    route.skippedCount = skipped;
    route.target = skipped < nodes ? route.skipped[skipped] : NONE;
    return route;
  }
}
