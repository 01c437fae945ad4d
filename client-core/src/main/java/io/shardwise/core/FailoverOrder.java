package io.shardwise.core;

import io.shardwise.routing.Router;
import java.util.function.IntPredicate;

/**
 * Where a key goes while nodes are out: the first available node of its preference order, and
 * the unavailable nodes it skips on the way. Allocation free: each thread reuses its own buffers,
 * and most keys need only a short prefix of their order.
 */
final class FailoverOrder {

  /** No node is available for the key. */
  static final int NONE = -1;

  /** Nodes of the order looked at before the whole order is computed. */
  private static final int PREFIX = 8;

  /** A key's route: its target and the nodes before it that were skipped. Per thread, reused. */
  static final class Route {
    int target;
    final int[] skipped;
    int skippedCount;

    Route(int nodes) {
      this.skipped = new int[nodes];
    }
  }

  private final Router router;
  private final int nodes;
  private final ThreadLocal<int[]> orders;
  private final ThreadLocal<int[]> prefixes;
  private final ThreadLocal<Route> routes;

  FailoverOrder(Router router) {
    this.router = router;
    this.nodes = router.size();
    this.orders = ThreadLocal.withInitial(() -> new int[nodes]);
    this.prefixes = ThreadLocal.withInitial(() -> new int[Math.min(PREFIX, nodes)]);
    this.routes = ThreadLocal.withInitial(() -> new Route(nodes));
  }

  /**
   * The route of a key with this hash: the first node of its preference order that is {@code
   * available}, or {@link #NONE}, with the nodes before it. The result belongs to the calling
   * thread and is overwritten by its next call.
   */
  Route route(long keyHash, IntPredicate available) {
    Route route = routes.get();
    int[] prefix = prefixes.get();
    int count = router.preferenceOrder(keyHash, prefix);
    if (!walk(route, prefix, count, available) && count < nodes) {
      int[] order = orders.get();
      walk(route, order, router.preferenceOrder(keyHash, order), available);
    }
    return route;
  }

  private static boolean walk(Route route, int[] order, int count, IntPredicate available) {
    route.skippedCount = 0;
    route.target = NONE;
    for (int i = 0; i < count; i++) {
      if (available.test(order[i])) {
        route.target = order[i];
        return true;
      }
      route.skipped[route.skippedCount++] = order[i];
    }
    return false;
  }
}
