package io.shardwise.redis;

/**
 * The server answered the request with an error, such as {@code WRONGTYPE}, {@code OOM}, {@code
 * NOAUTH} or {@code ERR value is not an integer}. The server is reachable: this is not a node
 * failure. The cause is Lettuce's {@code RedisCommandExecutionException}.
 */
public final class RedisErrorReplyException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String reply;

  public RedisErrorReplyException(String message, String reply, Throwable cause) {
    super(message, cause);
    this.reply = reply;
  }

  /** The error reply as the server sent it, e.g. {@code WRONGTYPE Operation against a key...}. */
  public String reply() {
    return reply;
  }

  /** The first word of the reply, e.g. {@code WRONGTYPE}, {@code OOM}, {@code ERR}. */
  public String errorCode() {
    return errorCode(reply);
  }

  static String errorCode(String reply) {
    if (reply == null) {
      return "";
    }
    int space = reply.indexOf(' ');
    return space < 0 ? reply : reply.substring(0, space);
  }
}
