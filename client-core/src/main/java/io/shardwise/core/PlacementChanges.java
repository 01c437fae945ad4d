package io.shardwise.core;

import io.shardwise.client.TopologyChange;
import io.shardwise.core.config.PlacementSettings;
import io.shardwise.core.internal.change.Placement;
import io.shardwise.core.internal.change.Topologies;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The placement a client's next change starts from (the router's spec, the hash tag, the server
 * list, the bounded-load options, as last asked for), and the changes, all handed to {@link Topologies#update} in the order
 * they are asked for: a new server list is the placement with another list.
 */
final class PlacementChanges {

  /** A placement as asked for, and as the topologies build it. */
  private record Requested(PlacementSettings settings, Placement placement) {}

  private final Topologies topologies;
  /** What the next change starts from. Guarded by this. */
  private Requested requested;
  /** The last placement applied (or the first). Guarded by this. */
  private Requested applied;

  /** @param router the router's spec, or null for a router the caller's function builds */
  PlacementChanges(Topologies topologies, int replicas, RouterSpec router, HashTag hashTag, List<Node> servers) {
    this.topologies = topologies;
    this.requested =
        new Requested(
            PlacementSettings.of(router, hashTag, servers, replicas, topologies.placement().bounded()),
            topologies.placement());
    this.applied = requested;
  }

  /** A change of the server list alone. */
  synchronized CompletableFuture<TopologyChange> servers(List<Node> servers) {
    PlacementSettings s = requested.settings();
    if (!servers.isEmpty() && servers.size() < s.replicas()) {
      return CompletableFuture.failedFuture(tooFew(servers.size(), s.replicas()));
    }
    return submit(
        new Requested(
            PlacementSettings.of(s.router(), s.hashTag(), servers, s.replicas(), s.bounded()), requested.placement()));
  }

  /**
   * A change of the placement keys in {@code settings}, the others kept as last asked for; refused
   * as a whole, the placement in force serving on, for a bad value or a key that is not one of them.
   */
  synchronized CompletableFuture<TopologyChange> placement(Map<String, String> settings) {
    PlacementSettings next;
    try {
      next = requested.settings().with(settings);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("placement change refused, the placement in force stays: " + e.getMessage(), e));
    }
    PlacementSettings s = requested.settings();
    boolean samePlacement = Objects.equals(next.router(), s.router()) && next.hashTag().equals(s.hashTag());
    if (!next.servers().isEmpty() && next.servers().size() < next.replicas()) {
      return CompletableFuture.failedFuture(tooFew(next.servers().size(), next.replicas()));
    }
    Placement placement =
        samePlacement
            ? requested.placement().withBounded(next.bounded()).withReplicas(next.replicas())
            : new Placement(
                next.router() != null ? next.router()::build : topologies.placement().routers(),
                next.hashTag(),
                next.describeRouter(),
                next.bounded(),
                next.replicas());
    return submit(new Requested(next, placement));
  }

  /** A server list shorter than the number of replicas, refused: the list in force stays. */
  private IllegalArgumentException tooFew(int servers, int replicas) {
    return new IllegalArgumentException(
        "shardwise.servers: " + servers + " server(s) cannot hold shardwise.replicas=" + replicas
            + " (every key is stored on that many distinct servers); the client keeps its "
            + requested.settings().servers().size() + " servers");
  }

  /** Hands {@code next} to the topologies; a change they refuse at once leaves nothing asked for. */
  private CompletableFuture<TopologyChange> submit(Requested next) {
    CompletableFuture<TopologyChange> change = topologies.update(next.placement(), next.settings().servers());
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
