package io.shardwise.redis;

import java.io.IOException;

/**
 * The server cannot serve requests: not connected yet, connection refused or lost, connection
 * closed, or the server said it cannot serve anything now ({@code LOADING}, {@code BUSY}, {@code
 * MASTERDOWN}). The cause is Lettuce's or Netty's exception, or the server's error reply.
 *
 * <p>It is an {@link IOException} so that code which knows no backend can tell node failures
 * ({@link IOException}, {@link java.util.concurrent.TimeoutException}) from error replies to one
 * request ({@link RedisErrorReplyException}).
 */
public final class RedisUnavailableException extends IOException {

  private static final long serialVersionUID = 1L;

  public RedisUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
