package io.shardwise.client;

import io.shardwise.routing.Node;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/** A change of a node's {@link NodeState}, delivered to {@link NodeEventListener}s. */
public final class NodeEvent {

  private final Node node;
  private final NodeState from;
  private final NodeState to;
  private final Instant at;
  private final String detail;
  private final Throwable cause;

  public NodeEvent(Node node, NodeState from, NodeState to, Instant at, String detail, Throwable cause) {
    this.node = Objects.requireNonNull(node, "node");
    this.from = Objects.requireNonNull(from, "from");
    this.to = Objects.requireNonNull(to, "to");
    this.at = Objects.requireNonNull(at, "at");
    this.detail = Objects.requireNonNull(detail, "detail");
    this.cause = cause;
  }

  public Node node() {
    return node;
  }

  public NodeState from() {
    return from;
  }

  public NodeState to() {
    return to;
  }

  public Instant at() {
    return at;
  }

  /** What happened, in words: the failure count and cause, the rejoin step taken, ... */
  public String detail() {
    return detail;
  }

  /** The failure that ejected the node, if this event is an ejection. */
  public Optional<Throwable> cause() {
    return Optional.ofNullable(cause);
  }

  public boolean isEjection() {
    return from == NodeState.HEALTHY && to == NodeState.EJECTED;
  }

  public boolean isReadmission() {
    return to == NodeState.HEALTHY;
  }

  @Override
  public String toString() {
    return node.name() + " " + from + " -> " + to + " at " + at + ": " + detail;
  }
}
