package io.shardwise.core.internal.route;

import io.shardwise.client.NoNodeAvailableException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.FailureMode;
import io.shardwise.core.internal.health.Member;
import io.shardwise.spi.KeyRules;
import java.util.Locale;

/**
 * Where a key's requests go when every one of its replicas is out ({@link ReplicaRoutes} decides
 * the rest): as the failure mode says, the decisions alone, with no I/O, made from the members'
 * states and old-copy marks. Single-key and multi-key operations decide through the same methods.
 *
 * <ul>
 *   <li>{@link #readNode}: the node a read goes to, or why it goes nowhere;
 *   <li>{@link #writeWalk}: the node a write goes to, with the nodes it skips (the executor
 *       journals the write against them under their fences).
 * </ul>
 */
public final class Routes {

  /** {@link #readNode}: no node is available for the key. */
  public static final int NONE = FailoverOrder.NONE;

  /** {@link #readNode}: the only node left holds a copy that may be old; the read is a miss. */
  public static final int OLD_COPY = -2;

  private final FailureMode mode;

  public Routes(FailureMode mode) {
    this.mode = mode;
  }

  /** Whether writes and reads of a key whose node is out go to the next node of its order. */
  public boolean redistributes() {
    return mode == FailureMode.REDISTRIBUTE;
  }

  /**
   * The node for a key with this hash and primary under the failure mode: the primary if it is
   * available; with {@link FailureMode#REDISTRIBUTE} the first available node of the key's
   * preference order; else {@link #NONE}.
   */
  public int select(Topology t, long hash, int primary) {
    if (t.members[primary].available()) {
      return primary;
    }
    if (mode != FailureMode.REDISTRIBUTE) {
      return NONE;
    }
    return t.order.route(hash, t.available).target;
  }

  /**
   * The node a read of {@code key} goes to: {@link #select}'s, {@link #NONE}, or {@link #OLD_COPY}
   * when that node's copy of the key is marked old.
   */
  public int readNode(Topology t, long hash, int primary, String key) {
    int node = select(t, hash, primary);
    return node >= 0 && t.members[node].holdsOldCopy(key) ? OLD_COPY : node;
  }

  /**
   * Where a write of a key with this hash goes while its node is out: the first available node of
   * its order and the unavailable nodes it skips. The result belongs to the calling thread and is
   * overwritten by its next call (see {@link FailoverOrder}).
   */
  public static FailoverOrder.Route writeWalk(Topology t, long hash) {
    return t.order.route(hash, t.available);
  }

  /** The error for a request of {@code key} that found no node (see {@link #select}). */
  public ShardwiseException unavailable(Topology t, int primary, String key) {
    if (mode != FailureMode.REDISTRIBUTE) {
      Member m = t.members[primary];
      return new NodeUnavailableException(
          m.node,
          "ejected (" + m.state().name().toLowerCase(Locale.ROOT) + "); failure mode "
              + mode.id() + " does not send " + KeyRules.shorten(key) + " elsewhere");
    }
    return new NoNodeAvailableException(
        "no node is available for " + KeyRules.shorten(key) + ": all " + t.members.length + " nodes are ejected");
  }
}
