package io.shardwise.core;

import io.shardwise.client.NodeStatus;
import io.shardwise.core.internal.heal.Refills;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.near.NearCache;
import io.shardwise.routing.Node;
import java.util.Map;

/**
 * A client's {@code nodeStatus()}: each member's health, with the repair under way on it and, with
 * a near cache, whether its server keeps the near cache fresh ({@link NearCache#tracking}).
 */
final class NodeStatuses {

  private NodeStatuses() {}

  /** @param near null when the client has no near cache */
  static Map<Node, NodeStatus> of(FleetHealth health, Member[] members, Repairs repairs, Refills refills, NearCache near) {
    Map<Node, NodeStatus> status = health.status(members);
    for (Member m : members) {
      int copies = repairs.handoffsPending(m);
      long missing = refills.missing(m);
      if (copies > 0 || missing > 0) {
        status.computeIfPresent(m.node, (node, s) -> s.withCopiesToRepair(copies).withMissingCopies(missing));
      }
      if (near != null) {
        status.computeIfPresent(m.node, (node, s) -> s.withNearCache(near.tracking(m.connection)));
      }
    }
    return status;
  }
}
