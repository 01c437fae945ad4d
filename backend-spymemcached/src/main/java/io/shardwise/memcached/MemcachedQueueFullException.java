package io.shardwise.memcached;

/**
 * The request was not sent: the connection's queue of requests not yet handed to the I/O thread
 * was full (spymemcached's {@code opQueueLen}, 16,384 requests), as after a burst of requests
 * faster than the I/O thread takes them. The server was not asked, so this is not a node failure
 * ({@link MemcachedBackend#isClientQueueFull}); the request may be sent again.
 */
public class MemcachedQueueFullException extends MemcachedException {

  private static final long serialVersionUID = 1L;

  public MemcachedQueueFullException(String message, Throwable cause) {
    super(message, cause);
  }
}
