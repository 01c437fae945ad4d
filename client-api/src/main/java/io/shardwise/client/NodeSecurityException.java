package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * A node refused this client, or this client refused the node, for a reason of configuration:
 * wrong credentials, a missing permission, an untrusted certificate, TLS on one side only.
 *
 * <p>It is never a node failure: the node is not ejected and its keys are not sent to other nodes,
 * because the fix is in the configuration, not in waiting, and rerouting would hide the mistake
 * (and scatter the node's keys over the rest of the fleet). Every request for the node fails with
 * this exception until the configuration or the server is fixed; the connection retries in the
 * background, slowly, and logs the cause once. The message names the node and the cause, never a
 * secret.
 */
public class NodeSecurityException extends NodeException {

  private static final long serialVersionUID = 1L;

  public NodeSecurityException(Node node, String message, Throwable cause) {
    super(node, message, cause);
  }
}
