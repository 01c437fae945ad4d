package io.shardwise.memcached;

/**
 * The server did not answer: the connection is down (refused, reset, not yet established or being
 * re-established), the request could not be queued, or the connection was closed. spymemcached
 * fails such requests at once instead of queueing them.
 */
public class MemcachedUnavailableException extends MemcachedException {

  private static final long serialVersionUID = 1L;

  public MemcachedUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
