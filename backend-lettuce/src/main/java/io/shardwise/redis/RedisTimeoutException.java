package io.shardwise.redis;

import java.util.concurrent.TimeoutException;

/**
 * No reply within the command timeout: the server is hung, paused, overloaded or far away; the
 * cause is Lettuce's {@code RedisCommandTimeoutException}. Also a connection attempt that ran past
 * the connect timeout (whatever Lettuce reported when it closed the channel), as the cause of a
 * request that failed because its node is not connected.
 */
public final class RedisTimeoutException extends TimeoutException {

  private static final long serialVersionUID = 1L;

  public RedisTimeoutException(String message, Throwable cause) {
    super(message);
    initCause(cause);
  }
}
