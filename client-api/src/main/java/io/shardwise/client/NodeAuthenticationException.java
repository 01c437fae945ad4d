package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * The node did not accept this client's credentials: wrong password or user name, no credentials
 * where the server requires them, credentials where it has none, or a disabled user.
 */
public class NodeAuthenticationException extends NodeSecurityException {

  private static final long serialVersionUID = 1L;

  public NodeAuthenticationException(Node node, String message, Throwable cause) {
    super(node, message, cause);
  }
}
