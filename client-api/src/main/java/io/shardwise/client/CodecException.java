package io.shardwise.client;

/** A value could not be encoded or a stored value could not be decoded. */
public class CodecException extends ShardwiseException {

  private static final long serialVersionUID = 1L;

  public CodecException(String message) {
    super(message);
  }

  public CodecException(String message, Throwable cause) {
    super(message, cause);
  }
}
