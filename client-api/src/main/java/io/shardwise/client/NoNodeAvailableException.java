package io.shardwise.client;

/** Every node a request could go to is ejected: the request was not sent. */
public class NoNodeAvailableException extends ShardwiseException {

  private static final long serialVersionUID = 1L;

  public NoNodeAvailableException(String message) {
    super(message);
  }
}
