package io.shardwise.core;

import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;

/**
 * A snapshot of the fleet: the nodes, the router built for them and the {@link Member} at each
 * router index, with what is built per server list (the failover order, the bounded-load state).
 * The client holds the current one by reference and replaces it whole when the server list
 * changes; a request reads it once and uses that snapshot to the end.
 *
 * <p>{@link #active} counts the operations using this snapshot, so that the client knows when
 * one that was replaced is no longer used and the members only it referred to can be closed.
 */
final class Topology {

  final List<Node> nodes;
  final Router router;
  final HashTag hashTag;
  final Member[] members;
  final FailoverOrder order;
  /** Whether the member at an index is available; one object, so walks allocate nothing. */
  final IntPredicate available;
  /** Null when bounded loads are off. */
  final BoundedReads bounded;
  /** The change this topology came from while its keys are still moving; else null. */
  final Transition transition;
  final LongAdder active = new LongAdder();
  /** When this topology was replaced; set once, on the topology thread. */
  long replacedAtNanos;

  Topology(Router router, HashTag hashTag, Member[] members, BoundedReads bounded, Transition transition) {
    this(router, hashTag, members, new FailoverOrder(router), bounded, transition);
  }

  private Topology(
      Router router, HashTag hashTag, Member[] members, FailoverOrder order, BoundedReads bounded, Transition transition) {
    this.nodes = router.nodes();
    this.router = router;
    this.hashTag = hashTag;
    this.members = members;
    this.order = order;
    this.bounded = bounded;
    this.transition = transition;
    this.available = i -> members[i].available();
    if (members.length != nodes.size()) {
      throw new IllegalArgumentException(members.length + " members for " + nodes.size() + " nodes");
    }
  }

  /** This topology once its keys have settled: the same placement, no transition. */
  Topology settled() {
    return new Topology(router, hashTag, members, order, bounded, null);
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

  /** Adds the members an operation that uses this topology may touch. */
  void collectMembers(java.util.Set<Member> into) {
    java.util.Collections.addAll(into, members);
    if (transition != null) {
      transition.previous.collectMembers(into);
    }
  }
}
