package io.shardwise.spi;

import io.shardwise.routing.Node;

/**
 * A kind of cache server (memcached, Redis) and the shared client resources for talking to it.
 * Creates one {@link NodeConnection} per node; the routing client owns the connections and the
 * backend owns what they share (event loops, threads), released by {@link #close()}.
 */
public interface Backend extends AutoCloseable {

  /** {@code memcached} or {@code redis}. */
  String name();

  /**
   * Opens a connection to {@code node} whose requests fail after {@code requestTimeout} without a
   * reply. Must not fail because the server is down: the connection then fails requests until the
   * server is reachable.
   */
  NodeConnection connect(Node node, java.time.Duration requestTimeout);

  /** Opens a connection with {@link #defaultRequestTimeout()}. */
  default NodeConnection connect(Node node) {
    return connect(node, defaultRequestTimeout());
  }

  /**
   * The request timeout configured on this backend; the routing client uses it unless given its
   * own, and passes its own to {@link #connect(Node, java.time.Duration)}, so one timeout governs
   * both.
   */
  java.time.Duration defaultRequestTimeout();

  /** The key rules of this kind of server. */
  KeyRules keyRules();

  /** The largest encoded value this backend accepts unless configured otherwise. */
  int defaultMaxValueBytes();

  /**
   * Throws {@link IllegalArgumentException}, naming the value's size and the rule, if a server of
   * this backend would refuse to store {@code value} under {@code key}; called before any I/O, after
   * the configured size limit. The default checks nothing more.
   */
  default void checkValue(String key, io.shardwise.client.CachedValue value) {}

  /**
   * Completes when the backend has read the limits that {@link #checkValue} applies from the server
   * of {@code connection} (or given up: the server is down or does not tell), so that a client
   * that waits for it checks its first values against the server's own limits. The default
   * completes at once.
   */
  default java.util.concurrent.CompletableFuture<Void> limitsRead(NodeConnection connection) {
    return java.util.concurrent.CompletableFuture.completedFuture(null);
  }

  /** Whether the server stores the flags of a {@code CachedValue} (memcached does, Redis not). */
  boolean storesFlags();

  /**
   * Whether this backend's nodes are network servers whose host names must resolve to an address
   * before a connection is made (true for the built-in backends). The client then refuses, before
   * connecting anything, a server list with a host that does not resolve: at build, and in a change
   * of the list, which leaves the list in force and may be offered again. The default: false, for
   * backends whose nodes are not reached through the name service.
   */
  default boolean resolvesHosts() {
    return false;
  }

  /**
   * Whether a failure of one of this backend's futures means the node itself failed (it is
   * unreachable, lost the connection, or did not answer in time) rather than the request (the
   * server answered with an error: value too large, wrong type, no permission). Node failures
   * count towards ejecting the node; request failures do not.
   *
   * <p>A {@link io.shardwise.client.NodeSecurityException} (wrong credentials, no permission, a
   * TLS mismatch) is never a node failure: it is a configuration error, which rerouting would hide.
   *
   * <p>The default treats {@link java.io.IOException} and {@link
   * java.util.concurrent.TimeoutException} (and their subclasses), possibly wrapped in a {@link
   * java.util.concurrent.CompletionException}, as node failures.
   */
  default boolean isNodeFailure(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof java.util.concurrent.CompletionException
            || t instanceof java.util.concurrent.ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof java.io.IOException || t instanceof java.util.concurrent.TimeoutException;
  }

  /**
   * Whether a node failure (see {@link #isNodeFailure}) is a timeout: the server did not answer in
   * time, which a pause or a starved CPU on the client's side can also cause, rather than a refused
   * or lost connection, which only the server or the network can. Timeouts are weaker evidence:
   * the client does not let them eject more than a share of the fleet.
   *
   * <p>The default: a {@link java.util.concurrent.TimeoutException} anywhere in the cause chain.
   */
  default boolean isTimeout(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return false;
  }

  /**
   * Whether a failure was this client's own: the request was refused before it reached the server
   * because the client's queue for that server was full (more requests under way than the
   * connection takes). It is neither a node failure nor a success: the client's health checks do
   * not count it either way, so that a burst from one process does not eject a server that answers.
   * Not a node failure (see {@link #isNodeFailure}).
   *
   * <p>The default: false, for backends whose queues do not refuse requests.
   */
  default boolean isClientQueueFull(Throwable failure) {
    return false;
  }

  /**
   * Whether the servers can tell a client when a value it read may have changed ({@link
   * #trackReads}). The default: false (memcached has no such notice).
   */
  default boolean tracksReads() {
    return false;
  }

  /**
   * Asks the servers to tell {@code invalidations} when a value read through a connection opened
   * from now on may have changed, and has each connection tell it when notices may have been lost.
   * Called, if at all, before the first connection is opened. The default refuses.
   *
   * @throws UnsupportedOperationException if {@link #tracksReads()} is false
   * @throws IllegalStateException if connections are open already
   */
  default void trackReads(Invalidations invalidations) {
    throw new UnsupportedOperationException(name() + " servers cannot tell a client that a value it read changed");
  }

  /**
   * Has each connection opened from now on tell {@code invalidations} when it is lost ({@link
   * Invalidations#all}): the server may have restarted empty, or been written by others while this
   * client's view of it was cut, so nothing read through it before may be trusted. For a backend
   * whose servers do not track reads, this is the near cache's sign of a server restart (a tracking
   * backend reports its lost connections through {@link #trackReads} instead). Called, if at all,
   * before the first connection is opened. The default reports nothing: the near cache then relies
   * on the client's ejections and its staleness bound alone.
   */
  default void reportLostConnections(Invalidations invalidations) {}

  @Override
  void close();
}
