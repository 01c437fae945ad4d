package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * A request was not sent because the node it needs is ejected (with the {@code fail-fast} or
 * {@code retry} failure mode), because no node at all is available, or because an earlier part
 * of the same batch failed on that node (a batch larger than the batch size is sent in parts; the
 * cause is that part's failure).
 */
public class NodeUnavailableException extends NodeException {

  private static final long serialVersionUID = 1L;

  public NodeUnavailableException(Node node, String message) {
    super(node, message, null);
  }

  /** Not sent because of {@code cause}, an earlier failure on the same node. */
  public NodeUnavailableException(Node node, String message, Throwable cause) {
    super(node, message, cause);
  }
}
