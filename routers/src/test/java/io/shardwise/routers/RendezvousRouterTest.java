package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RendezvousRouterTest {

  private static List<Node> weighted(int... weights) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      nodes.add(Fleets.node(i).withWeight(weights[i]));
    }
    return nodes;
  }

  /** The preference order written out from the class notes, sorted with a comparator. */
  private static int[] obviousOrder(List<Node> nodes, long keyHash) {
    long[] x = new long[nodes.size()];
    double[] score = new double[nodes.size()];
    for (int i = 0; i < nodes.size(); i++) {
      x[i] = Murmur3.fmix64(keyHash ^ Murmur3.INSTANCE.hash(nodes.get(i).name()));
      double u = ((x[i] >>> 11) + 1) / Math.pow(2, 53);
      score[i] = -StrictMath.log(u) / nodes.get(i).weight();
    }
    Comparator<Integer> byScore = Comparator.comparingDouble(i -> score[i]);
    Comparator<Integer> byValueDescending = (i, j) -> Long.compareUnsigned(x[j], x[i]);
    return IntStream.range(0, nodes.size())
        .boxed()
        .sorted(byScore.thenComparing(byValueDescending).thenComparing(i -> i))
        .mapToInt(Integer::intValue)
        .toArray();
  }

  @Test
  void preferenceOrderIsAscendingLogarithmicScore() {
    for (List<Node> nodes : List.of(Fleets.nodes(40), weighted(1, 5, 2, 9, 1, 3, 3, 7, 1, 2, 4))) {
      Router router = new RendezvousRouter(nodes);
      for (long key : Fleets.keyHashes(3, 2_000)) {
        int[] expected = obviousOrder(nodes, key);
        int[] out = new int[nodes.size()];
        router.preferenceOrder(key, out);
        assertThat(out).isEqualTo(expected);
        assertThat(router.primary(key)).isEqualTo(expected[0]);
      }
    }
  }

  @Test
  void replicasAreTheNHighestScores() {
    for (List<Node> nodes : List.of(Fleets.nodes(40), weighted(1, 5, 2, 9, 1, 3, 3, 7, 1, 2, 4))) {
      Router router = new RendezvousRouter(nodes);
      int[] out = new int[nodes.size()];
      for (long key : Fleets.keyHashes(4, 1_000)) {
        int[] expected = obviousOrder(nodes, key);
        for (int n : new int[] {1, 2, 3, 8, 9, 11, 40}) {
          int count = router.replicas(key, n, out);
          assertThat(count).isEqualTo(Math.min(n, nodes.size()));
          assertThat(Arrays.copyOf(out, count)).as("n=%d", n).isEqualTo(Arrays.copyOf(expected, count));
        }
      }
    }
  }

  @Test
  void weightedPrimaryIsTheLeastScoreAlsoForExtremeWeights() {
    List<List<Node>> fleets =
        List.of(
            weighted(1, 1_000_000),
            weighted(1_000_000, 1, 1, 1),
            weighted(3),
            weighted(2, 3),
            weighted(IntStream.range(0, 300).map(i -> 1 + i % 17).toArray()));
    for (List<Node> nodes : fleets) {
      Router router = new RendezvousRouter(nodes);
      for (long key : Fleets.keyHashes(nodes.size(), 2_000)) {
        assertThat(router.primary(key)).isEqualTo(obviousOrder(nodes, key)[0]);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 7})
  void equalWeightsRankByRawValuesExactlyAsTheLogarithmicForm(int weight) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      nodes.add(Fleets.node(i).withWeight(weight));
    }
    Router raw = new RendezvousRouter(nodes);
    Router log = new RendezvousRouter(nodes, true);
    int[] rawOrder = new int[60];
    int[] logOrder = new int[60];
    for (long key : Fleets.keyHashes(weight, 20_000)) {
      assertThat(raw.primary(key)).isEqualTo(log.primary(key));
      raw.preferenceOrder(key, rawOrder);
      log.preferenceOrder(key, logOrder);
      assertThat(rawOrder).isEqualTo(logOrder);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 10, 50, 100})
  void removingANodeMovesOnlyItsKeysEachToItsSecondChoice(int n) {
    List<Node> nodes = Fleets.nodes(n);
    Router before = new RendezvousRouter(nodes);
    List<Node> fewer = new ArrayList<>(nodes);
    Node removed = fewer.remove(n / 3);
    Router after = new RendezvousRouter(fewer);
    long[] keys = Fleets.keyHashes(n, 50_000);
    String[] was = Fleets.owners(before, keys);
    String[] is = Fleets.owners(after, keys);
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
  @ValueSource(ints = {5, 10, 50, 100})
  void addingANodeMovesAboutOneOverNPlusOneOfTheKeysAllOntoIt(int n) {
    List<Node> nodes = Fleets.nodes(n + 1);
    Node added = nodes.get(n / 2);
    List<Node> fewer = new ArrayList<>(nodes);
    fewer.remove(added);
    long[] keys = Fleets.keyHashes(100 + n, 100_000);
    String[] was = Fleets.owners(new RendezvousRouter(fewer), keys);
    String[] is = Fleets.owners(new RendezvousRouter(nodes), keys);
    int moved = 0;
    for (int k = 0; k < keys.length; k++) {
      if (!is[k].equals(was[k])) {
        moved++;
        assertThat(is[k]).isEqualTo(added.name());
      }
    }
    double p = 1.0 / (n + 1);
    Fleets.assertBinomial("keys moved", moved, keys.length, p);
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 10, 50, 100})
  void eachNodeGetsAboutOneNthOfTheKeys(int n) {
    long[] keys = Fleets.keyHashes(200 + n, 200_000);
    int[] counts = Fleets.counts(new RendezvousRouter(Fleets.nodes(n)), keys);
    double p = 1.0 / n;
    for (int count : counts) {
      Fleets.assertBinomial("keys of a node", count, keys.length, p);
    }
  }

  @Test
  void eachNodeGetsAShareProportionalToItsWeight() {
    int[] weights = {1, 1, 2, 3, 5, 8, 13, 1, 4, 10};
    int total = IntStream.of(weights).sum();
    long[] keys = Fleets.keyHashes(9, 300_000);
    int[] counts = Fleets.counts(new RendezvousRouter(weighted(weights)), keys);
    for (int i = 0; i < weights.length; i++) {
      double p = (double) weights[i] / total;
      Fleets.assertBinomial("keys of node " + i, counts[i], keys.length, p);
    }
  }

  @Test
  void removingAWeightedNodeMovesOnlyItsKeys() {
    List<Node> nodes = weighted(3, 1, 4, 1, 5, 9, 2, 6);
    List<Node> fewer = new ArrayList<>(nodes);
    Node removed = fewer.remove(5);
    long[] keys = Fleets.keyHashes(11, 50_000);
    String[] was = Fleets.owners(new RendezvousRouter(nodes), keys);
    String[] is = Fleets.owners(new RendezvousRouter(fewer), keys);
    for (int k = 0; k < keys.length; k++) {
      if (!was[k].equals(removed.name())) {
        assertThat(is[k]).isEqualTo(was[k]);
      }
    }
  }

  @Test
  void raisingANodesWeightMovesKeysOnlyOntoIt() {
    List<Node> nodes = weighted(2, 2, 2, 2, 2);
    List<Node> raised = new ArrayList<>(nodes);
    raised.set(2, nodes.get(2).withWeight(4));
    long[] keys = Fleets.keyHashes(12, 100_000);
    String[] was = Fleets.owners(new RendezvousRouter(nodes), keys);
    String[] is = Fleets.owners(new RendezvousRouter(raised), keys);
    int moved = 0;
    for (int k = 0; k < keys.length; k++) {
      if (!is[k].equals(was[k])) {
        moved++;
        assertThat(is[k]).isEqualTo(nodes.get(2).name());
      }
    }
    // Its share goes from 2/10 to 4/12: a third of the keys minus the fifth it had.
    double p = 4.0 / 12 - 2.0 / 10;
    Fleets.assertBinomial("keys moved", moved, keys.length, p);
  }

  @Test
  void describesItselfAsHrwAndSaysWhenItIsWeighted() {
    assertThat(new RendezvousRouter(weighted(1, 2)).describe()).isEqualTo("hrw");
    assertThat(new RendezvousRouter(weighted(1, 2))).hasToString("hrw over 2 nodes, weighted");
    assertThat(new RendezvousRouter(weighted(2, 2))).hasToString("hrw over 2 nodes");
  }
}
