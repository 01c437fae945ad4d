package io.shardwise.client;

import io.shardwise.routing.Node;
import java.time.Duration;

/** A node did not answer within the configured timeout. */
public class NodeTimeoutException extends NodeException {

  private static final long serialVersionUID = 1L;

  public NodeTimeoutException(Node node, Duration timeout, Throwable cause) {
    super(node, "no reply within " + timeout.toMillis() + " ms", cause);
  }
}
