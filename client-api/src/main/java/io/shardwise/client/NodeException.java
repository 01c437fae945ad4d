package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * An operation failed on one node: a timeout, a lost or refused connection, or an error reply.
 * The message names the node.
 */
public class NodeException extends ShardwiseException {

  private static final long serialVersionUID = 1L;

  private final transient Node node;

  public NodeException(Node node, String message, Throwable cause) {
    super(node.name() + (node.hasExplicitName() ? " (" + node.address() + ")" : "") + ": " + message, cause);
    this.node = node;
  }

  /** The node the operation was sent to. */
  public Node node() {
    return node;
  }
}
