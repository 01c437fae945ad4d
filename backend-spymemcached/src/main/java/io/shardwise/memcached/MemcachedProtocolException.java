package io.shardwise.memcached;

/**
 * The server's reply could not be understood, e.g. an {@code incr} answered with something other
 * than a number. Only this request failed: the reply was one whole line, so the connection is still
 * in step and stays up. Not a node failure: the server answered.
 */
public final class MemcachedProtocolException extends MemcachedException {

  private static final long serialVersionUID = 1L;

  private final String reply;

  public MemcachedProtocolException(String message, String reply, Throwable cause) {
    super(message, cause);
    this.reply = reply;
  }

  /** The reply line as received, without its line end. */
  public String reply() {
    return reply;
  }
}
