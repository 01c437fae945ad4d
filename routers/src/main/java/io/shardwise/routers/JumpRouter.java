package io.shardwise.routers;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Jump consistent hash (Lamping &amp; Veach, "A Fast, Minimal Memory, Consistent Hash Algorithm",
 * 2014): buckets {@code 0..n-1}, bucket {@code i} is node {@code i} of the list. No memory, an
 * O(ln n) loop, and growing the list from n to n+1 nodes moves exactly the keys the new last
 * node takes, about 1/(n+1) of them.
 *
 * <p>The primary is identical to Guava's {@code Hashing.consistentHash(keyHash, n)}, so for a
 * {@code String} key it equals {@code consistentHash(murmur3_128().hashString(key, UTF_8), n)}.
 *
 * <p>Jump supports no weights, and only the last bucket can be removed without moving other
 * keys: take a dead node out of a jump list only if it is the last one, and otherwise leave it in
 * and let failover skip it.
 *
 * <p><b>Failover chain.</b> Step 0 is the primary. Step {@code a} (1 &lt;= a &lt; n) computes
 * {@code r = jump(fmix64(keyHash + a * 0x9E3779B97F4A7C15L), n - a)} and takes the node at
 * position {@code r} (0-based) among the nodes not chosen by steps {@code 0..a-1}, counted in
 * list order. The chain is deterministic, has no repeats, and each step is uniform over the
 * nodes still left, so the keys of a dead node spread evenly over the others.
 */
public final class JumpRouter implements Router {

  /** Failover steps up to this length find ranks by scanning, without allocating. */
  private static final int SCAN_LIMIT = 16;

  private final List<Node> nodes;
  private final int n;

  /**
   * A jump router whose bucket {@code i} is {@code nodes.get(i)}.
   *
   * @throws IllegalArgumentException if the list is empty, names a server twice, or any node has
   *     a weight other than 1
   */
  public JumpRouter(List<Node> nodes) {
    this.nodes = RouterNodes.validateUnweighted("jump", nodes);
    this.n = this.nodes.size();
  }

  /**
   * Bucket counts up to this use {@link #jumpByReciprocal}; above it, {@link #jumpByDivision}
   * (see the former for why).
   */
  static final int RECIPROCAL_LIMIT = 1 << 22;

  /**
   * The jump consistent hash of {@code key} over {@code buckets >= 1} buckets.
   *
   * <p>Lamping &amp; Veach: the key seeds a 64-bit linear congruential generator (multiplier
   * 2862933555777941757, increment 1); from bucket {@code b} the key's next change of bucket, as
   * the bucket count grows, is at {@code floor((b + 1) / r)} with {@code r} in (0, 1] from the
   * top 31 bits of the generator state, and the last change below {@code buckets} wins. The
   * result equals Guava's {@code Hashing.consistentHash(key, buckets)} for every input.
   */
  static int jump(long key, int buckets) {
    return buckets <= RECIPROCAL_LIMIT ? jumpByReciprocal(key, buckets) : jumpByDivision(key, buckets);
  }

  /**
   * Guava's arithmetic step for step: {@code r = m / 2^31} with {@code m = (int) (state >>> 33) +
   * 1} in 32-bit arithmetic, which for the largest state wraps to a negative {@code m} and ends
   * the loop. {@code (b + 1) / (m / 2^31)} is computed as {@code ((b + 1) * 2^31) / m}: both scale
   * by a power of two exactly and round the same real quotient once. The paper's C form, {@code
   * (b + 1) * (2^31 / m)}, rounds twice and disagrees with Guava on some inputs (the tests pin
   * one).
   *
   * <p>Each step waits for the previous one's division, about 25-30 cycles of latency.
   */
  static int jumpByDivision(long key, int buckets) {
    long state = key;
    int candidate = 0;
    while (true) {
      state = 2862933555777941757L * state + 1;
      int m = (int) (state >>> 33) + 1;
      int next = (int) ((candidate + 1) * 0x1.0p31 / m);
      if (next >= 0 && next < buckets) {
        candidate = next;
      } else {
        return candidate;
      }
    }
  }

  /**
   * The same function with the division taken off the loop's chain of dependent steps: the
   * reciprocal {@code 2^31 / m} depends only on the generator, so the processor computes it
   * while the previous step is still running, and the step itself is a multiplication, then an
   * exact correction in integers to {@code floor((b + 1) * 2^31 / m)}.
   *
   * <p>Why the exact floor is Guava's answer while {@code buckets <= 2^22}: Guava truncates the
   * correctly rounded quotient {@code Q = (b + 1) * 2^31 / m}, which differs from {@code floor(Q)}
   * only if {@code Q} lies below an integer {@code k} by at most half a unit in the last place,
   * that is by at most {@code 2^-32} for {@code Q < 2^22}. But {@code Q} has denominator {@code m
   * <= 2^31}, so it is an integer or at least {@code 2^-31} from one. Every {@code k} that decides
   * the answer is at most {@code buckets}, hence the limit; above it, {@link #jumpByDivision}.
   */
  static int jumpByReciprocal(long key, int buckets) {
    long state = key;
    int candidate = 0;
    while (true) {
      state = 2862933555777941757L * state + 1;
      int m = (int) (state >>> 33) + 1;
      if (m <= 0) {
        return candidate; // Guava's r is negative here (see jumpByDivision)
      }
      long numerator = (long) (candidate + 1) << 31;
      // Two roundings: within 2^-29 of Q for the Q that matter, so at most one off floor(Q).
      long next = (long) ((candidate + 1) * (0x1.0p31 / m));
      if (next > buckets) {
        return candidate;
      }
      long product = next * m;
      if (product > numerator) {
        next--;
      } else if (numerator - product >= m) {
        next++;
      }
      if (next >= buckets) {
        return candidate;
      }
      candidate = (int) next;
    }
  }

  /**
   * How many times the loop of {@link #primary(long) jump(keyHash, buckets)} runs, for measuring
   * the paper's bound (expected count below {@code ln(buckets) + 1}). Not for the hot path.
   *
   * <p>The loop visits the key's successive buckets {@code 0 = b_0 < b_1 < ... < b_k < buckets}
   * and runs once more to find that the next one is out of range: {@code k + 1} times. The same
   * generator states give the same buckets for every bucket count, so {@code jump(keyHash, b_i)}
   * is {@code b_(i-1)}: walking that chain down from the answer counts {@code k} without a copy
   * of the loop, in O(k^2) steps.
   *
   * @throws IllegalArgumentException if {@code buckets < 1}
   */
  public static int loopIterations(long keyHash, int buckets) {
    if (buckets < 1) {
      throw new IllegalArgumentException("buckets must be >= 1 but was " + buckets);
    }
    int iterations = 1;
    for (int b = jump(keyHash, buckets); b > 0; b = jump(keyHash, b)) {
      iterations++;
    }
    return iterations;
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public int size() {
    return n;
  }

  @Override
  public KeyHasher hasher() {
    return Murmur3.INSTANCE;
  }

  @Override
  public int primary(long keyHash) {
    return jump(keyHash, n);
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    return chain(keyHash, out, Math.min(out.length, n));
  }

  /** The first {@code count} steps of the failover chain. Allocation free. */
  @Override
  public int replicas(long keyHash, int count, int[] out) {
    return chain(keyHash, out, Router.replicaCount(count, n, out.length));
  }

  /**
   * Writes the first {@code k} steps of the failover chain: up to {@value #SCAN_LIMIT} by
   * scanning the steps before, more with a per-thread Fenwick tree. No allocation once the
   * thread has one.
   */
  private int chain(long keyHash, int[] out, int k) {
    if (k == 0) {
      return 0;
    }
    out[0] = jump(keyHash, n);
    if (k <= SCAN_LIMIT) {
      for (int a = 1; a < k; a++) {
        out[a] = unchosenAt(out, a, rank(keyHash, a));
      }
      return k;
    }
    WalkScratch scratch = WalkScratch.take();
    try {
      int[] remaining = scratch.ints(n + 1);
      RemainingNodes.fill(remaining, n);
      RemainingNodes.remove(remaining, n, out[0]);
      for (int a = 1; a < k; a++) {
        int node = RemainingNodes.at(remaining, n, rank(keyHash, a));
        RemainingNodes.remove(remaining, n, node);
        out[a] = node;
      }
      return k;
    } finally {
      scratch.release();
    }
  }

  /**
   * Takes the chain's steps one at a time up to the first available node: about {@code 1 / (1 -
   * f)} steps with a fraction f of the nodes out, each one jump computation (O(ln n)) and a scan
   * of the nodes skipped so far. Past {@value #SCAN_LIMIT} steps the ranks are found in a
   * per-thread Fenwick tree instead. No allocation.
   */
  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    Objects.checkFromIndexSize(0, n, walked.length);
    int scanned = Math.min(n, SCAN_LIMIT);
    for (int a = 0; a < scanned; a++) {
      int node = a == 0 ? jump(keyHash, n) : unchosenAt(walked, a, rank(keyHash, a));
      walked[a] = node;
      if (available.test(node)) {
        return a;
      }
    }
    if (scanned == n) {
      return n;
    }
    WalkScratch scratch = WalkScratch.take();
    try {
      int[] remaining = scratch.ints(n + 1);
      RemainingNodes.fill(remaining, n);
      for (int a = 0; a < n; a++) {
        if (a >= scanned) {
          walked[a] = RemainingNodes.at(remaining, n, rank(keyHash, a));
          if (available.test(walked[a])) {
            return a;
          }
        }
        RemainingNodes.remove(remaining, n, walked[a]);
      }
      return n;
    } finally {
      scratch.release();
    }
  }

  /** Rank among the {@code n - a} remaining nodes of failover step {@code a}. */
  private int rank(long keyHash, int a) {
    return jump(Murmur3.fmix64(keyHash + a * RouterNodes.GOLDEN), n - a);
  }

  /**
   * The node index at position {@code r} among those not in {@code chosen[0, count)}. It is the
   * least fixed point of {@code i = r + |{c in chosen : c <= i}|}, reached by iterating from
   * {@code i = r}: the map is monotone and the answer is its only fixed point at or above r.
   */
  static int unchosenAt(int[] chosen, int count, int r) {
    int i = r;
    while (true) {
      int below = 0;
      for (int c = 0; c < count; c++) {
        if (chosen[c] <= i) {
          below++;
        }
      }
      int next = r + below;
      if (next == i) {
        return i;
      }
      i = next;
    }
  }

  /** {@code jump}. */
  @Override
  public String describe() {
    return "jump";
  }

  @Override
  public String toString() {
    return describe() + " over " + n + " nodes";
  }

  /**
   * The set of node indexes not yet chosen, as a Fenwick tree of 0/1 counts in {@code tree[1,
   * n]}: select by rank and remove in O(log n) each, for long failover chains. Static over the
   * caller's array, so that a walk can reuse one per thread.
   */
  static final class RemainingNodes {

    private RemainingNodes() {}

    /** Makes {@code tree[1, n]} the set of all of {@code 0..n-1}. */
    static void fill(int[] tree, int n) {
      // With every count 1, the cell for (1-based) position p sums lowbit(p) counts.
      for (int p = 1; p <= n; p++) {
        tree[p] = p & -p;
      }
    }

    static void remove(int[] tree, int n, int index) {
      for (int p = index + 1; p <= n; p += p & -p) {
        tree[p]--;
      }
    }

    /** The remaining index of rank {@code r} (0-based) in ascending order. */
    static int at(int[] tree, int n, int r) {
      // Largest prefix length whose count is <= r; the next position is the answer.
      int pos = 0;
      int rest = r;
      for (int step = Integer.highestOneBit(n); step > 0; step >>= 1) {
        int p = pos + step;
        if (p <= n && tree[p] <= rest) {
          pos = p;
          rest -= tree[p];
        }
      }
      return pos;
    }
  }
}
