package io.shardwise.memcached;

/**
 * The server answered with an error: a text-protocol {@code SERVER_ERROR}, {@code CLIENT_ERROR} or
 * {@code ERROR} line, or a binary-protocol error status such as {@code E2BIG} ("Too large."). The
 * connection stays usable.
 */
public final class MemcachedServerErrorException extends MemcachedException {

  private static final long serialVersionUID = 1L;

  private final String reply;

  public MemcachedServerErrorException(String message, String reply, Throwable cause) {
    super(message, cause);
    this.reply = reply;
  }

  /**
   * The server's reply as spymemcached reports it, e.g. {@code SERVER_ERROR object too large for
   * cache}.
   */
  public String reply() {
    return reply;
  }
}
