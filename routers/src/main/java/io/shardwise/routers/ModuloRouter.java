package io.shardwise.routers;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * The modulo baseline: node {@code keyHash mod n}, the 64-bit hash taken as unsigned. Changing
 * the node count from n to n+1 moves about n/(n+1) of the keys (99% for 100 to 101), so use it
 * only to compare against, or for a fleet that never changes. No weights.
 *
 * <p><b>Failover chain:</b> the primary {@code p}, then {@code p+1, p+2, ...} modulo n, so the
 * keys of a dead node all land on the next node of the list.
 */
public final class ModuloRouter implements Router {

  private final List<Node> nodes;
  private final int n;

  /**
   * A modulo router over {@code nodes} in list order.
   *
   * @throws IllegalArgumentException if the list is empty, names a server twice, or any node has
   *     a weight other than 1
   */
  public ModuloRouter(List<Node> nodes) {
    this.nodes = RouterNodes.validateUnweighted("modulo", nodes);
    this.n = this.nodes.size();
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
    return (int) Long.remainderUnsigned(keyHash, n);
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    return successors(keyHash, out, Math.min(out.length, n));
  }

  /** The primary {@code p} and the next {@code count - 1} nodes. Allocation free. */
  @Override
  public int replicas(long keyHash, int count, int[] out) {
    return successors(keyHash, out, Router.replicaCount(count, n, out.length));
  }

  /** Writes {@code p, p+1, ...} modulo n, {@code k} of them. */
  private int successors(long keyHash, int[] out, int k) {
    int node = primary(keyHash);
    for (int a = 0; a < k; a++) {
      out[a] = node;
      if (++node == n) {
        node = 0;
      }
    }
    return k;
  }

  /** Steps {@code p, p+1, ...} to the first available node. Allocation free. */
  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    Objects.checkFromIndexSize(0, n, walked.length);
    int node = primary(keyHash);
    for (int a = 0; a < n; a++) {
      walked[a] = node;
      if (available.test(node)) {
        return a;
      }
      if (++node == n) {
        node = 0;
      }
    }
    return n;
  }

  /** {@code modulo}. */
  @Override
  public String describe() {
    return "modulo";
  }

  @Override
  public String toString() {
    return describe() + " over " + n + " nodes";
  }
}
