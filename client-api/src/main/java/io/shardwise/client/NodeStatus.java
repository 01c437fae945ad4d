package io.shardwise.client;

import io.shardwise.routing.Node;
import java.time.Instant;
import java.util.Objects;

/**
 * One node in the client's view of the fleet: its {@link NodeState}, since when, and why.
 *
 * @param node the node
 * @param state where it stands
 * @param since when it entered that state (the client's start for a node that never left {@code
 *     HEALTHY})
 * @param detail why, in words, or empty: the failure that ejected it, the last probe's failure,
 *     the rejoin step the server refused (which keeps it out until fixed), or for a {@code HEALTHY}
 *     node that keeps failing, why it is not ejected
 * @param journaledKeys keys written elsewhere while it is out, to be deleted on it before it
 *     serves again (0 for a healthy node)
 * @param copiesToRepair with replicas and repair on, the keys whose copy this client knows the node
 *     lacks and is handing over to it from the other replicas (the keys it missed while it was out,
 *     and the copies of failed writes deleted there): the repair under way; 0 when none
 * @param missingCopies with replicas and repair on, while the node is refilled after it came back
 *     empty (restarted or flushed, as its {@code stats} or {@code INFO} tell): an estimate of the
 *     keys it lacks, what it held at the check before less what it holds now (all of the server's
 *     keys, other applications' too); 0 when no refill is under way
 * @param nearCache with a near cache, whether the server tells it when a value read from the node
 *     changes ({@link NearCacheTracking}); {@link NearCacheTracking#OFF} without one
 */
public record NodeStatus(
    Node node,
    NodeState state,
    Instant since,
    String detail,
    int journaledKeys,
    int copiesToRepair,
    long missingCopies,
    NearCacheTracking nearCache) {

  public NodeStatus {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(since, "since");
    Objects.requireNonNull(detail, "detail");
    if (journaledKeys < 0) {
      throw new IllegalArgumentException("journaled keys must be >= 0 but was " + journaledKeys);
    }
    if (copiesToRepair < 0) {
      throw new IllegalArgumentException("copies to repair must be >= 0 but was " + copiesToRepair);
    }
    if (missingCopies < 0) {
      throw new IllegalArgumentException("missing copies must be >= 0 but was " + missingCopies);
    }
    Objects.requireNonNull(nearCache, "nearCache");
  }

  /** A status of a client without a near cache. */
  public NodeStatus(
      Node node, NodeState state, Instant since, String detail, int journaledKeys, int copiesToRepair, long missingCopies) {
    this(node, state, since, detail, journaledKeys, copiesToRepair, missingCopies, NearCacheTracking.OFF);
  }

  /** A status with no repair under way. */
  public NodeStatus(Node node, NodeState state, Instant since, String detail, int journaledKeys) {
    this(node, state, since, detail, journaledKeys, 0, 0);
  }

  /** This status with {@code copies} to repair. */
  public NodeStatus withCopiesToRepair(int copies) {
    return new NodeStatus(node, state, since, detail, journaledKeys, copies, missingCopies, nearCache);
  }

  /** This status with about {@code missing} copies missing after the node came back empty. */
  public NodeStatus withMissingCopies(long missing) {
    return new NodeStatus(node, state, since, detail, journaledKeys, copiesToRepair, missing, nearCache);
  }

  /** This status with the near cache's {@code tracking} of the node. */
  public NodeStatus withNearCache(NearCacheTracking tracking) {
    return new NodeStatus(node, state, since, detail, journaledKeys, copiesToRepair, missingCopies, tracking);
  }

  @Override
  public String toString() {
    return node.name() + " " + state + " since " + since + (detail.isEmpty() ? "" : ": " + detail);
  }
}
