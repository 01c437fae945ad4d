package io.shardwise.core;

import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.spi.NodeConnection;
import java.util.List;

/**
 * An immutable snapshot of the fleet: the nodes, the router built for them and one connection per
 * node, index for index. The client holds it by reference; routing reads only this object.
 */
final class Topology {

  final List<Node> nodes;
  final Router router;
  final HashTag hashTag;
  final NodeConnection[] connections;

  Topology(Router router, HashTag hashTag, NodeConnection[] connections) {
    this.nodes = router.nodes();
    this.router = router;
    this.hashTag = hashTag;
    this.connections = connections;
    if (connections.length != nodes.size()) {
      throw new IllegalArgumentException(connections.length + " connections for " + nodes.size() + " nodes");
    }
  }

  /**
   * The routing hash of {@code key}: of its hash tag if it has one. Allocation free. With a
   * single node every hash leads to it, so none is computed.
   */
  long hash(String key) {
    return nodes.size() == 1 ? 0 : hashTag.hash(router.hasher(), key);
  }

  /** Index of the node {@code key} is routed to when every node is healthy. Allocation free. */
  int primary(String key) {
    return router.primary(hash(key));
  }

  int indexOf(Node node) {
    int i = nodes.indexOf(node);
    if (i < 0) {
      throw new IllegalArgumentException(node + " is not a node of this client; nodes: " + nodes);
    }
    return i;
  }
}
