package io.shardwise.core;

import io.shardwise.client.TopologyChange;
import io.shardwise.core.internal.change.Placement;
import io.shardwise.core.internal.change.Topologies;
import io.shardwise.routing.Node;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The placement a client's next change starts from (the router's spec, the hash tag, the server
 * list, as last asked for), and the changes, all handed to {@link Topologies#update} in the order
 * they are asked for: a new server list is the placement with another list.
 */
final class PlacementChanges {

  /** A placement as asked for: {@code router} is null for a router the caller's function builds. */
  record Requested(RouterSpec router, Placement placement, List<Node> servers) {}

  private final Topologies topologies;
  private final int replicas;
  /** What the next change starts from. Guarded by this. */
  private Requested requested;
  /** The last placement applied (or the first). Guarded by this. */
  private Requested applied;

  PlacementChanges(Topologies topologies, int replicas, RouterSpec router, List<Node> servers) {
    this.topologies = topologies;
    this.replicas = replicas;
    this.requested = new Requested(router, topologies.placement(), List.copyOf(servers));
    this.applied = requested;
  }

  /** A change of the server list alone. */
  synchronized CompletableFuture<TopologyChange> servers(List<Node> servers) {
    if (replicas > 1) {
      // The settle and warm-up phases move one owner per key; replica sets are not handled yet.
      return CompletableFuture.failedFuture(
          new UnsupportedOperationException(
              "server-list changes with replicas " + replicas + " are not supported yet; the client keeps its "
                  + requested.servers().size() + " servers (restart it with the new list)"));
    }
    return submit(new Requested(requested.router(), requested.placement(), servers));
  }

  /** Hands {@code next} to the topologies; a change they refuse at once leaves nothing asked for. */
  private CompletableFuture<TopologyChange> submit(Requested next) {
    CompletableFuture<TopologyChange> change = topologies.update(next.placement(), next.servers());
    if (change.isCompletedExceptionally()) {
      return change;
    }
    requested = next;
    return change.whenComplete((c, failure) -> settled(next, failure == null));
  }

  private synchronized void settled(Requested next, boolean appliedNow) {
    if (appliedNow) {
      applied = next;
    } else if (requested == next) {
      requested = applied; // nothing asked for since: the next change starts from what is in force
    }
  }
}
