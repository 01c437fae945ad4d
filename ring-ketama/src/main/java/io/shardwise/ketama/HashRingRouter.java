package io.shardwise.ketama;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * A consistent-hash ring on the 64-bit circle (Karger et al., STOC 1997) for users who do not
 * need ketama compatibility: keys are hashed with {@link Murmur3} (no MD5), and a node of weight
 * {@code w} puts {@code w * pointsPerNode} points on the ring.
 *
 * <p>Point {@code j} of a node is {@code fmix64(seed + (j + 1) * 0x9E3779B97F4A7C15)} with
 * {@code seed} the Murmur3 hash of the node's name: the SplitMix64 sequence (Steele, Lea and
 * Flood, OOPSLA 2014) seeded by the name. A node keeps its points when other nodes come and go,
 * and keeps them when its address changes if it has an explicit name.
 *
 * <p>Balance: a node's share of the circle is Beta(V, (n-1)V) at equal weights, so its relative
 * standard deviation is {@code sqrt((n-1)/(nV+1))}, about {@code 1/sqrt(V)}.
 */
public final class HashRingRouter implements Router {

  /** Points per node of weight 1 unless configured: the same count as ketama. */
  public static final int DEFAULT_POINTS_PER_NODE = 160;

  /** Largest ring built: points per node times the total weight. */
  public static final int MAX_POINTS = 1 << 24;

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private final List<Node> nodes;
  private final int pointsPerNode;
  private final Continuum continuum;

  private HashRingRouter(List<Node> nodes, int pointsPerNode) {
    if (pointsPerNode < 1) {
      throw new IllegalArgumentException("points per node must be >= 1 but was " + pointsPerNode);
    }
    this.nodes = ServerList.validate(nodes);
    this.pointsPerNode = pointsPerNode;
    long total = 0;
    for (Node node : this.nodes) {
      total += (long) node.weight() * pointsPerNode;
    }
    if (total > MAX_POINTS) {
      throw new IllegalArgumentException(
          "a ring of "
              + total
              + " points (points per node x total weight) is too large; the limit is "
              + MAX_POINTS);
    }
    long[] positions = new long[(int) total];
    int[] owners = new int[(int) total];
    int p = 0;
    for (int i = 0; i < this.nodes.size(); i++) {
      Node node = this.nodes.get(i);
      long seed = Murmur3.INSTANCE.hash(node.name().getBytes(StandardCharsets.UTF_8));
      int count = node.weight() * pointsPerNode;
      for (int j = 0; j < count; j++) {
        positions[p] = Murmur3.fmix64(seed + (j + 1) * GOLDEN);
        owners[p] = i;
        p++;
      }
    }
    this.continuum = new Continuum(positions, owners, p, this.nodes.size(), Continuum.Ties.FIRST_IN_LIST);
  }

  /** A ring with {@link #DEFAULT_POINTS_PER_NODE} points per unit of weight. */
  public static HashRingRouter create(List<Node> nodes) {
    return new HashRingRouter(nodes, DEFAULT_POINTS_PER_NODE);
  }

  /** A ring with {@code pointsPerNode} points per unit of weight. */
  public static HashRingRouter create(List<Node> nodes, int pointsPerNode) {
    return new HashRingRouter(nodes, pointsPerNode);
  }

  public int pointsPerNode() {
    return pointsPerNode;
  }

  /** Each node's exact share of the circle. */
  public double[] ownership() {
    return continuum.ownership();
  }

  /** Number of distinct points on the ring. */
  public int pointCount() {
    return continuum.size();
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public KeyHasher hasher() {
    return Murmur3.INSTANCE;
  }

  @Override
  public int primary(long keyHash) {
    return continuum.ownerOf(keyHash);
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    return continuum.preferenceOrder(keyHash, out);
  }

  /** The first {@code n} distinct servers clockwise from the key. Allocation free. */
  @Override
  public int replicas(long keyHash, int n, int[] out) {
    return continuum.replicas(keyHash, n, out);
  }

  /**
   * Walks the continuum clockwise from the key to the first point whose owner is available:
   * about {@code 1 / (1 - f)} points with a fraction f of the nodes out. Allocation free.
   */
  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    return continuum.walkToAvailable(keyHash, available, walked);
  }

  @Override
  public String describe() {
    return "ring(V=" + pointsPerNode + ")";
  }

  @Override
  public String toString() {
    return describe() + nodes;
  }
}
