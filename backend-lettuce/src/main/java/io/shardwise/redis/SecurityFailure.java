package io.shardwise.redis;

import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.NodePermissionException;
import io.shardwise.client.NodeSecurityException;
import io.shardwise.client.NodeTlsException;
import io.shardwise.routing.Node;
import java.util.Objects;

/**
 * Why a node refuses this client (or the other way round), as found by {@link
 * RedisSecurityDiagnosis}: kept by the connection until it connects, and turned into a fresh
 * {@link NodeSecurityException} for each request that fails because of it.
 */
final class SecurityFailure {

  enum Kind {
    AUTHENTICATION,
    PERMISSION,
    TLS
  }

  private final Kind kind;
  private final String description;
  private final Throwable cause;

  SecurityFailure(Kind kind, String description, Throwable cause) {
    this.kind = kind;
    this.description = description;
    this.cause = cause;
  }

  Kind kind() {
    return kind;
  }

  /** What went wrong, naming the cause and no secret: "authentication failed: ...". */
  String description() {
    return description;
  }

  Throwable cause() {
    return cause;
  }

  /** The exception for one request ({@code operation}, e.g. {@code GET}) that this failed. */
  NodeSecurityException toException(Node node, String operation) {
    String message = operation == null ? description : operation + " failed: " + description;
    switch (kind) {
      case AUTHENTICATION:
        return new NodeAuthenticationException(node, message, cause);
      case PERMISSION:
        return new NodePermissionException(node, message, cause);
      default:
        return new NodeTlsException(node, message, cause);
    }
  }

  /** Same kind and description: the same problem seen again. */
  boolean sameProblemAs(SecurityFailure other) {
    return other != null && kind == other.kind && description.equals(other.description);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SecurityFailure && sameProblemAs((SecurityFailure) o);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, description);
  }

  @Override
  public String toString() {
    return kind + ": " + description;
  }
}
