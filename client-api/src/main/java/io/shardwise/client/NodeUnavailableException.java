package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * A request was not sent because the node it needs is ejected (with the {@code fail-fast} or
 * {@code retry} failure mode) or because no node at all is available.
 */
public class NodeUnavailableException extends NodeException {

  private static final long serialVersionUID = 1L;

  public NodeUnavailableException(Node node, String message) {
    super(node, message, null);
  }
}
