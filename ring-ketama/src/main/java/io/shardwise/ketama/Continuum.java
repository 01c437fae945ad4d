package io.shardwise.ketama;

import io.shardwise.routing.Router;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;

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
   * For each point, how many points back (counterclockwise) its owner's previous point is, or the
   * point count if the owner has only this one: a walk that has passed {@code step} points meets
   * a new owner exactly where {@code sinceOwner > step}, so it needs no set of owners seen.
   */
  private final int[] sinceOwner;
  /** The nodes that own no point, in list order: the end of every preference order. */
  private final int[] pointless;

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
    this.points = Arrays.copyOf(keys, unique);
    this.owners = Arrays.copyOf(own, unique);
    this.nodeCount = nodeCount;
    this.sinceOwner = new int[unique];
    int[] last = new int[nodeCount];
    Arrays.fill(last, -1);
    for (int i = 0; i < unique; i++) {
      last[owners[i]] = i;
    }
    for (int i = 0; i < unique; i++) {
      int previous = last[owners[i]]; // at or after i on an owner's first point: wrap around
      sinceOwner[i] = previous < i ? i - previous : i - previous + unique;
      last[owners[i]] = i;
    }
    this.pointless = IntStream.range(0, nodeCount).filter(j -> last[j] < 0).toArray();

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
   * point, in list order. See {@link io.shardwise.routing.Router#preferenceOrder}. Allocation
   * free.
   */
  int preferenceOrder(long position, int[] out) {
    return walk(position, null, out, Math.min(out.length, nodeCount));
  }

  /**
   * The first {@code min(n, node count)} nodes of that order: see {@link Router#replicas}.
   * Allocation free.
   */
  int replicas(long position, int n, int[] out) {
    return walk(position, null, out, Router.replicaCount(n, nodeCount, out.length));
  }

  /**
   * The same walk, stopped at the first node {@code available} accepts. See {@link
   * io.shardwise.routing.Router#walkToAvailable}. Allocation free; with a fraction f of the nodes
   * out it looks at about {@code 1 / (1 - f)} points.
   */
  int walkToAvailable(long position, IntPredicate available, int[] walked) {
    Objects.checkFromIndexSize(0, nodeCount, walked.length);
    return walk(position, available, walked, nodeCount);
  }

  /**
   * Writes the owners met walking clockwise from {@code position}, each once, then the nodes that
   * own no point, until {@code want} are written or {@code available} (if not null) accepts the
   * node just written. Returns the number written and not accepted.
   */
  private int walk(long position, IntPredicate available, int[] out, int want) {
    if (want == 0) {
      return 0;
    }
    int count = 0;
    int i = successor(position);
    for (int step = 0; step < points.length; step++) {
      // The owner's previous point is more than `step` points back: not on the walk so far.
      if (sinceOwner[i] > step) {
        int owner = owners[i];
        out[count] = owner;
        if (available != null && available.test(owner)) {
          return count;
        }
        if (++count == want) {
          return count;
        }
      }
      if (++i == points.length) {
        i = 0;
      }
    }
    for (int node : pointless) {
      out[count] = node;
      if (available != null && available.test(node)) {
        return count;
      }
      if (++count == want) {
        return count;
      }
    }
    return count;
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
