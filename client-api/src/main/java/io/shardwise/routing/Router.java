package io.shardwise.routing;

import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

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
 * {@link #walkToAvailable(long, IntPredicate, int[])} gives the part of that order a request
 * needs while nodes are out, without allocating. {@link #replicas(long, int, int[])} gives its
 * first N nodes, the servers that hold a key stored N times, without allocating.
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

  /**
   * Walks the preference order of a key hash to its first available node: the result is exactly
   * that of walking {@link #preferenceOrder(long, int[]) the full order}, but a router computes
   * only what it needs. Writes into {@code walked} the unavailable nodes met before the first
   * available one, in preference order, then that node, and returns how many were skipped.
   *
   * <p>With {@code s} the result: {@code walked[0, s)} are the skipped nodes; if {@code s <
   * size()}, {@code walked[s]} is the first available node, and if {@code s == size()} no node
   * is available. Every router of Shardwise overrides this with a walk that allocates nothing.
   * This default looks at an 8-node prefix of the order first (allocating that prefix) and
   * computes the whole order only when the prefix has no available node.
   *
   * <p>{@code available} may be asked about any node, in any order and more than once, and must
   * answer the same for a node throughout the call. If its answers change meanwhile, the result
   * is still a list of distinct nodes, each skipped one answered unavailable once and the target
   * available, but it may not be a prefix of the order.
   *
   * @param walked a buffer of at least {@link #size()} entries, typically reused per thread
   * @return the number of unavailable nodes before the first available one, {@code size()} if
   *     none is available
   * @throws IndexOutOfBoundsException if {@code walked} is shorter than {@link #size()}
   */
  default int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    int n = size();
    Objects.checkFromIndexSize(0, n, walked.length);
    int[] prefix = new int[Math.min(8, n)];
    int count = preferenceOrder(keyHash, prefix);
    for (int s = 0; s < count; s++) {
      walked[s] = prefix[s];
      if (available.test(prefix[s])) {
        return s;
      }
    }
    if (count < n) {
      preferenceOrder(keyHash, walked); // starts with the prefix already walked
      for (int s = count; s < n; s++) {
        if (available.test(walked[s])) {
          return s;
        }
      }
    }
    return n;
  }

  /**
   * Writes the {@code n} replicas of a key hash into {@code out}: the first {@code min(n,
   * size())} nodes of its {@link #preferenceOrder(long, int[]) preference order}, the primary
   * first. These are the distinct servers that hold a key stored {@code n} times, as in Dynamo,
   * where the first N distinct nodes of a key's preference list store it (DeCandia et al.,
   * "Dynamo: Amazon's Highly Available Key-value Store", SOSP 2007, section 4.3). The replicas
   * for {@code n} are a prefix of those for {@code n + 1}, and {@code out[0]} is {@link
   * #primary(long)}. Entries of {@code out} past the replicas are left as they were.
   *
   * <p>Every router of Shardwise overrides this with a walk that allocates nothing. This default
   * computes the order into {@code out} when it has exactly {@code min(n, size())} entries, and
   * into a new array of that length otherwise.
   *
   * @param n how many replicas a key has, at least 1; more than {@link #size()} means every node
   * @param out receives the replicas in {@code out[0, min(n, size()))}; may be longer, typically
   *     one buffer reused per thread
   * @return the number of replicas written, {@code min(n, size())}
   * @throws IllegalArgumentException if {@code n < 1}
   * @throws IndexOutOfBoundsException if {@code out} is shorter than {@code min(n, size())}
   */
  default int replicas(long keyHash, int n, int[] out) {
    int count = replicaCount(n, size(), out.length);
    if (out.length == count) {
      return preferenceOrder(keyHash, out);
    }
    int[] prefix = new int[count];
    preferenceOrder(keyHash, prefix);
    System.arraycopy(prefix, 0, out, 0, count);
    return count;
  }

  /**
   * How many nodes {@link #replicas(long, int, int[]) replicas(keyHash, n, out)} writes on a
   * router of {@code size} nodes, {@code min(n, size)}, after checking {@code n} and the length
   * of {@code out} as that method documents: for routers that override it.
   *
   * @throws IllegalArgumentException if {@code n < 1}
   * @throws IndexOutOfBoundsException if {@code outLength < min(n, size)}
   */
  static int replicaCount(int n, int size, int outLength) {
    if (n < 1) {
      throw new IllegalArgumentException("replicas must be >= 1 but was " + n);
    }
    int count = Math.min(n, size);
    Objects.checkFromIndexSize(0, count, outLength);
    return count;
  }

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
