package io.shardwise.client;

import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A placement that replaced another at runtime: a new server list (see {@link
 * AsyncCacheClient#updateServers}), a new router or hash tag ({@link
 * AsyncCacheClient#updatePlacement}), or both.
 *
 * @param before the server list in force until the change
 * @param after the server list in force from {@code appliedAt}
 * @param added nodes of {@code after} whose address (host ignoring case, and port) was not in
 *     {@code before}; a server whose name or weight changes is neither added nor removed
 * @param removed nodes of {@code before} whose address is not in {@code after}
 * @param movedShare the share of keys (0 to 1) whose replica set changed (the servers that store
 *     the key: its node, with one replica; a change of the replica count changes every key's),
 *     measured on a fixed sample of keys with both routers
 * @param appliedAt when requests started to see {@code after}
 * @param warmUp how long, from {@code appliedAt}, moved keys are still taken over from their
 *     previous nodes: the settle phase plus the warm-up ({@link Duration#ZERO} when both are off or
 *     no key moved)
 * @param placementBefore the router (and hash tag, if any) in force until the change, as the
 *     client names it ({@code ketama(libketama)}); empty where unknown
 * @param placementAfter the router (and hash tag) in force from {@code appliedAt}
 */
public record TopologyChange(
    List<Node> before,
    List<Node> after,
    List<Node> added,
    List<Node> removed,
    double movedShare,
    Instant appliedAt,
    Duration warmUp,
    String placementBefore,
    String placementAfter) {

  public TopologyChange {
    Objects.requireNonNull(placementBefore, "placementBefore");
    Objects.requireNonNull(placementAfter, "placementAfter");
    before = List.copyOf(before);
    after = List.copyOf(after);
    added = List.copyOf(added);
    removed = List.copyOf(removed);
    Objects.requireNonNull(appliedAt, "appliedAt");
    Objects.requireNonNull(warmUp, "warmUp");
    if (!(movedShare >= 0 && movedShare <= 1)) {
      throw new IllegalArgumentException("moved share must be in [0, 1] but was " + movedShare);
    }
  }

  /** A change of the server list only, the router and hash tag unnamed. */
  public TopologyChange(
      List<Node> before,
      List<Node> after,
      List<Node> added,
      List<Node> removed,
      double movedShare,
      Instant appliedAt,
      Duration warmUp) {
    this(before, after, added, removed, movedShare, appliedAt, warmUp, "", "");
  }

  /** True when the new list is the old one, with the same router and hash tag: nothing changed. */
  public boolean isEmpty() {
    return before.equals(after) && placementBefore.equals(placementAfter);
  }

  /** Whether the router or the hash tag changed. */
  public boolean placementChanged() {
    return !placementBefore.equals(placementAfter);
  }

  @Override
  public String toString() {
    return (placementChanged() ? placementBefore + " -> " + placementAfter + ", " : "") + before.size() + " -> " + after.size() + " nodes (+" + added.size() + " -" + removed.size()
        + "), " + String.format(java.util.Locale.ROOT, "%.1f%%", movedShare * 100) + " of keys move";
  }
}
