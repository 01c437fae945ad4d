package io.shardwise.routers;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Multi-probe consistent hashing (Appleton &amp; O'Reilly, "Multi-probe consistent hashing",
 * arXiv:1505.00062, 2015): one point per node on the 64-bit circle, K probes per key, and the key
 * goes to the node whose point follows its probe most closely. With K = 21 the most loaded node
 * carries about 1.05 times the mean, at O(K) expected work per lookup and O(n) memory; the lower
 * peak comes with many nodes under the mean, a few far under it.
 *
 * <p>Removing a node moves only its keys. Multi-probe supports no weights.
 *
 * <p><b>Failover chain:</b> nodes ranked by their smallest clockwise distance from any of the
 * key's probes, ties to the lower list index. The primary is first by construction, and the
 * next node is always where the key would live if the nodes before it were removed.
 */
public final class MultiProbeRouter implements Router {

  /*
   * Placement (a contract):
   *   point_i = Murmur3(UTF-8 of node i's name), an unsigned position on the circle
   *   probe_0 = keyHash; probe_j = fmix64(keyHash + j * 0x9E3779B97F4A7C15L) for 1 <= j < K
   *   d(j, i) = (point_i - probe_j) mod 2^64, the clockwise distance from the probe to the point
   * The key goes to the node with the least d over all probes and nodes, ties to the lower node
   * index. For one probe the least d over nodes is the probe's successor on the circle (the
   * first point >= the probe, wrapping), found through an index on the top bits of the probe
   * (see bucketStart). Nodes with equal points are sorted by index, so the successor is the
   * lower index, which is also the tie rule.
   */

  /** The probe count of {@link #MultiProbeRouter(List)}: peak/mean about 1.05. */
  public static final int DEFAULT_PROBES = 21;

  /** At most 2^20 buckets in the successor index (4 MiB), reached above 2^18 nodes. */
  private static final int MAX_BUCKET_BITS = 20;

  /** Nodes of the order {@link #walkToAvailable} finds step by step before its O(n K) pass. */
  static final int LAZY_STEPS = 8;

  private final List<Node> nodes;
  private final int probes;
  /** Node points by node index. */
  private final long[] nodePoints;
  /** Points sorted unsigned, stored as {@code point ^ Long.MIN_VALUE} so they sort signed. */
  private final long[] sortedPoints;
  /** Node index of each entry of {@link #sortedPoints}. */
  private final int[] owners;
  /**
   * Position in {@link #sortedPoints} of the first point whose top bits are at least {@code b},
   * for every bucket {@code b} of the top {@code 64 - bucketShift} bits, and n at the end: a
   * successor search starts at its probe's bucket and scans about half a point, instead of a
   * binary search with a mispredicted branch per step.
   */
  private final int[] bucketStart;
  private final int bucketShift;

  /**
   * A multi-probe router with {@value #DEFAULT_PROBES} probes.
   *
   * @throws IllegalArgumentException if the list is empty, names a server twice, or any node has
   *     a weight other than 1
   */
  public MultiProbeRouter(List<Node> nodes) {
    this(nodes, DEFAULT_PROBES);
  }

  /**
   * A multi-probe router with {@code probes} probes per key.
   *
   * @throws IllegalArgumentException if {@code probes < 1}, the list is empty, names a server
   *     twice, or any node has a weight other than 1
   */
  public MultiProbeRouter(List<Node> nodes, int probes) {
    this(nodes, probes, null);
  }

  /** With {@code points} given per node instead of hashed from the names, for tests. */
  MultiProbeRouter(List<Node> nodes, int probes, long[] points) {
    if (probes < 1) {
      throw new IllegalArgumentException("probes must be >= 1 but was " + probes);
    }
    this.nodes = RouterNodes.validateUnweighted("multiprobe", nodes);
    this.probes = probes;
    int n = this.nodes.size();
    if (points != null && points.length != n) {
      throw new IllegalArgumentException("need one point per node (" + n + ")");
    }
    this.nodePoints = new long[n];
    long[] keys = new long[n];
    for (int i = 0; i < n; i++) {
      nodePoints[i] = points != null ? points[i] : RouterNodes.nameHash(this.nodes.get(i));
      keys[i] = nodePoints[i] ^ Long.MIN_VALUE;
    }
    this.owners = NodeRanking.sort(keys, null, n);
    this.sortedPoints = new long[n];
    for (int p = 0; p < n; p++) {
      sortedPoints[p] = keys[owners[p]];
    }
    // At least 2n buckets, so a bucket holds half a point on average.
    int bits = Math.min(MAX_BUCKET_BITS, 33 - Integer.numberOfLeadingZeros(Math.max(1, n - 1)));
    this.bucketShift = 64 - bits;
    int buckets = 1 << bits;
    this.bucketStart = new int[buckets + 1];
    int p = 0;
    for (int b = 0; b < buckets; b++) {
      while (p < n && (sortedPoints[p] ^ Long.MIN_VALUE) >>> bucketShift < b) {
        p++;
      }
      bucketStart[b] = p;
    }
    bucketStart[buckets] = n;
  }

  /** Number of probes per key. */
  public int probes() {
    return probes;
  }

  static long probe(long keyHash, int j) {
    return j == 0 ? keyHash : Murmur3.fmix64(keyHash + j * RouterNodes.GOLDEN);
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public int size() {
    return nodePoints.length;
  }

  @Override
  public KeyHasher hasher() {
    return Murmur3.INSTANCE;
  }

  @Override
  public int primary(long keyHash) {
    int bestPos = successor(keyHash);
    // Distances compared unsigned, as (d ^ MIN_VALUE) signed.
    long bestDistance = ((sortedPoints[bestPos] ^ Long.MIN_VALUE) - keyHash) ^ Long.MIN_VALUE;
    int best = owners[bestPos];
    for (int j = 1; j < probes; j++) {
      long probe = probe(keyHash, j);
      int pos = successor(probe);
      long distance = ((sortedPoints[pos] ^ Long.MIN_VALUE) - probe) ^ Long.MIN_VALUE;
      if (distance < bestDistance || (distance == bestDistance && owners[pos] < best)) {
        bestDistance = distance;
        best = owners[pos];
      }
    }
    return best;
  }

  /** Position in {@link #sortedPoints} of the first point >= {@code probe}, wrapping to 0. */
  private int successor(long probe) {
    long target = probe ^ Long.MIN_VALUE;
    int bucket = (int) (probe >>> bucketShift);
    int pos = bucketStart[bucket];
    int end = bucketStart[bucket + 1];
    while (pos < end && sortedPoints[pos] < target) {
      pos++;
    }
    return pos == sortedPoints.length ? 0 : pos;
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    if (out.length == 0) {
      return 0;
    }
    if (out.length == 1) {
      out[0] = primary(keyHash);
      return 1;
    }
    int n = nodePoints.length;
    long[] nearest = new long[n];
    nearest(keyHash, nearest);
    return NodeRanking.write(nearest, null, n, out);
  }

  /**
   * Walks the order lazily for up to {@value #LAZY_STEPS} nodes, each step O(K) whatever n is; a
   * key with more nodes out ahead of its target takes one O(n K) pass into per-thread arrays
   * instead ({@link NodeRanking#walk}). With a fraction f of the nodes out a walk takes about
   * {@code 1 / (1 - f)} steps. No allocation either way.
   */
  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    int n = nodePoints.length;
    Objects.checkFromIndexSize(0, n, walked.length);
    int steps = Math.min(n, LAZY_STEPS);
    int skipped = lazyWalk(keyHash, available, walked, steps);
    if (skipped < steps || steps == n) {
      return skipped;
    }
    WalkScratch scratch = WalkScratch.take();
    try {
      long[] nearest = scratch.k1(n);
      nearest(keyHash, nearest);
      return NodeRanking.walk(nearest, null, n, available, walked);
    } finally {
      scratch.release();
    }
  }

  /**
   * The {@code n} nodes nearest the key's probes: up to {@value #LAZY_STEPS} by the lazy walk of
   * {@link #walkToAvailable}, O(K) each, more by one O(n K) pass into per-thread arrays ranked by
   * {@link NodeRanking#writeFirst}. Allocation free.
   */
  @Override
  public int replicas(long keyHash, int n, int[] out) {
    int size = nodePoints.length;
    int count = Router.replicaCount(n, size, out.length);
    if (count == 1) {
      out[0] = primary(keyHash);
      return 1;
    }
    if (count <= LAZY_STEPS) {
      return lazyWalk(keyHash, null, out, count);
    }
    WalkScratch scratch = WalkScratch.take();
    try {
      long[] nearest = scratch.k1(size);
      nearest(keyHash, nearest);
      return NodeRanking.writeFirst(nearest, null, size, out, count, scratch);
    } finally {
      scratch.release();
    }
  }

  /**
   * Writes the nodes of the order one step at a time, each step O(K), until {@code want} are
   * written or {@code available} (if not null) accepts the node just written. Returns the number
   * written and not accepted.
   */
  private int lazyWalk(long keyHash, IntPredicate available, int[] out, int want) {
    int n = nodePoints.length;
    // Step `count` finds the least (distance, index) not walked, given the distance of the last
    // node walked. Every node with a lesser pair is walked already; the next node's distance is
    // reached from some probe, and from that probe every point at or beyond `last` and before
    // the next node's belongs to a walked node. So the next node is the least, over the probes,
    // of each probe's first point at or beyond `last` whose node is not walked.
    long last = Long.MIN_VALUE; // distance 0, as d ^ MIN_VALUE: signed order is unsigned order
    for (int count = 0; count < want; count++) {
      int best = -1;
      long bestDistance = 0;
      for (int j = 0; j < probes; j++) {
        long probe = probe(keyHash, j);
        int pos = successor(probe + (last ^ Long.MIN_VALUE));
        for (int scanned = 0; scanned < n; scanned++) {
          long distance = ((sortedPoints[pos] ^ Long.MIN_VALUE) - probe) ^ Long.MIN_VALUE;
          if (distance < last) {
            break; // wrapped past the probe: it has no node left that is not walked
          }
          int owner = owners[pos];
          if (!RouterNodes.contains(out, count, owner)) {
            if (best < 0 || distance < bestDistance || (distance == bestDistance && owner < best)) {
              bestDistance = distance;
              best = owner;
            }
            break;
          }
          if (++pos == n) {
            pos = 0;
          }
        }
      }
      out[count] = best;
      if (available != null && available.test(best)) {
        return count;
      }
      last = bestDistance;
    }
    return want;
  }

  /**
   * Every node's least distance from the key's probes into {@code nearest}, as {@code d ^
   * MIN_VALUE} so that the {@link NodeRanking} keys order as the unsigned distances.
   */
  private void nearest(long keyHash, long[] nearest) {
    int n = nodePoints.length;
    Arrays.fill(nearest, 0, n, Long.MAX_VALUE);
    for (int j = 0; j < probes; j++) {
      long probe = probe(keyHash, j);
      for (int i = 0; i < n; i++) {
        long distance = (nodePoints[i] - probe) ^ Long.MIN_VALUE;
        if (distance < nearest[i]) {
          nearest[i] = distance;
        }
      }
    }
  }

  /** {@code multiprobe(K=<probes>)}. */
  @Override
  public String describe() {
    return "multiprobe(K=" + probes + ")";
  }

  @Override
  public String toString() {
    return describe() + " over " + nodePoints.length + " nodes";
  }
}
