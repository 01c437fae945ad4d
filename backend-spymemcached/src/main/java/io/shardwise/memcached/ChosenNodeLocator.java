package io.shardwise.memcached;

import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;

/**
 * The node locator of the shared spymemcached connection: Shardwise has already chosen the node of
 * every request, so {@link #getPrimary} answers with the node of the connection issuing the request
 * on this thread (see {@link #issueOn}), whatever the key, and there is no failover sequence
 * (Shardwise reroutes itself). {@link #getAll} is the current node set, which spymemcached reads
 * to tell whether a node still belongs to the connection, and to close them all at shutdown.
 */
final class ChosenNodeLocator implements NodeLocator {

  private static final ThreadLocal<MemcachedNode> CHOSEN = new ThreadLocal<>();

  private final Set<MemcachedNode> nodes = ConcurrentHashMap.newKeySet();

  /**
   * Makes {@code node} the node of the requests issued on this thread until {@link #restore} with
   * the value returned.
   */
  static MemcachedNode issueOn(MemcachedNode node) {
    MemcachedNode previous = CHOSEN.get();
    CHOSEN.set(node);
    return previous;
  }

  /**
   * Ends the scope begun by {@link #issueOn}. Sets the previous value back, null included, rather
   * than removing the entry, which the next request would allocate again.
   */
  static void restore(MemcachedNode previous) {
    CHOSEN.set(previous);
  }

  void add(MemcachedNode node) {
    nodes.add(node);
  }

  void remove(MemcachedNode node) {
    nodes.remove(node);
  }

  /**
   * The node chosen for the request being issued on this thread.
   *
   * @throws IllegalStateException outside {@link #issueOn}: spymemcached asked for a node of its
   *     own accord, which this backend never lets it do
   */
  @Override
  public MemcachedNode getPrimary(String key) {
    MemcachedNode node = CHOSEN.get();
    if (node == null) {
      throw new IllegalStateException(
          "no memcached node chosen for key '" + key + "': requests are issued through a node connection");
    }
    return node;
  }

  @Override
  public Iterator<MemcachedNode> getSequence(String key) {
    return Collections.emptyIterator();
  }

  @Override
  public Collection<MemcachedNode> getAll() {
    return Collections.unmodifiableSet(nodes);
  }

  @Override
  public NodeLocator getReadonlyCopy() {
    return this;
  }

  @Override
  public void updateLocator(List<MemcachedNode> newNodes) {
    throw new UnsupportedOperationException("nodes join and leave through the node connections");
  }
}
