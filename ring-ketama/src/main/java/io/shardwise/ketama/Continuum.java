package io.shardwise.ketama;

/**
 * A sorted circle of points, each owned by a node: the shared lookup structure of {@link
 * KetamaRouter} and {@link HashRingRouter}. A position belongs to the first point at or after it
 * (unsigned order), wrapping to the first point (the successor rule of Karger et al., STOC 1997).
 *
 * <p>Lookup is a prefix index plus a short scan instead of a binary search over the whole
 * array: {@code index[k]} is the first point whose top {@code bits} bits are {@code >= k}, with
 * {@code bits ~ log2(points)}, so a lookup touches the index and about one point. The tests check
 * it against a {@code TreeMap} on a million keys.
 *
 * <p>Points are stored as {@code unsigned ^ Long.MIN_VALUE} so that signed comparison orders them
 * as unsigned. Immutable after construction.
 */
final class Continuum {

  /** Which owner keeps a point that several nodes produced. */
  enum Ties {
    /** The node that comes first in the server list (libketama, libmemcached, twemproxy). */
    FIRST_IN_LIST,
    /** The node that comes last in the server list (spymemcached's TreeMap.put). */
    LAST_IN_LIST
  }

  private static final int MAX_INDEX_BITS = 20;
  private static final int LINEAR_SCAN = 16;

  private final long[] points;
  private final int[] owners;
  private final int[] index;
  private final int shift;
  private final int nodeCount;

  /**
   * Builds a continuum from {@code count} unsigned positions and their owners (node indexes in
   * {@code 0..nodeCount-1}). The arrays are sorted in place. Equal positions keep one owner,
   * chosen by {@code ties}.
   */
  Continuum(long[] positions, int[] pointOwners, int count, int nodeCount, Ties ties) {
    if (count < 1) {
      throw new IllegalArgumentException("a continuum needs at least one point");
    }
    long[] keys = new long[count];
    int[] own = new int[count];
    for (int i = 0; i < count; i++) {
      keys[i] = positions[i] ^ Long.MIN_VALUE;
      own[i] = pointOwners[i];
    }
    int[] rank = new int[count];
    for (int i = 0; i < count; i++) {
      rank[i] = ties == Ties.FIRST_IN_LIST ? own[i] : nodeCount - 1 - own[i];
    }
    PairSort.sort(keys, rank, own, 0, count);
    // Keep the first of each run of equal points: the sort put the winner of the tie there.
    int unique = 0;
    for (int i = 0; i < count; i++) {
      if (unique == 0 || keys[i] != keys[unique - 1]) {
        keys[unique] = keys[i];
        own[unique] = own[i];
        unique++;
      }
    }
    this.points = java.util.Arrays.copyOf(keys, unique);
    this.owners = java.util.Arrays.copyOf(own, unique);
    this.nodeCount = nodeCount;

    int bits = Math.max(1, Math.min(MAX_INDEX_BITS, 64 - Long.numberOfLeadingZeros(unique - 1L)));
    this.shift = 64 - bits;
    int buckets = 1 << bits;
    this.index = new int[buckets + 1];
    int p = 0;
    for (int k = 0; k <= buckets; k++) {
      while (p < unique && Long.compareUnsigned(topBits(points[p]), k) < 0) {
        p++;
      }
      index[k] = p;
    }
  }

  private long topBits(long storedPoint) {
    return (storedPoint ^ Long.MIN_VALUE) >>> shift;
  }

  /** Index of the first point at or after the unsigned {@code position}, wrapping to 0. */
  int successor(long position) {
    int k = (int) (position >>> shift);
    int lo = index[k];
    int hi = index[k + 1];
    long key = position ^ Long.MIN_VALUE;
    if (hi - lo <= LINEAR_SCAN) {
      while (lo < hi && points[lo] < key) {
        lo++;
      }
    } else {
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (points[mid] < key) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
    }
    return lo == points.length ? 0 : lo;
  }

  /** Owner of the unsigned {@code position}. Allocation free. */
  int ownerOf(long position) {
    return owners[successor(position)];
  }

  /**
   * The distinct owners met walking clockwise from {@code position}, then any node that owns no
   * point, in list order. See {@link io.shardwise.routing.Router#preferenceOrder}.
   */
  int preferenceOrder(long position, int[] out) {
    int want = Math.min(out.length, nodeCount);
    if (want == 0) {
      return 0;
    }
    boolean[] seen = want > LINEAR_SCAN ? new boolean[nodeCount] : null;
    int count = 0;
    int i = successor(position);
    for (int step = 0; step < points.length && count < want; step++) {
      int owner = owners[i];
      if (!contains(out, count, seen, owner)) {
        out[count++] = owner;
        if (seen != null) {
          seen[owner] = true;
        }
      }
      if (++i == points.length) {
        i = 0;
      }
    }
    for (int node = 0; node < nodeCount && count < want; node++) {
      if (!contains(out, count, seen, node)) {
        out[count++] = node;
      }
    }
    return count;
  }

  private static boolean contains(int[] out, int count, boolean[] seen, int node) {
    if (seen != null) {
      return seen[node];
    }
    for (int j = 0; j < count; j++) {
      if (out[j] == node) {
        return true;
      }
    }
    return false;
  }

  /** Number of distinct points. */
  int size() {
    return points.length;
  }

  /** Unsigned position of point {@code i} (ascending in {@code i}). */
  long position(int i) {
    return points[i] ^ Long.MIN_VALUE;
  }

  /** Owner of point {@code i}. */
  int owner(int i) {
    return owners[i];
  }

  /**
   * Each node's exact share of the circle: the lengths of the arcs ending at its points, over
   * the circumference {@code 2^64}. Sums to 1.
   */
  double[] ownership() {
    double[] share = new double[nodeCount];
    int n = points.length;
    for (int i = 0; i < n; i++) {
      // Arc (previous point, this point]; the first point also owns the wrap-around arc.
      long prev = i == 0 ? position(n - 1) : position(i - 1);
      long arc = position(i) - prev; // unsigned, modulo 2^64; 0 when there is a single point
      double len = n == 1 ? 0x1p64 : unsignedToDouble(arc);
      share[owners[i]] += len;
    }
    for (int j = 0; j < nodeCount; j++) {
      share[j] /= 0x1p64;
    }
    return share;
  }

  private static double unsignedToDouble(long x) {
    double d = (double) (x >>> 1) * 2.0;
    return d + (x & 1);
  }
}
