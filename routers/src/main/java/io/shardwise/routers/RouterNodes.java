package io.shardwise.routers;

import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.util.List;

/** Node-list checks and node hashes shared by the routers of this package. */
final class RouterNodes {

  /** 2^64 / golden ratio, odd: successive multiples are spread evenly over the 64-bit circle. */
  static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private RouterNodes() {}

  /**
   * Validates {@code nodes} (see {@link ServerList#validate}) and rejects any weight other than
   * 1, for routers that cannot honour weights.
   */
  static List<Node> validateUnweighted(String router, List<Node> nodes) {
    List<Node> valid = ServerList.validate(nodes);
    for (Node node : valid) {
      if (node.weight() != 1) {
        throw new IllegalArgumentException(
            router
                + " supports no weights: every node must have weight 1 but node '"
                + node.name()
                + "' has weight "
                + node.weight()
                + " (use hrw, maglev or a ring for weighted nodes)");
      }
    }
    return valid;
  }

  /** The Murmur3 hash of the UTF-8 bytes of the node's name. */
  static long nameHash(Node node) {
    return Murmur3.INSTANCE.hash(node.name());
  }

  /** Whether {@code a[0, length)} contains {@code value}. */
  static boolean contains(int[] a, int length, int value) {
    for (int i = 0; i < length; i++) {
      if (a[i] == value) {
        return true;
      }
    }
    return false;
  }
}
