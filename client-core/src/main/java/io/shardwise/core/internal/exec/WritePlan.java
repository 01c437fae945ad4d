package io.shardwise.core.internal.exec;

import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.Fence;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The keys of one multi-key write on one placement, grouped by the node each goes to: its node,
 * or while that is out the node {@link Writes#redirect} picks through {@code fence} (journaled
 * against the nodes skipped); keys with no node are already errors. {@link MultiWrites} sends one
 * batch per list.
 */
final class WritePlan {
  final Topology t;
  final List<List<String>> byNode = new ArrayList<>();
  /** Keys sent elsewhere because their node is out, per node they go to, with the failover TTL. */
  final List<List<String>> redirectedByNode;
  /** The node of each key, in the order the keys were given; {@link Routes#NONE} if none. */
  final int[] nodeOf;
  final Map<String, ShardwiseException> unavailable = new LinkedHashMap<>();

  private final Routes routes;
  private final Writes writes;

  WritePlan(Topology t, Collection<String> keys, Fence fence, Routes routes, Writes writes) {
    this.t = t;
    this.routes = routes;
    this.writes = writes;
    int n = t.nodes.size();
    for (int i = 0; i < n; i++) {
      byNode.add(null);
    }
    redirectedByNode = new ArrayList<>(Collections.nCopies(n, null));
    nodeOf = new int[keys.size()];
    int index = 0;
    for (String key : keys) {
      long hash = t.hash(key);
      nodeOf[index++] = route(key, hash, t.router.primary(hash), fence);
    }
  }

  private int route(String key, long hash, int primary, Fence fence) {
    if (t.members[primary].available()) {
      return add(byNode, primary, key);
    }
    if (!routes.redistributes()) {
      unavailable.put(key, routes.unavailable(t, primary, key));
      return Routes.NONE;
    }
    int target;
    try {
      target = writes.redirect(t, key, hash, primary, fence);
    } catch (ShardwiseException e) {
      unavailable.put(key, e);
      return Routes.NONE;
    }
    return add(target == primary ? byNode : redirectedByNode, target, key);
  }

  private int add(List<List<String>> lists, int node, String key) {
    List<String> list = lists.get(node);
    if (list == null) {
      list = new ArrayList<>(Math.max(10, 2 * nodeOf.length / lists.size()));
      lists.set(node, list);
    }
    list.add(key);
    return node;
  }
}
