package io.shardwise.bounded;

import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;
import java.util.Objects;

/**
 * Consistent hashing with bounded loads (Mirrokni, Thorup and Zadimoghaddam, "Consistent Hashing
 * with Bounded Loads", SODA 2018) in the weighted form of Envoy's {@code hash_balance_factor} and
 * HAProxy's {@code hash-balance-factor}: picks, for a key, the first node of its router's
 * preference order whose load is below its cap.
 *
 * <h2>The rule</h2>
 *
 * <p>With {@code t} the current total load ({@link LoadView#total()}, not counting the request
 * being placed) and {@code w_j = weight_j / sum(weights)} node {@code j}'s normalised weight, node
 * {@code j}'s cap is
 *
 * <pre>
 *   cap_j = ceil((1 + epsilon) * (t + 1) * w_j)
 * </pre>
 *
 * <p>and node {@code j} is eligible while {@code load_j < cap_j}. {@link #select} walks the key's
 * preference order (primary first) and:
 *
 * <ul>
 *   <li>skips nodes that are not {@link LoadView#isAvailable(int) available}; a skipped node does
 *       not count against the probe limit;
 *   <li>picks the first available node that is eligible;
 *   <li>stops after {@code probeLimit} available nodes (or at the end of the order); if every
 *       probed node was at or over its cap, it picks the least loaded probed node, the earliest in
 *       preference order among equals;
 *   <li>returns {@link #NO_NODE} ({@code -1}) when no node of the order is available, and leaves
 *       the reaction (an error, or trying the primary anyway) to the caller.
 * </ul>
 *
 * <p>The caps sum to at least {@code (1 + epsilon) * (t + 1)}, more than the {@code t} requests
 * already placed, so with every node available and {@code probeLimit >= n} an eligible node always
 * exists and no node ever carries more than its cap: the paper's guarantee, with peak/mean load at
 * most {@code 1 + epsilon} up to rounding. A smaller probe limit bounds the work per request and
 * gives up the guarantee only when {@code probeLimit} nodes in a row are full.
 *
 * <p>Weights are normalised over all the router's nodes, available or not, once, at construction:
 * while nodes are unavailable the available ones' caps add up to less, and requests fall back to
 * the least loaded probed node sooner. A node that stays away should leave the topology (a new
 * router and a new selector), which restores the full slack.
 *
 * <h2>Use in a cache</h2>
 *
 * <p>This class only picks a node; the client decides which requests it applies to. In a cache a
 * spilled read lands on a node that does not own the key, so writes go to the primary and only
 * reads spill (see the design notes, section 7). {@link Selection#spilled()} tells the caller when
 * that happened.
 *
 * <h2>Cost</h2>
 *
 * <p>{@link #select} allocates nothing. It asks the router for the primary first and, when the
 * primary is available and under its cap (the common case), returns without computing the
 * preference order. Otherwise it fetches the first {@code min(n, probeLimit + 1)} nodes of the
 * order into the caller's {@link Selection}, and the whole order only if unavailable nodes use
 * those up.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class BoundedLoadSelector {

  /**
   * Default {@code epsilon}: caps at 1.25 times a node's weighted share, as Envoy's {@code
   * hash_balance_factor: 125}.
   */
  public static final double DEFAULT_EPSILON = 0.25;

  /** Default number of available nodes probed before falling back to the least loaded one. */
  public static final int DEFAULT_PROBE_LIMIT = 8;

  /** The node index {@link #select} returns when no node is available. */
  public static final int NO_NODE = -1;

  /**
   * How far, in units in the last place, a computed product may be from an integer and still
   * count as that integer. The product carries a few roundings (epsilon and the weight are
   * binary approximations of decimals, then two multiplications), each at most half an ulp.
   */
  private static final double SNAP_ULPS = 8;

  private final Router router;
  private final double epsilon;
  private final double factor;
  private final int probeLimit;
  private final int size;
  private final int headLength;
  private final double[] weights;

  private BoundedLoadSelector(Router router, double epsilon, int probeLimit) {
    this.router = Objects.requireNonNull(router, "router");
    checkEpsilon(epsilon);
    if (probeLimit < 1) {
      throw new IllegalArgumentException("probe limit must be >= 1 but was " + probeLimit);
    }
    List<Node> nodes = router.nodes();
    if (nodes.isEmpty()) {
      throw new IllegalArgumentException(
          "router must have at least one node but " + router.describe() + " has none");
    }
    this.epsilon = epsilon;
    this.factor = 1 + epsilon;
    this.probeLimit = probeLimit;
    this.size = nodes.size();
    this.headLength = (int) Math.min(size, probeLimit + 1L);
    long sum = 0;
    for (Node node : nodes) {
      sum += node.weight();
    }
    this.weights = new double[size];
    for (int i = 0; i < size; i++) {
      weights[i] = nodes.get(i).weight() / (double) sum;
    }
  }

  /**
   * A selector over {@code router} with {@link #DEFAULT_EPSILON} and {@link
   * #DEFAULT_PROBE_LIMIT}.
   */
  public static BoundedLoadSelector of(Router router) {
    return new BoundedLoadSelector(router, DEFAULT_EPSILON, DEFAULT_PROBE_LIMIT);
  }

  /**
   * A selector over {@code router}. A probe limit above the number of nodes means all of them.
   *
   * @throws IllegalArgumentException if {@code epsilon} is not a finite number {@code > 0}, if
   *     {@code probeLimit < 1}, or if the router has no nodes
   */
  public static BoundedLoadSelector of(Router router, double epsilon, int probeLimit) {
    return new BoundedLoadSelector(router, epsilon, probeLimit);
  }

  /**
   * The cap {@code ceil((1 + epsilon) * (total + 1) * normalisedWeight)}: a node may take a
   * request while its load is below this. Always at least 1.
   *
   * <p>The product is computed in {@code double}; a result within a few ulps of an integer counts
   * as that integer, so a decimal {@code epsilon} behaves as its decimal value: {@code cap(0.1,
   * 49, 1.0)} is 55, where {@code Math.ceil(1.1 * 50.0)} gives 56.
   *
   * @param epsilon the allowed excess over a node's share, a finite number {@code > 0}
   * @param total the current total load over all nodes, not counting the request being placed
   * @param normalisedWeight the node's weight divided by the sum of all weights, in {@code (0, 1]}
   * @throws IllegalArgumentException if an argument is out of range
   */
  public static long cap(double epsilon, long total, double normalisedWeight) {
    checkEpsilon(epsilon);
    checkTotal(total);
    if (!(normalisedWeight > 0 && normalisedWeight <= 1)) {
      throw new IllegalArgumentException(
          "normalised weight must be in (0, 1] but was " + normalisedWeight);
    }
    return capOf(1 + epsilon, total + 1.0, normalisedWeight);
  }

  /**
   * The cap of node {@code node} at total load {@code total}, as {@link #select} computes it.
   *
   * @throws IllegalArgumentException if {@code total < 0}
   * @throws IndexOutOfBoundsException if {@code node} is not a node index
   */
  public long cap(int node, long total) {
    Objects.checkIndex(node, size);
    checkTotal(total);
    return capOf(factor, total + 1.0, weights[node]);
  }

  /**
   * Picks the node for a key: the first available node of the key's preference order that is
   * under its cap, probing at most {@link #probeLimit()} available nodes, else the least loaded
   * probed node, else {@link #NO_NODE}. Writes the details into {@code into}. Allocates nothing
   * once {@code into} has served a selector of the same shape.
   *
   * @param keyHash the key's hash under the router's {@link Router#hasher() hasher}
   * @param loads the current loads and availability
   * @param into receives the outcome; reused by the caller from call to call
   * @return the picked node index, or {@link #NO_NODE} if no node is available
   * @throws IllegalArgumentException if {@code loads.total()} is negative
   * @throws IllegalStateException if the router's preference order is not a full-length order
   *     starting with its primary
   */
  public int select(long keyHash, LoadView loads, Selection into) {
    Objects.requireNonNull(loads, "loads");
    Objects.requireNonNull(into, "into");
    long total = loads.total();
    checkTotal(total);
    double t1 = total + 1.0;
    int primary = router.primary(keyHash);
    into.start(primary);

    int probes = 0;
    int skipped = 0;
    int best = NO_NODE;
    long bestLoad = Long.MAX_VALUE;
    if (loads.isAvailable(primary)) {
      long load = loads.load(primary);
      if (load < capOf(factor, t1, weights[primary])) {
        return into.finish(primary, 1, 0, false);
      }
      probes = 1;
      best = primary;
      bestLoad = load;
    } else {
      skipped = 1;
    }

    int[] order = null;
    int fetched = 1;
    for (int pos = 1; pos < size && probes < probeLimit; pos++) {
      if (pos == fetched) {
        order = pos == 1 ? into.head(headLength) : into.full(size);
        fetched = fetch(keyHash, order, primary);
      }
      int node = order[pos];
      if (!loads.isAvailable(node)) {
        skipped++;
        continue;
      }
      probes++;
      long load = loads.load(node);
      if (load < capOf(factor, t1, weights[node])) {
        return into.finish(node, probes, skipped, false);
      }
      if (best == NO_NODE || load < bestLoad) {
        best = node;
        bestLoad = load;
      }
    }
    return into.finish(best, probes, skipped, best != NO_NODE);
  }

  private int fetch(long keyHash, int[] out, int primary) {
    int written = router.preferenceOrder(keyHash, out);
    if (written != out.length || out[0] != primary) {
      throw new IllegalStateException(
          router.describe()
              + " broke the Router contract: preferenceOrder wrote "
              + written
              + " of the "
              + out.length
              + " nodes asked for, starting with node "
              + out[0]
              + ", but primary() is node "
              + primary);
    }
    return written;
  }

  /** The router whose preference order this selector walks. */
  public Router router() {
    return router;
  }

  public double epsilon() {
    return epsilon;
  }

  /** The most available nodes probed for one request. */
  public int probeLimit() {
    return probeLimit;
  }

  /** Node {@code node}'s weight divided by the sum of all nodes' weights. */
  public double normalisedWeight(int node) {
    Objects.checkIndex(node, size);
    return weights[node];
  }

  @Override
  public String toString() {
    return "bounded(epsilon="
        + epsilon
        + ", probeLimit="
        + probeLimit
        + ") over "
        + router.describe();
  }

  private static long capOf(double factor, double totalPlusOne, double normalisedWeight) {
    double x = factor * totalPlusOne * normalisedWeight;
    double nearest = Math.rint(x);
    double capped = Math.abs(x - nearest) <= SNAP_ULPS * Math.ulp(nearest) ? nearest : Math.ceil(x);
    return Math.max(1L, (long) capped);
  }

  private static void checkEpsilon(double epsilon) {
    if (!(epsilon > 0)) {
      throw new IllegalArgumentException("epsilon must be > 0 but was " + epsilon);
    }
    if (epsilon == Double.POSITIVE_INFINITY) {
      throw new IllegalArgumentException("epsilon must be finite but was " + epsilon);
    }
  }

  private static void checkTotal(long total) {
    if (total < 0) {
      throw new IllegalArgumentException("total load must be >= 0 but was " + total);
    }
  }
}
