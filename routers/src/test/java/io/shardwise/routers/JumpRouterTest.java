package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.hash.Hashing;
import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JumpRouterTest {

  @Test
  void agreesWithGuavasGoldenValue() {
    assertThat(Hashing.consistentHash(1, 100)).isEqualTo(55);
    assertThat(JumpRouter.jump(1, 100)).isEqualTo(55);
    assertThat(new JumpRouter(Fleets.nodes(100)).primary(1L)).isEqualTo(55);
  }

  @Test
  void agreesWithGuavaForRandomInputsAndBucketCounts() {
    SplittableRandom random = new SplittableRandom(2014);
    for (int i = 0; i < 300_000; i++) {
      long input = random.nextLong();
      int buckets = 1 + random.nextInt(2_000);
      assertThat(JumpRouter.jump(input, buckets))
          .as("input %d, %d buckets", input, buckets)
          .isEqualTo(Hashing.consistentHash(input, buckets));
    }
    for (int buckets = 1; buckets <= 2_000; buckets++) {
      for (long input : new long[] {0, 1, -1, Long.MIN_VALUE, Long.MAX_VALUE}) {
        assertThat(JumpRouter.jump(input, buckets))
            .isEqualTo(Hashing.consistentHash(input, buckets));
      }
    }
  }

  @Test
  void agreesWithGuavaForHugeBucketCounts() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 20_000; i++) {
      long input = random.nextLong();
      int buckets = Integer.MAX_VALUE - random.nextInt(1_000);
      assertThat(JumpRouter.jump(input, buckets)).isEqualTo(Hashing.consistentHash(input, buckets));
    }
  }

  @Test
  void bothFormsOfTheLoopAgreeWithGuavaUpToTheReciprocalLimit() {
    SplittableRandom random = new SplittableRandom(22);
    int limit = JumpRouter.RECIPROCAL_LIMIT;
    for (int i = 0; i < 200_000; i++) {
      long input = random.nextLong();
      int buckets = i % 2 == 0 ? 1 + random.nextInt(limit) : limit - random.nextInt(64);
      int guava = Hashing.consistentHash(input, buckets);
      assertThat(JumpRouter.jumpByReciprocal(input, buckets)).as("input %d, %d buckets", input, buckets).isEqualTo(guava);
      assertThat(JumpRouter.jumpByDivision(input, buckets)).as("input %d, %d buckets", input, buckets).isEqualTo(guava);
    }
    for (int buckets = limit - 5; buckets <= limit + 5; buckets++) {
      long input = random.nextLong();
      assertThat(JumpRouter.jump(input, buckets)).isEqualTo(Hashing.consistentHash(input, buckets));
    }
  }

  @Test
  void agreesWithGuavaWhenTheGeneratorReachesItsLargestOutput() {
    // The input whose first generator state is -1, so (int) (state >>> 33) + 1 overflows.
    long multiplier = 2862933555777941757L;
    long inverse = multiplier;
    for (int i = 0; i < 6; i++) {
      inverse *= 2 - multiplier * inverse;
    }
    long input = (-1L - 1) * inverse;
    assertThat(multiplier * input + 1).isEqualTo(-1L);
    for (int buckets = 1; buckets <= 1_000; buckets++) {
      assertThat(Hashing.consistentHash(input, buckets)).isZero();
      assertThat(JumpRouter.jump(input, buckets)).isZero();
    }
  }

  /** The paper's form of the step, {@code (b + 1) * (2^31 / m)}: two roundings instead of one. */
  private static int jumpWithPapersRounding(long key, int buckets) {
    long state = key;
    int candidate = 0;
    while (true) {
      state = 2862933555777941757L * state + 1;
      int m = (int) (state >>> 33) + 1;
      int next = (int) ((candidate + 1) * (0x1.0p31 / m));
      if (next >= 0 && next < buckets) {
        candidate = next;
      } else {
        return candidate;
      }
    }
  }

  @Test
  void agreesWithGuavaWhereTheOrderOfFloatingPointOperationsMatters() {
    // Built backwards through the generator: candidate 48 after the first step, then
    // m = 49 * 2^24, where 49 * 2^31 / m is exactly 128 but 49 * (2^31 / m) falls just short.
    long input = -5903366890582180766L;
    assertThat(Hashing.consistentHash(input, 129)).isEqualTo(128);
    assertThat(jumpWithPapersRounding(input, 129)).isEqualTo(127);
    assertThat(JumpRouter.jump(input, 129)).isEqualTo(128);
    assertThat(JumpRouter.jumpByReciprocal(input, 129)).isEqualTo(128);
    assertThat(JumpRouter.jump(input, 1_000)).isEqualTo(Hashing.consistentHash(input, 1_000));
  }

  @Test
  void stringKeysLandWhereGuavaPlacesTheirMurmur3Hash() {
    for (int n : new int[] {1, 3, 10, 100, 1_000}) {
      Router router = new JumpRouter(Fleets.nodes(n));
      for (int i = 0; i < 2_000; i++) {
        String key = "session:" + i + (i % 3 == 0 ? ":\u00fc\u20ac" : "");
        int guava =
            Hashing.consistentHash(
                Hashing.murmur3_128().hashString(key, StandardCharsets.UTF_8), n);
        assertThat(router.primary(key)).as(key).isEqualTo(guava);
      }
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 5, 10, 50, 100, 1_000})
  void growingByOneNodeMovesAboutOneOverNPlusOneOfTheKeysAllOntoTheNewNode(int n) {
    Router before = new JumpRouter(Fleets.nodes(n));
    Router after = new JumpRouter(Fleets.nodes(n + 1));
    long[] keys = Fleets.keyHashes(n, 100_000);
    int moved = 0;
    for (long key : keys) {
      int was = before.primary(key);
      int is = after.primary(key);
      if (is != was) {
        moved++;
        assertThat(is).isEqualTo(n);
      }
    }
    double p = 1.0 / (n + 1);
    Fleets.assertBinomial("keys moved", moved, keys.length, p);
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 10, 50, 100})
  void eachNodeGetsAboutOneNthOfTheKeys(int n) {
    long[] keys = Fleets.keyHashes(300 + n, 200_000);
    int[] counts = Fleets.counts(new JumpRouter(Fleets.nodes(n)), keys);
    double p = 1.0 / n;
    for (int count : counts) {
      Fleets.assertBinomial("keys of a node", count, keys.length, p);
    }
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 5, 17, 40, 100})
  void failoverChainFollowsTheDocumentedRule(int n) {
    Router router = new JumpRouter(Fleets.nodes(n));
    for (long key : Fleets.keyHashes(n, 2_000)) {
      List<Integer> left = IntStream.range(0, n).boxed().collect(Collectors.toList());
      int[] expected = new int[n];
      expected[0] = left.remove(Hashing.consistentHash(key, n));
      for (int a = 1; a < n; a++) {
        long stepHash = Murmur3.fmix64(key + a * 0x9E3779B97F4A7C15L);
        expected[a] = left.remove(Hashing.consistentHash(stepHash, n - a));
      }
      int[] out = new int[n];
      router.preferenceOrder(key, out);
      assertThat(out).isEqualTo(expected);
    }
  }

  @Test
  void keysOfADeadNodeFailOverEvenlyToTheOthers() {
    int n = 10;
    int dead = 3;
    Router router = new JumpRouter(Fleets.nodes(n));
    int[] second = new int[n];
    int[] order = new int[2];
    int total = 0;
    for (long key : Fleets.keyHashes(5, 400_000)) {
      if (router.primary(key) == dead) {
        router.preferenceOrder(key, order);
        second[order[1]]++;
        total++;
      }
    }
    assertThat(second[dead]).isZero();
    double p = 1.0 / (n - 1);
    for (int i = 0; i < n; i++) {
      if (i != dead) {
        Fleets.assertBinomial("keys failing over to node " + i, second[i], total, p);
      }
    }
  }

  @Test
  void remainingNodesSelectsByRankAndForgetsRemovedOnes() {
    int[] remaining = new int[11];
    JumpRouter.RemainingNodes.fill(remaining, 10);
    JumpRouter.RemainingNodes.remove(remaining, 10, 0);
    JumpRouter.RemainingNodes.remove(remaining, 10, 4);
    JumpRouter.RemainingNodes.remove(remaining, 10, 9);
    int[] expected = {1, 2, 3, 5, 6, 7, 8};
    for (int r = 0; r < expected.length; r++) {
      assertThat(JumpRouter.RemainingNodes.at(remaining, 10, r)).isEqualTo(expected[r]);
      assertThat(JumpRouter.unchosenAt(new int[] {9, 0, 4}, 3, r)).isEqualTo(expected[r]);
    }
  }

  @Test
  void rejectsWeightsNamingTheNodeAndTheWeight() {
    List<Node> nodes = new ArrayList<>(Fleets.nodes(3));
    nodes.set(1, Node.named("cache-b", "127.0.0.9", 11211, 3));
    assertThatThrownBy(() -> new JumpRouter(nodes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jump")
        .hasMessageContaining("'cache-b' has weight 3");
  }
}
