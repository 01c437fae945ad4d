package io.shardwise.memcached;

import java.time.Duration;

/** The server did not answer within the operation timeout. */
public final class MemcachedTimeoutException extends MemcachedUnavailableException {

  private static final long serialVersionUID = 1L;

  private final Duration timeout;

  public MemcachedTimeoutException(String message, Duration timeout) {
    super(message, null);
    this.timeout = timeout;
  }

  /** The operation timeout that elapsed. */
  public Duration timeout() {
    return timeout;
  }
}
