package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * The node authenticated this client but does not let it run a command or touch a key (Redis ACL
 * {@code NOPERM}). Only that request fails; the node stays in service.
 */
public class NodePermissionException extends NodeSecurityException {

  private static final long serialVersionUID = 1L;

  public NodePermissionException(Node node, String message, Throwable cause) {
    super(node, message, cause);
  }
}
