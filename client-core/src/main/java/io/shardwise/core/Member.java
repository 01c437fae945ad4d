package io.shardwise.core;

import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;

/**
 * One server and what the client keeps for it for as long as it is in the fleet, across server
 * list changes: its connection, its health, its failback journal and fence. A {@link Topology}
 * places members by index; a member in two successive topologies is the same object, so a change
 * of the server list carries its state over.
 */
final class Member {

  /** The server; a reweight or a new name replaces it with the same server (the same address). */
  volatile Node node;

  final NodeConnection connection;

  /** Set by {@link FleetHealth#admit}. */
  FleetHealth.NodeHealth health;

  /** Set by {@link Failback#admit}. */
  Failback.Slot failback;

  /** Closed: no longer in any topology in use. Its connection is closed and it is not probed. */
  volatile boolean retired;

  Member(Node node, NodeConnection connection) {
    this.node = node;
    this.connection = connection;
  }

  /**
   * What identifies the server across lists: its address (host ignoring case, and port). A server
   * whose weight or name changes is the same server, with the same data: it keeps its member, and
   * a key that stays on it has not moved.
   */
  static String identity(Node node) {
    return node.host().toLowerCase(java.util.Locale.ROOT) + "#" + node.port();
  }

  boolean available() {
    return health.available();
  }

  @Override
  public String toString() {
    return node.name();
  }
}
