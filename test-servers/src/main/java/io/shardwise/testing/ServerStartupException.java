package io.shardwise.testing;

/** A server, container or proxy did not start or did not answer in time. */
public final class ServerStartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ServerStartupException(String message) {
    super(message);
  }

  public ServerStartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
