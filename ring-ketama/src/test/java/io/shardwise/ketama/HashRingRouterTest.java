package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class HashRingRouterTest {

  private static List<Node> nodes(String prefix, int n) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(Node.named(prefix + i, "127.0.0.1", 11211 + i, 1));
    }
    return nodes;
  }

  @ParameterizedTest(name = "n={0} V={1}")
  @CsvSource({"10,100", "100,100", "10,160", "100,160", "10,1000", "50,200"})
  void shareSpreadMatchesTheBetaDistribution(int n, int v) {
    // Relative std of a node's share is sqrt((n-1)/(nV+1)); average the sample variance over seeds.
    double sumSq = 0;
    int samples = 0;
    for (int seed = 0; seed < 40; seed++) {
      double[] share = HashRingRouter.create(nodes("s" + seed + "-", n), v).ownership();
      for (double s : share) {
        double rel = s * n - 1;
        sumSq += rel * rel;
        samples++;
      }
    }
    double measured = Math.sqrt(sumSq / samples);
    double theory = Math.sqrt((n - 1.0) / (n * (double) v + 1));
    assertThat(measured).isCloseTo(theory, org.assertj.core.data.Percentage.withPercentage(15));
  }

  @ParameterizedTest(name = "n={0}")
  @ValueSource(ints = {5, 10, 50, 100})
  void removingANodeMovesOnlyItsKeys(int n) {
    List<Node> all = nodes("node-", n);
    HashRingRouter before = HashRingRouter.create(all);
    int removed = n / 2;
    List<Node> rest = new ArrayList<>(all);
    rest.remove(removed);
    HashRingRouter after = HashRingRouter.create(rest);
    SplittableRandom random = new SplittableRandom(n);
    int moved = 0;
    int keys = 100_000;
    int[] order = new int[2];
    for (int i = 0; i < keys; i++) {
      long h = random.nextLong();
      Node was = all.get(before.primary(h));
      Node now = rest.get(after.primary(h));
      if (!was.equals(now)) {
        moved++;
        assertThat(was).isEqualTo(all.get(removed));
        // ... and it moves to the next node of its old preference order.
        before.preferenceOrder(h, order);
        assertThat(now).isEqualTo(all.get(order[1]));
      }
    }
    double expected = keys * before.ownership()[removed];
    assertThat((double) moved).isCloseTo(expected, org.assertj.core.data.Offset.offset(5 * Math.sqrt(expected) + 1));
  }

  @ParameterizedTest(name = "n={0}")
  @ValueSource(ints = {5, 10, 50, 100})
  void addingANodeMovesAboutOneInNPlusOneKeysAllOntoTheNewNode(int n) {
    List<Node> before = nodes("node-", n);
    List<Node> after = new ArrayList<>(before);
    after.add(Node.named("new-node", "127.0.0.2", 11211, 1));
    HashRingRouter r1 = HashRingRouter.create(before);
    HashRingRouter r2 = HashRingRouter.create(after);
    SplittableRandom random = new SplittableRandom(n);
    int moved = 0;
    int keys = 200_000;
    for (int i = 0; i < keys; i++) {
      long h = random.nextLong();
      int a = r1.primary(h);
      int b = r2.primary(h);
      if (a != b) {
        moved++;
        assertThat(b).isEqualTo(n);
      }
    }
    double fraction = moved / (double) keys;
    double expected = r2.ownership()[n];
    assertThat(fraction).isCloseTo(expected, org.assertj.core.data.Offset.offset(0.01));
    // The new node's share itself is about 1/(n+1), within the ring's spread at V = 160.
    assertThat(expected * (n + 1)).isBetween(0.6, 1.4);
  }

  @Test
  void weightsMultiplyPoints() {
    List<Node> nodes = List.of(Node.of("a", 1, 1), Node.of("b", 1, 3));
    HashRingRouter ring = HashRingRouter.create(nodes, 1000);
    assertThat(ring.pointCount()).isEqualTo(4000);
    double[] share = ring.ownership();
    assertThat(share[1] / share[0]).isBetween(2.6, 3.4);
  }

  @Test
  void preferenceOrderIsAPermutationStartingAtThePrimary() {
    HashRingRouter ring = HashRingRouter.create(nodes("p", 40), 10);
    SplittableRandom random = new SplittableRandom(5);
    for (int i = 0; i < 2000; i++) {
      long h = random.nextLong();
      int[] order = new int[40];
      assertThat(ring.preferenceOrder(h, order)).isEqualTo(40);
      assertThat(order[0]).isEqualTo(ring.primary(h));
      int[] sorted = order.clone();
      Arrays.sort(sorted);
      for (int j = 0; j < 40; j++) {
        assertThat(sorted[j]).isEqualTo(j);
      }
      int[] three = new int[3];
      ring.preferenceOrder(h, three);
      assertThat(three).containsExactly(order[0], order[1], order[2]);
    }
  }

  @Test
  void stringKeysRouteByTheirMurmur3Hash() {
    HashRingRouter ring = HashRingRouter.create(nodes("k", 10));
    assertThat(ring.primary("user:42"))
        .isEqualTo(ring.primary(io.shardwise.routing.Murmur3.INSTANCE.hash("user:42")));
    assertThat(ring.describe()).isEqualTo("ring(V=160)");
  }

  @Test
  void rejectsBadParameters() {
    assertThatThrownBy(() -> HashRingRouter.create(nodes("x", 3), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("points per node must be >= 1 but was 0");
    assertThatThrownBy(() -> HashRingRouter.create(List.of(Node.of("a", 1, 100_000)), 1000))
        .hasMessageContaining("too large");
    assertThatThrownBy(() -> HashRingRouter.create(List.of()))
        .hasMessageContaining("at least one server");
  }
}
