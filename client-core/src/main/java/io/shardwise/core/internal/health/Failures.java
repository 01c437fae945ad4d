package io.shardwise.core.internal.health;

import io.shardwise.client.NoNodeAvailableException;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeSecurityException;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.spi.Backend;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * Which failures are evidence against a node: timeouts (soft: a stalled client or a burst of slow
 * replies look the same) and lost or refused connections (hard), as the backend classifies its
 * own exceptions; not misses, error replies, requests not sent, or configuration errors.
 */
public final class Failures {

  private final Backend backend;

  Failures(Backend backend) {
    this.backend = backend;
  }

  /**
   * Whether {@code failure} (raw, or as wrapped by the routing client) says the node failed rather
   * than the request.
   */
  public boolean isNodeFailure(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof NodeUnavailableException
        || t instanceof NoNodeAvailableException
        || t instanceof NodeSecurityException) {
      // Not sent, or a configuration error (credentials, permissions, TLS): waiting does not fix
      // it, and rerouting would hide it.
      return false;
    }
    if (t instanceof NodeTimeoutException || t instanceof TimeoutException) {
      return true;
    }
    if (t instanceof NodeException && t.getCause() != null) {
      t = t.getCause();
    }
    return backend.isNodeFailure(t);
  }

  /**
   * Whether {@code failure} was refused by the client's own full queue for the node: no evidence
   * about the node either way ({@link Backend#isClientQueueFull}).
   */
  boolean isClientQueueFull(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof NodeException && t.getCause() != null) {
      t = t.getCause();
    }
    return backend.isClientQueueFull(t);
  }

  /** Whether a node failure is a timeout (soft evidence) rather than a refused or lost connection. */
  public boolean isTimeout(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof NodeTimeoutException || t instanceof TimeoutException) {
      return true;
    }
    if (t instanceof NodeException && t.getCause() != null) {
      t = t.getCause();
    }
    return backend.isTimeout(t);
  }

  public static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** {@code t}'s type and message, for logs and statuses. */
  static String describe(Throwable t) {
    if (t == null) {
      return "unknown";
    }
    Throwable c = unwrap(t);
    String m = c.getMessage();
    return c.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }
}
