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
   * Opens a connection to {@code node}. Must not fail because the server is down: the connection
   * then fails requests until the server is reachable.
   */
  NodeConnection connect(Node node);

  /** The key rules of this kind of server. */
  KeyRules keyRules();

  /** The largest encoded value this backend accepts unless configured otherwise. */
  int defaultMaxValueBytes();

  /** Whether the server stores the flags of a {@code CachedValue} (memcached does, Redis not). */
  boolean storesFlags();

  @Override
  void close();
}
