package io.shardwise.testing;

/**
 * The server answered with an error: a Redis {@code -ERR ...} reply, or a memcached {@code ERROR},
 * {@code CLIENT_ERROR ...} or {@code SERVER_ERROR ...} line.
 */
public final class ErrorReplyException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String reply;

  public ErrorReplyException(String reply) {
    super(reply);
    this.reply = reply;
  }

  /** The error line as the server sent it, without the RESP {@code -} prefix or CRLF. */
  public String reply() {
    return reply;
  }
}
