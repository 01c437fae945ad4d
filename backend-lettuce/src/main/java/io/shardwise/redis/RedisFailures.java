package io.shardwise.redis;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.netty.channel.ChannelException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * Maps Lettuce's failures to this backend's three exceptions.
 *
 * <ul>
 *   <li>{@link RedisTimeoutException}: Lettuce's command timeout fired.
 *   <li>{@link RedisErrorReplyException}: an error reply, except the few that mean the whole server
 *       cannot serve now ({@code LOADING}, {@code BUSY}, {@code MASTERDOWN}).
 *   <li>{@link RedisUnavailableException}: those replies, and every connection-level failure:
 *       rejected while disconnected, connection lost with the request in flight, closed, I/O.
 * </ul>
 *
 * Anything else (a bug, say) passes through unchanged and is not taken for a node failure.
 */
final class RedisFailures {

  /** Error replies that speak for the server's state, not for the request. */
  private static final Set<String> SERVER_STATE_REPLIES = Set.of("LOADING", "BUSY", "MASTERDOWN");

  private RedisFailures() {}

  /**
   * @param server {@code redis host:port}, the start of every message
   * @param operation the command, e.g. {@code GET}
   */
  static Throwable translate(String server, String operation, Throwable failure, Duration timeout) {
    Throwable t = unwrap(failure);
    if (t instanceof RedisUnavailableException
        || t instanceof RedisTimeoutException
        || t instanceof RedisErrorReplyException) {
      return t;
    }
    if (t instanceof RedisCommandTimeoutException) {
      return new RedisTimeoutException(
          server + ": no reply to " + operation + " within " + timeout.toMillis() + " ms", t);
    }
    if (t instanceof RedisCommandExecutionException) {
      String reply = t.getMessage();
      if (SERVER_STATE_REPLIES.contains(RedisErrorReplyException.errorCode(reply))) {
        return new RedisUnavailableException(
            server + ": " + operation + " failed: the server cannot serve requests now: " + reply,
            t);
      }
      return new RedisErrorReplyException(
          server + ": " + operation + " failed with error reply: " + reply, reply, t);
    }
    if (t instanceof RedisException
        || t instanceof IOException
        || t instanceof ChannelException
        || t instanceof CancellationException) {
      return new RedisUnavailableException(
          server + ": " + operation + " failed: " + describe(t), t);
    }
    return t;
  }

  /** Whether {@code t} (already translated) says that the server, not the request, failed. */
  static boolean isNodeFailure(Throwable t) {
    return t instanceof RedisUnavailableException || t instanceof RedisTimeoutException;
  }

  static Throwable unwrap(Throwable t) {
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static String describe(Throwable t) {
    String message = t.getMessage();
    if (message == null || message.isEmpty()) {
      return withoutMessage(t);
    }
    if (message.startsWith("Currently not connected")) {
      return "not connected; reconnecting in the background (" + message + ")";
    }
    if (message.equals("Connection disconnected")) {
      return "connection lost while the request was in flight";
    }
    return message;
  }

  /**
   * Words for a failure that carries no message. Netty's and Lettuce's own types (such as the
   * {@code StacklessClosedChannelException} of a channel closed under a request) are internals
   * of the connection, so they are named by what happened, not by their class; any other type
   * (a bug, say) keeps its class name, which is then the most useful thing to show.
   */
  static String withoutMessage(Throwable t) {
    if (t instanceof ClosedChannelException) {
      return "connection closed";
    }
    if (t instanceof CancellationException) {
      return "cancelled";
    }
    String type = t.getClass().getName();
    if (type.startsWith("io.netty.") || type.startsWith("io.lettuce.")) {
      return "connection failed";
    }
    return t.getClass().getSimpleName();
  }
}
