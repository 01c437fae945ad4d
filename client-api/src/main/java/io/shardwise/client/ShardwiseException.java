package io.shardwise.client;

/** Base class of the exceptions Shardwise raises for failed operations. */
public class ShardwiseException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public ShardwiseException(String message) {
    super(message);
  }

  public ShardwiseException(String message, Throwable cause) {
    super(message, cause);
  }
}
