package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.shardwise.routing.Node;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MaglevRouterTest {

  private static final Node B0 = Node.named("B0", "127.0.0.1", 80, 1);
  private static final Node B1 = Node.named("B1", "127.0.0.2", 80, 1);
  private static final Node B2 = Node.named("B2", "127.0.0.3", 80, 1);

  private static String[] table(MaglevRouter router) {
    String[] names = new String[router.tableSize()];
    for (int slot = 0; slot < names.length; slot++) {
      names[slot] = router.nodes().get(router.slotOwner(slot)).name();
    }
    return names;
  }

  @Test
  void reproducesTable1OfThePaper() {
    MaglevRouter router =
        new MaglevRouter(List.of(B0, B1, B2), 7, new int[] {3, 0, 3}, new int[] {4, 2, 1});
    assertThat(table(router)).containsExactly("B1", "B0", "B1", "B0", "B2", "B2", "B0");
  }

  @Test
  void reproducesTable1OfThePaperAfterB1IsRemoved() {
    MaglevRouter router = new MaglevRouter(List.of(B0, B2), 7, new int[] {3, 3}, new int[] {4, 1});
    assertThat(table(router)).containsExactly("B0", "B0", "B0", "B0", "B2", "B2", "B2");
  }

  @Test
  void primaryIsTheOwnerOfTheKeysSlot() {
    MaglevRouter router = new MaglevRouter(Fleets.nodes(20), 1009);
    for (long key : Fleets.keyHashes(1, 10_000)) {
      assertThat(router.primary(key))
          .isEqualTo(router.slotOwner((int) Long.remainderUnsigned(key, 1009)));
    }
    // The hash is unsigned: -1 is 2^64 - 1.
    BigInteger minusOne = BigInteger.TWO.pow(64).subtract(BigInteger.ONE);
    int slot = minusOne.mod(BigInteger.valueOf(1009)).intValue();
    assertThat(router.primary(-1L)).isEqualTo(router.slotOwner(slot));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 5, 10, 50, 100, 600})
  void equalWeightsGiveEveryNodeTheFloorOrCeilingOfItsShareOfSlots(int n) {
    for (int tableSize : new int[] {65537, 1009}) {
      if (tableSize <= n) {
        continue;
      }
      int[] counts = new MaglevRouter(Fleets.nodes(n), tableSize).slotCounts();
      assertThat(IntStream.of(counts).sum()).isEqualTo(tableSize);
      for (int count : counts) {
        assertThat(count).isBetween(tableSize / n, (tableSize + n - 1) / n);
      }
    }
  }

  @Test
  void weightsSetTheShareOfSlots() {
    int[] weights = {1, 2, 3, 5, 8, 13, 1, 4};
    int total = IntStream.of(weights).sum();
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      nodes.add(Fleets.node(i).withWeight(weights[i]));
    }
    int[] counts = new MaglevRouter(nodes).slotCounts();
    for (int i = 0; i < weights.length; i++) {
      // A node claims (rounds - 1) * w / w_max slots plus 1 or 2, which bounds the error.
      double expected = 65537.0 * weights[i] / total;
      double tolerance = Math.max(2, 2.0 * weights.length * weights[i] / total);
      assertThat((double) counts[i]).as("node %d", i).isCloseTo(expected, within(tolerance));
    }
  }

  @Test
  void everyNodeOwnsASlotEvenBesideMuchHeavierOnes() {
    List<Node> nodes = new ArrayList<>(Fleets.nodes(5));
    nodes.set(0, nodes.get(0).withWeight(1_000_000));
    int[] counts = new MaglevRouter(nodes, 101).slotCounts();
    assertThat(counts).containsExactly(97, 1, 1, 1, 1);
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 10, 50, 100})
  void removingANodeMovesItsKeysAndUnderOnePercentOfTheOthers(int n) {
    List<Node> nodes = Fleets.nodes(n);
    List<Node> fewer = new ArrayList<>(nodes);
    Node removed = fewer.remove(n / 2);
    long[] keys = Fleets.keyHashes(n, 100_000);
    String[] was = Fleets.owners(new MaglevRouter(nodes), keys);
    String[] is = Fleets.owners(new MaglevRouter(fewer), keys);
    int others = 0;
    int othersMoved = 0;
    for (int k = 0; k < keys.length; k++) {
      if (was[k].equals(removed.name())) {
        assertThat(is[k]).isNotEqualTo(removed.name());
      } else {
        others++;
        if (!is[k].equals(was[k])) {
          othersMoved++;
        }
      }
    }
    assertThat((double) othersMoved / others).isLessThan(0.01);
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 10, 50, 100})
  void addingANodeMovesAboutItsShareOfKeysMostlyOntoIt(int n) {
    List<Node> nodes = Fleets.nodes(n + 1);
    long[] keys = Fleets.keyHashes(n, 100_000);
    String[] was = Fleets.owners(new MaglevRouter(nodes.subList(0, n)), keys);
    String[] is = Fleets.owners(new MaglevRouter(nodes), keys);
    int moved = 0;
    int onNew = 0;
    for (int k = 0; k < keys.length; k++) {
      if (!is[k].equals(was[k])) {
        moved++;
        if (is[k].equals(nodes.get(n).name())) {
          onNew++;
        }
      }
    }
    double p = 1.0 / (n + 1);
    Fleets.assertBinomial("keys moved onto the new node", onNew, keys.length, p);
    assertThat((double) moved / keys.length).isLessThan(p + 0.01);
  }

  @Test
  void preferenceOrderWalksTheTableForwardFromTheKeysSlot() {
    MaglevRouter router = new MaglevRouter(Fleets.nodes(30), 211);
    for (long key : Fleets.keyHashes(2, 2_000)) {
      Set<Integer> met = new LinkedHashSet<>();
      int slot = (int) Long.remainderUnsigned(key, 211);
      for (int walked = 0; walked < 211; walked++) {
        met.add(router.slotOwner((slot + walked) % 211));
      }
      int[] out = new int[30];
      router.preferenceOrder(key, out);
      assertThat(out).containsExactly(met.stream().mapToInt(Integer::intValue).toArray());
    }
  }

  @Test
  void keepsNodeIndexesAboveTheCompactRange() {
    int n = 70_000;
    int tableSize = 70_001;
    assertThat(MaglevRouter.isPrime(tableSize)).isTrue();
    MaglevRouter router = new MaglevRouter(Fleets.nodes(n), tableSize);
    int[] counts = router.slotCounts();
    assertThat(IntStream.of(counts).min().orElseThrow()).isEqualTo(1);
    assertThat(IntStream.of(counts).max().orElseThrow()).isEqualTo(2);
    assertThat(router.slotOwner(router.tableSize() - 1)).isBetween(0, n - 1);
    assertThat(IntStream.range(0, tableSize).map(router::slotOwner).max().orElseThrow())
        .isGreaterThan(Character.MAX_VALUE);
  }

  @Test
  void rejectsATableSizeThatIsNotAPrimeAboveTheNodeCount() {
    assertThatThrownBy(() -> new MaglevRouter(Fleets.nodes(5), 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maglev table size must be a prime larger than the node count 5 but was 4");
    assertThatThrownBy(() -> new MaglevRouter(Fleets.nodes(5), 5))
        .hasMessage("maglev table size must be a prime larger than the node count 5 but was 5");
    assertThatThrownBy(() -> new MaglevRouter(Fleets.nodes(5), 65536))
        .hasMessage("maglev table size must be a prime larger than the node count 5 but was 65536");
    assertThatThrownBy(() -> new MaglevRouter(Fleets.nodes(1), 1))
        .hasMessage("maglev table size must be a prime larger than the node count 1 but was 1");
    assertThatThrownBy(() -> new MaglevRouter(Fleets.nodes(1), 2_147_483_647))
        .hasMessage("maglev table size must be at most 16777216 but was 2147483647");
  }

  @Test
  void rejectsPermutationsOutsideTheTable() {
    List<Node> nodes = List.of(B0, B1);
    assertThatThrownBy(() -> new MaglevRouter(nodes, 7, new int[] {7, 0}, new int[] {1, 1}))
        .hasMessage("offset must be in [0, 7) but was 7");
    assertThatThrownBy(() -> new MaglevRouter(nodes, 7, new int[] {0, 0}, new int[] {1, 0}))
        .hasMessage("skip must be in [1, 6] but was 0");
  }

  @Test
  void findsPrimes() {
    int[] primes = IntStream.rangeClosed(0, 100).filter(MaglevRouter::isPrime).toArray();
    assertThat(primes)
        .containsExactly(
            2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83,
            89, 97);
    assertThat(MaglevRouter.isPrime(65537)).isTrue();
    assertThat(MaglevRouter.isPrime(2_147_483_647)).isTrue();
    assertThat(MaglevRouter.isPrime(65_537 * 3)).isFalse();
  }

  @Test
  void describesItsTableSize() {
    assertThat(new MaglevRouter(Fleets.nodes(2), 13).describe()).isEqualTo("maglev(M=13)");
    assertThat(Arrays.stream(new MaglevRouter(Fleets.nodes(2)).slotCounts()).sum())
        .isEqualTo(MaglevRouter.DEFAULT_TABLE_SIZE);
  }
}
