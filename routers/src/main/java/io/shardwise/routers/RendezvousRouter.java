package io.shardwise.routers;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Rendezvous or highest-random-weight hashing (Thaler &amp; Ravishankar, "Using name-based
 * mappings to increase hit rates", IEEE/ACM ToN 1998): every node scores the key and the best
 * score wins. Weights use the logarithmic method of Schindelhauer &amp; Schomaker ("Weighted
 * distributed hash tables", SPAA 2005): node {@code i} wins with probability {@code w_i / sum(w)}.
 *
 * <p>Removing a node moves only the keys it held, each to the node that was second for it;
 * adding one moves only the keys the new node now wins. Lookup is O(n).
 *
 * <p><b>Failover chain:</b> the preference order is the nodes by descending score (ascending
 * {@code -ln(u)/w}), so the next node for a key is always where the key would live if every node
 * before it were removed from the list.
 */
public final class RendezvousRouter implements Router {

  /*
   * Placement (a contract; see the package documentation):
   *   seed_i  = Murmur3(UTF-8 of node i's name)
   *   x_i     = fmix64(keyHash ^ seed_i), a 64-bit value per (key, node)
   *   u_i     = ((x_i >>> 11) + 1) * 2^-53, the top 53 bits as a double in (0, 1], never 0
   *   score_i = -ln(u_i) / w_i with StrictMath.log, so every JVM computes the same bits
   * The smallest score wins; equal scores go to the larger x_i (unsigned), then the lower index.
   *
   * -ln(u) is Exp(1) for uniform u, so score_i is Exp(w_i), and the least of independent
   * exponentials is node i with probability w_i / sum(w) (Schindelhauer & Schomaker).
   *
   * When all weights are equal the score is a non-increasing function of x_i (the log is
   * semi-monotonic, the division by a common w monotonic), and ties are broken by x_i itself, so
   * ranking by x_i descending gives exactly the same order. That form needs no logarithm: it is
   * used whenever the weights are all equal, and the tests check it against the log form.
   */

  private final List<Node> nodes;
  private final long[] seeds;
  /** Node weights, or null when they are all equal and the raw 64-bit values are ranked. */
  private final double[] weights;
  /** 1 / weight per node when {@link #weights} is set, for the score bound only. */
  private final double[] inverseWeights;

  /** Relative margin of the score bound in {@link #primaryWeighted}, many ulps wide. */
  private static final double PRUNE_MARGIN = 1 + 0x1.0p-40;

  /**
   * A rendezvous router over {@code nodes}, in list order, honouring their weights.
   *
   * @throws IllegalArgumentException if the list is empty or names a server twice
   */
  public RendezvousRouter(List<Node> nodes) {
    this(nodes, false);
  }

  /** With {@code logarithmic}, scores by {@code -ln(u)/w} even when the weights are equal. */
  RendezvousRouter(List<Node> nodes, boolean logarithmic) {
    this.nodes = ServerList.validate(nodes);
    int n = this.nodes.size();
    this.seeds = new long[n];
    boolean equalWeights = true;
    double[] w = new double[n];
    for (int i = 0; i < n; i++) {
      Node node = this.nodes.get(i);
      seeds[i] = RouterNodes.nameHash(node);
      w[i] = node.weight();
      equalWeights &= node.weight() == this.nodes.get(0).weight();
    }
    this.weights = equalWeights && !logarithmic ? null : w;
    if (weights == null) {
      this.inverseWeights = null;
    } else {
      this.inverseWeights = new double[n];
      for (int i = 0; i < n; i++) {
        inverseWeights[i] = 1.0 / weights[i];
      }
    }
  }

  /** The 64-bit value of a (key, node) pair. */
  static long value(long keyHash, long seed) {
    return Murmur3.fmix64(keyHash ^ seed);
  }

  /** The logarithmic-method score of a (key, node) value; smaller is better. */
  static double score(long value, double weight) {
    double u = ((value >>> 11) + 1) * 0x1.0p-53;
    return (0.0 - StrictMath.log(u)) / weight;
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public int size() {
    return seeds.length;
  }

  @Override
  public KeyHasher hasher() {
    return Murmur3.INSTANCE;
  }

  @Override
  public int primary(long keyHash) {
    return weights == null ? primaryEqualWeights(keyHash) : primaryWeighted(keyHash);
  }

  private int primaryEqualWeights(long keyHash) {
    int best = 0;
    // x ^ MIN_VALUE orders as a signed long the way x orders unsigned.
    long bestKey = value(keyHash, seeds[0]) ^ Long.MIN_VALUE;
    for (int i = 1; i < seeds.length; i++) {
      long key = value(keyHash, seeds[i]) ^ Long.MIN_VALUE;
      if (key > bestKey) {
        bestKey = key;
        best = i;
      }
    }
    return best;
  }

  private int primaryWeighted(long keyHash) {
    // Logarithms are the cost here, so most are skipped, without changing any result.
    // -ln(u) >= 1 - u, so (1 - u) / w is a lower bound of a node's score, and a close one for the
    // u near 1 that win. Pass 1 picks the node with the least bound, a likely winner, and scores
    // it. Pass 2 scores only the nodes whose bound does not exceed that score by a relative
    // margin far above the few ulps of error in either computation: any other node's computed
    // score is surely larger, so it can neither win nor tie. A lookup then takes about one
    // logarithm (1.0 to 1.2 measured for 10 to 1000 nodes) instead of n.
    int n = seeds.length;
    int best = 0;
    double bestBound = Double.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      double bound = lowerBound(value(keyHash, seeds[i]), i);
      if (bound < bestBound) {
        bestBound = bound;
        best = i;
      }
    }
    long bestValue = value(keyHash, seeds[best]);
    double bestScore = score(bestValue, weights[best]);
    double cutoff = bestScore * PRUNE_MARGIN;
    for (int i = 0; i < n; i++) {
      long v = value(keyHash, seeds[i]);
      if (i == best || lowerBound(v, i) > cutoff) {
        continue;
      }
      double s = score(v, weights[i]);
      if (before(s, v, i, bestScore, bestValue, best)) {
        best = i;
        bestScore = s;
        bestValue = v;
        cutoff = bestScore * PRUNE_MARGIN;
      }
    }
    return best;
  }

  /**
   * Whether node {@code i} with score {@code s} and value {@code v} is ordered before node {@code
   * best}: the smaller score, then the larger value (unsigned), then the lower index.
   */
  private static boolean before(
      double s, long v, int i, double bestScore, long bestValue, int best) {
    return s < bestScore
        || (s == bestScore
            && (Long.compareUnsigned(v, bestValue) > 0 || (v == bestValue && i < best)));
  }

  /** A lower bound of the score of value {@code v} for node {@code i}, up to rounding. */
  private double lowerBound(long v, int i) {
    return (1.0 - ((v >>> 11) + 1) * 0x1.0p-53) * inverseWeights[i];
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
    int n = seeds.length;
    long[] k1 = new long[n];
    long[] k2 = weights == null ? null : new long[n];
    keys(keyHash, k1, k2);
    return NodeRanking.write(k1, k2, n, out);
  }

  /**
   * The {@code n} best-scoring nodes, best first: the N highest random weights of Thaler and
   * Ravishankar. With {@code n == 1}, {@link #primary(long)}; else every node's keys in per-thread
   * arrays, ranked by {@link NodeRanking#writeFirst}. Allocation free.
   */
  @Override
  public int replicas(long keyHash, int n, int[] out) {
    int count = Router.replicaCount(n, seeds.length, out.length);
    if (count == 1) {
      out[0] = primary(keyHash);
      return 1;
    }
    WalkScratch scratch = WalkScratch.take();
    try {
      long[] k1 = scratch.k1(seeds.length);
      long[] k2 = weights == null ? null : scratch.k2(seeds.length);
      keys(keyHash, k1, k2);
      return NodeRanking.writeFirst(k1, k2, seeds.length, out, count, scratch);
    } finally {
      scratch.release();
    }
  }

  /**
   * One pass over the nodes in the order {@link #preferenceOrder} ranks them, without allocating:
   * O(n) like every rendezvous lookup. With weights, the pruning of {@link #primaryWeighted}
   * keeps the logarithms to a few. See {@link NodeRanking#walk}.
   */
  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    Objects.checkFromIndexSize(0, seeds.length, walked.length);
    return weights == null
        ? walkRanked(keyHash, available, walked)
        : walkWeighted(keyHash, available, walked);
  }

  /** Every node's keys into per-thread arrays, then {@link NodeRanking#walk}. */
  private int walkRanked(long keyHash, IntPredicate available, int[] walked) {
    int n = seeds.length;
    WalkScratch scratch = WalkScratch.take();
    try {
      long[] k1 = scratch.k1(n);
      long[] k2 = weights == null ? null : scratch.k2(n);
      keys(keyHash, k1, k2);
      return NodeRanking.walk(k1, k2, n, available, walked);
    } finally {
      scratch.release();
    }
  }

  /**
   * As {@link #primaryWeighted}, among the available nodes: pass 1 picks the available node with
   * the least score bound, pass 2 scores only the nodes whose bound could beat the best available
   * node so far and collects the unavailable ones that do. Every node ordered before the final
   * one has its bound below every cutoff, so it is collected; the few collected get their keys,
   * and {@link NodeRanking#finish} keeps those before the final node, sorted.
   */
  private int walkWeighted(long keyHash, IntPredicate available, int[] walked) {
    int n = seeds.length;
    int best = -1;
    double bestBound = Double.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      double bound = lowerBound(value(keyHash, seeds[i]), i);
      if (bound < bestBound && available.test(i)) {
        bestBound = bound;
        best = i;
      }
    }
    if (best < 0) {
      return walkRanked(keyHash, available, walked); // none available: the whole order
    }
    long bestValue = value(keyHash, seeds[best]);
    double bestScore = score(bestValue, weights[best]);
    double cutoff = bestScore * PRUNE_MARGIN;
    int asked = 0;
    for (int i = 0; i < n; i++) {
      long v = value(keyHash, seeds[i]);
      if (i == best || lowerBound(v, i) > cutoff) {
        continue;
      }
      double s = score(v, weights[i]);
      if (before(s, v, i, bestScore, bestValue, best)) {
        if (available.test(i)) {
          best = i;
          bestScore = s;
          bestValue = v;
          cutoff = bestScore * PRUNE_MARGIN;
        } else {
          walked[asked++] = i;
        }
      }
    }
    if (asked == 0) {
      walked[0] = best;
      return 0;
    }
    WalkScratch scratch = WalkScratch.take();
    try {
      long[] k1 = scratch.k1(n);
      long[] k2 = scratch.k2(n);
      for (int a = 0; a <= asked; a++) {
        key(keyHash, a < asked ? walked[a] : best, k1, k2);
      }
      return NodeRanking.finish(k1, k2, best, walked, asked);
    } finally {
      scratch.release();
    }
  }

  /** The {@link NodeRanking} keys of every node for a key hash; {@code k2} only when weighted. */
  private void keys(long keyHash, long[] k1, long[] k2) {
    for (int i = 0; i < seeds.length; i++) {
      key(keyHash, i, k1, k2);
    }
  }

  private void key(long keyHash, int i, long[] k1, long[] k2) {
    long v = value(keyHash, seeds[i]);
    // x ^ MAX_VALUE orders as a signed long the way x orders unsigned, reversed.
    if (weights == null) {
      k1[i] = v ^ Long.MAX_VALUE;
    } else {
      // Scores are >= +0.0, whose bit patterns order as signed longs like the doubles.
      k1[i] = Double.doubleToRawLongBits(score(v, weights[i]));
      k2[i] = v ^ Long.MAX_VALUE;
    }
  }

  /** {@code hrw}. */
  @Override
  public String describe() {
    return "hrw";
  }

  @Override
  public String toString() {
    return describe() + " over " + seeds.length + " nodes" + (weights == null ? "" : ", weighted");
  }
}
