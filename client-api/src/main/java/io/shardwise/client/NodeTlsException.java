package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * No TLS session could be set up with the node: its certificate is not trusted or does not name
 * the host, it refused the client certificate, or one side speaks TLS and the other plaintext.
 */
public class NodeTlsException extends NodeSecurityException {

  private static final long serialVersionUID = 1L;

  public NodeTlsException(Node node, String message, Throwable cause) {
    super(node, message, cause);
  }
}
