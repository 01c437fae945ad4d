package io.shardwise.bounded;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.LongFunction;

/** A router with a preference order given per hash by the test; counts its order computations. */
final class FakeRouter implements Router {

  private final List<Node> nodes;
  private final LongFunction<int[]> orders;
  private int primaryOverride = -1;
  int preferenceOrderCalls;

  private FakeRouter(List<Node> nodes, LongFunction<int[]> orders) {
    this.nodes = List.copyOf(nodes);
    this.orders = orders;
  }

  /** {@code weights.length} nodes; every hash gets the preference order {@code order}. */
  static FakeRouter fixed(int[] order, int... weights) {
    int[] copy = order.clone();
    return new FakeRouter(nodes(weights), h -> copy);
  }

  /** {@code n} nodes of weight 1; every hash gets the preference order {@code order}. */
  static FakeRouter fixed(int n, int... order) {
    int[] weights = new int[n];
    Arrays.fill(weights, 1);
    return fixed(order, weights);
  }

  /** Nodes 0..n-1 in index order for every hash. */
  static FakeRouter identity(int n) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return fixed(n, order);
  }

  /** A pseudo-random permutation per hash, seeded by the hash: a stand-in for a real router. */
  static FakeRouter shuffled(int... weights) {
    int n = weights.length;
    return new FakeRouter(
        nodes(weights),
        h -> {
          int[] order = new int[n];
          for (int i = 0; i < n; i++) {
            order[i] = i;
          }
          Random random = new Random(h);
          for (int i = n - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            int t = order[i];
            order[i] = order[j];
            order[j] = t;
          }
          return order;
        });
  }

  /** Breaks the Router contract: primary() answers {@code primary} whatever the order says. */
  FakeRouter withPrimary(int primary) {
    FakeRouter broken = new FakeRouter(nodes, orders);
    broken.primaryOverride = primary;
    return broken;
  }

  private static List<Node> nodes(int... weights) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      nodes.add(Node.of("127.0." + (i / 250) + "." + (i % 250 + 1), 11211, weights[i]));
    }
    return nodes;
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
    return primaryOverride >= 0 ? primaryOverride : orders.apply(keyHash)[0];
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    preferenceOrderCalls++;
    int[] order = orders.apply(keyHash);
    int count = Math.min(out.length, order.length);
    System.arraycopy(order, 0, out, 0, count);
    return count;
  }

  @Override
  public String describe() {
    return "fake(n=" + nodes.size() + ")";
  }
}
