package io.shardwise.routing;

import java.util.List;

/**
 * Maps keys to nodes. A router is immutable and built for one list of nodes; a new server list
 * means a new router.
 *
 * <p>Routing is two steps: the router's {@link #hasher()} turns the key bytes into a hash, and
 * {@link #primary(long)} / {@link #preferenceOrder(long, int[])} turn the hash into node indexes
 * (positions in {@link #nodes()}). Splitting the steps lets callers hash only the hash-tag part of
 * a key (see {@link HashTag}) and reuse one hash for the primary and the failover order.
 *
 * <p>{@link #primary(long)} is the hot path: it allocates nothing. {@link
 * #preferenceOrder(long, int[])} writes distinct node indexes, primary first, in the order the
 * router would fail over or spill to them; it may allocate (for long orders on large fleets).
 */
public interface Router {

  /** The nodes this router places keys on; node {@code i} of every index is {@code nodes().get(i)}. */
  List<Node> nodes();

  /** Number of nodes. */
  default int size() {
    return nodes().size();
  }

  /** The key hash that {@link #primary(long)} and {@link #preferenceOrder(long, int[])} take. */
  KeyHasher hasher();

  /** Index of the node that owns a key with this hash. Allocation free. */
  int primary(long keyHash);

  /**
   * Writes the preference order for a key hash into {@code out}: distinct node indexes, the
   * primary first, then the nodes the key moves to, in order, if the ones before it are
   * unavailable. Writes {@code min(out.length, size())} indexes; with {@code out.length >=
   * size()} every node appears exactly once. A shorter order is always a prefix of the full one.
   *
   * @return the number of indexes written
   */
  int preferenceOrder(long keyHash, int[] out);

  /** Short description of the algorithm and its parameters, e.g. {@code maglev(M=65537)}. */
  String describe();

  /** Primary node index for the UTF-8 bytes of {@code key}. */
  default int primary(String key) {
    return primary(hasher().hash(key));
  }

  /** Primary node index for {@code key}. */
  default int primary(byte[] key) {
    return primary(hasher().hash(key));
  }

  /** The primary node for {@code key}. */
  default Node primaryNode(String key) {
    return nodes().get(primary(key));
  }

  /** The full preference order for {@code key}: every node index once, primary first. */
  default int[] preferenceOrder(String key) {
    int[] out = new int[size()];
    int n = preferenceOrder(hasher().hash(key), out);
    if (n != out.length) {
      throw new IllegalStateException(describe() + " wrote " + n + " of " + out.length + " nodes");
    }
    return out;
  }
}
