package io.shardwise.core.internal.health;

import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeEventListener;
import io.shardwise.client.NodeState;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A node's changes of state: one log line each, and an event to every listener, in order. */
final class NodeEvents {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.health");

  private final List<NodeEventListener> listeners;
  private final Executor scheduler;

  NodeEvents(List<NodeEventListener> listeners, Executor scheduler) {
    this.listeners = List.copyOf(listeners);
    this.scheduler = scheduler;
  }

  /** Logs a node's change of state, and tells the listeners on the health thread. */
  void transition(NodeHealth h, NodeState from, NodeState to, String detail, Throwable cause) {
    if (to == NodeState.EJECTED) {
      LOG.warn("node {} {}", who(h), detail);
    } else {
      LOG.info("node {} {}", who(h), detail);
    }
    if (listeners.isEmpty()) {
      return;
    }
    NodeEvent event = new NodeEvent(h.member.node, from, to, Instant.now(), detail, cause);
    try {
      scheduler.execute(
          () -> {
            for (NodeEventListener l : listeners) {
              try {
                l.onEvent(event);
              } catch (RuntimeException e) {
                LOG.warn("node event listener {} failed on {}", l, event, e);
              }
            }
          });
    } catch (RejectedExecutionException e) {
      // closed
    }
  }

  /** The node's name, with its address when it was named. */
  static String who(NodeHealth h) {
    return h.member.node.hasExplicitName() ? h.member.node.name() + " (" + h.member.node.address() + ")" : h.member.node.name();
  }
}
