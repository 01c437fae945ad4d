package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MultiProbeRouterTest {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  /** The class notes written out: least clockwise distance over all probes and nodes. */
  private static int bruteForcePrimary(List<Node> nodes, int probes, long keyHash) {
    int best = -1;
    long bestDistance = 0;
    for (int j = 0; j < probes; j++) {
      long probe = j == 0 ? keyHash : Murmur3.fmix64(keyHash + j * GOLDEN);
      for (int i = 0; i < nodes.size(); i++) {
        long distance = Murmur3.INSTANCE.hash(nodes.get(i).name()) - probe;
        int c = best < 0 ? -1 : Long.compareUnsigned(distance, bestDistance);
        if (c < 0 || (c == 0 && i < best)) {
          best = i;
          bestDistance = distance;
        }
      }
    }
    return best;
  }

  @Test
  void primaryIsTheNodeNearestAfterAnyProbe() {
    for (int n : new int[] {1, 2, 3, 10, 100, 300}) {
      List<Node> nodes = Fleets.nodes(n);
      for (int probes : new int[] {1, 2, 21}) {
        Router router = new MultiProbeRouter(nodes, probes);
        for (long key : Fleets.keyHashes(n * 31L + probes, 3_000)) {
          assertThat(router.primary(key)).isEqualTo(bruteForcePrimary(nodes, probes, key));
        }
      }
    }
  }

  @Test
  void comparesPointsUnsignedAndWrapsPastTheLargest() {
    // Unsigned order of the points: 10 (node 1), 20 (node 2), 2^64 - 6 (node 0).
    long[] points = {-6, 10, 20};
    Router router = new MultiProbeRouter(Fleets.nodes(3), 1, points);
    assertThat(router.primary(-10)).isZero();
    assertThat(router.primary(-6)).isZero();
    assertThat(router.primary(-5)).isEqualTo(1);
    assertThat(router.primary(0)).isEqualTo(1);
    assertThat(router.primary(10)).isEqualTo(1);
    assertThat(router.primary(11)).isEqualTo(2);
    assertThat(router.primary(Long.MAX_VALUE)).isZero();
    assertThat(router.primary(Long.MIN_VALUE)).isZero();
  }

  @Test
  void equalPointsGoToTheLowerListIndex() {
    long[] points = {1L << 62, 5L << 60, 5L << 60, -(1L << 62)};
    Router router = new MultiProbeRouter(Fleets.nodes(4), 21, points);
    int[] counts = Fleets.counts(router, Fleets.keyHashes(4, 20_000));
    assertThat(counts[1]).isPositive();
    assertThat(counts[2]).isZero();
    int[] order = new int[4];
    for (long key : Fleets.keyHashes(5, 2_000)) {
      router.preferenceOrder(key, order);
      int at = Arrays.asList(order[0], order[1], order[2], order[3]).indexOf(1);
      assertThat(at).isLessThan(3);
      assertThat(order[at + 1]).isEqualTo(2);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 10, 50, 100})
  void removingANodeMovesOnlyItsKeysEachToItsSecondChoice(int n) {
    List<Node> nodes = Fleets.nodes(n);
    Router before = new MultiProbeRouter(nodes);
    List<Node> fewer = new ArrayList<>(nodes);
    Node removed = fewer.remove(n / 2);
    long[] keys = Fleets.keyHashes(n, 50_000);
    String[] was = Fleets.owners(before, keys);
    String[] is = Fleets.owners(new MultiProbeRouter(fewer), keys);
    int[] order = new int[2];
    int removedKeys = 0;
    for (int k = 0; k < keys.length; k++) {
      if (was[k].equals(removed.name())) {
        removedKeys++;
        before.preferenceOrder(keys[k], order);
        assertThat(is[k]).isEqualTo(nodes.get(order[1]).name());
      } else {
        assertThat(is[k]).isEqualTo(was[k]);
      }
    }
    assertThat(removedKeys).isPositive();
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 50})
  void addingANodeMovesKeysOnlyOntoIt(int n) {
    List<Node> nodes = Fleets.nodes(n + 1);
    List<Node> fewer = nodes.subList(0, n);
    long[] keys = Fleets.keyHashes(n, 50_000);
    String[] was = Fleets.owners(new MultiProbeRouter(fewer), keys);
    String[] is = Fleets.owners(new MultiProbeRouter(nodes), keys);
    int moved = 0;
    for (int k = 0; k < keys.length; k++) {
      if (!is[k].equals(was[k])) {
        moved++;
        assertThat(is[k]).isEqualTo(nodes.get(n).name());
      }
    }
    assertThat(moved).isPositive();
  }

  /**
   * Each node's expected share of keys, from the gaps between the points. A probe falls in node
   * j's gap g_j with probability g_j (the circle has length 1) at a uniform distance in [0, g_j]
   * before the point. With S(t) = sum_i max(0, g_i - t) the chance that a probe is farther than
   * t from its successor, node j wins with probability K * integral_0^g_j S(t)^(K-1) dt; S is
   * linear between sorted gaps, so the integral is a sum of differences of S^K.
   */
  static double[] predictedShares(long[] points, int probes) {
    int n = points.length;
    // Sorted as the router sorts (unsigned, ties by index): of equal points, the first takes the
    // gap and the others get 0.
    Integer[] byPoint = new Integer[n];
    for (int i = 0; i < n; i++) {
      byPoint[i] = i;
    }
    Arrays.sort(
        byPoint,
        (a, b) -> points[a] != points[b] ? Long.compareUnsigned(points[a], points[b]) : a - b);
    double[] gapOf = new double[n];
    for (int p = 0; p < n; p++) {
      long gap = points[byPoint[p]] - points[byPoint[(p + n - 1) % n]];
      gapOf[byPoint[p]] = (gap >>> 11) * 0x1.0p-53;
    }
    double[] gaps = gapOf.clone();
    Arrays.sort(gaps);
    // s[k] = S(gaps[k - 1]), with s[0] = S(0) = 1.
    double[] s = new double[n + 1];
    s[0] = Arrays.stream(gaps).sum();
    for (int k = 0; k < n; k++) {
      double sum = 0;
      for (double g : gaps) {
        sum += Math.max(0, g - gaps[k]);
      }
      s[k + 1] = sum;
    }
    double[] shares = new double[n];
    for (int i = 0; i < n; i++) {
      // On [gaps[k - 1], gaps[k]], n - k gaps exceed t and S falls with slope -(n - k).
      for (int k = 0; k < n && gaps[k] <= gapOf[i]; k++) {
        shares[i] += (Math.pow(s[k], probes) - Math.pow(s[k + 1], probes)) / (n - k);
      }
    }
    return shares;
  }

  private static long[] points(List<Node> nodes) {
    return nodes.stream().mapToLong(node -> Murmur3.INSTANCE.hash(node.name())).toArray();
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 5, 21})
  void loadsMatchTheSharesPredictedFromTheGapsBetweenPoints(int probes) {
    List<Node> nodes = Fleets.nodes(100);
    double[] shares = predictedShares(points(nodes), probes);
    assertThat(Arrays.stream(shares).sum()).isCloseTo(1.0, within(1e-9));
    long[] keys = Fleets.keyHashes(probes, 300_000);
    int[] counts = Fleets.counts(new MultiProbeRouter(nodes, probes), keys);
    for (int i = 0; i < nodes.size(); i++) {
      Fleets.assertBinomial("keys of node " + i, counts[i], keys.length, shares[i]);
    }
  }

  @Test
  void twentyOneProbesBringThePeakToAboutFivePercentOverTheMeanAtAHundredNodes() {
    double sum = 0;
    int sets = 8;
    for (int set = 0; set < sets; set++) {
      List<Node> nodes = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        nodes.add(Node.of("cache-" + set + "-" + i + ".example", 11211));
      }
      double one = Arrays.stream(predictedShares(points(nodes), 1)).max().orElseThrow() * 100;
      double peak = Arrays.stream(predictedShares(points(nodes), 21)).max().orElseThrow() * 100;
      assertThat(one).as("one probe, set %d", set).isGreaterThan(3);
      assertThat(peak).as("21 probes, set %d", set).isBetween(1.0, 1.12);
      sum += peak;
    }
    assertThat(sum / sets).isBetween(1.02, 1.08);
  }

  @Test
  void rejectsFewerThanOneProbe() {
    assertThatThrownBy(() -> new MultiProbeRouter(Fleets.nodes(3), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("probes must be >= 1 but was 0");
  }

  @Test
  void rejectsWeightsNamingTheNodeAndTheWeight() {
    List<Node> nodes = List.of(Fleets.node(0), Fleets.node(1).withWeight(2));
    assertThatThrownBy(() -> new MultiProbeRouter(nodes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("multiprobe")
        .hasMessageContaining("'127.0.0.2:11211' has weight 2");
  }

  @Test
  void describesItsProbeCount() {
    assertThat(new MultiProbeRouter(Fleets.nodes(2), 5).describe()).isEqualTo("multiprobe(K=5)");
    assertThat(new MultiProbeRouter(Fleets.nodes(2)).probes()).isEqualTo(21);
  }
}
