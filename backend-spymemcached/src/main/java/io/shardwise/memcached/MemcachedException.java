package io.shardwise.memcached;

/**
 * A memcached request failed. The kinds are told apart by type:
 *
 * <ul>
 *   <li>{@link MemcachedUnavailableException} (and its {@link MemcachedTimeoutException}): the
 *       server did not answer — it is down, unreachable, too slow, or the connection was closed.
 *       These say something about the server's health: count them as node failures.
 *   <li>{@link MemcachedServerErrorException}: the server answered, with an error ({@code
 *       SERVER_ERROR object too large for cache}, a non-numeric value for {@code incr}, ...). The
 *       server is healthy; the request was refused.
 *   <li>{@link MemcachedProtocolException}: the server answered with a reply the client cannot
 *       parse; that request failed, the connection stays up. Not a node failure either.
 *   <li>{@link MemcachedQueueFullException}: the request was not sent, the connection's queue being
 *       full; the server was not asked. Neither a node failure nor a success.
 * </ul>
 *
 * <p>{@link MemcachedBackend#isNodeFailure(Throwable)} applies this rule to any failure.
 */
public abstract class MemcachedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  MemcachedException(String message, Throwable cause) {
    super(message, cause);
  }
}
