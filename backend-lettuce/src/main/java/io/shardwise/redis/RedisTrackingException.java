package io.shardwise.redis;

import io.lettuce.core.RedisConnectionException;

/**
 * A connection attempt whose server refused to track this client's reads, which the near cache
 * needs (see {@link RedisBackend#trackReads}): a server older than Redis 6, or a proxy.
 */
final class RedisTrackingException extends RedisConnectionException {

  private static final long serialVersionUID = 1L;

  RedisTrackingException(String message, Throwable cause) {
    super(message, cause);
  }
}
