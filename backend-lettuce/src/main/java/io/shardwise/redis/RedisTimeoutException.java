package io.shardwise.redis;

import java.util.concurrent.TimeoutException;

/**
 * No reply within the command timeout: the server is hung, paused, overloaded or far away. The
 * cause is Lettuce's {@code RedisCommandTimeoutException}.
 */
public final class RedisTimeoutException extends TimeoutException {

  private static final long serialVersionUID = 1L;

  public RedisTimeoutException(String message, Throwable cause) {
    super(message);
    initCause(cause);
  }
}
