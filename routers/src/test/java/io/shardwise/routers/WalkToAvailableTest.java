package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Router;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Router#walkToAvailable} against the obvious walk of the full preference order, for
 * every router of the package, random keys and random sets of unavailable nodes.
 */
class WalkToAvailableTest {

  /** Which nodes are out for a key. */
  enum Outage {
    NONE,
    ALL,
    ALL_BUT_ONE,
    HALF,
    TENTH,
    /** The first k nodes of the key's own order, k cycling past every lazy-walk limit. */
    ORDER_PREFIX;

    private static final int[] PREFIXES = {0, 1, 2, 7, 8, 9, 15, 16, 17, 40};

    void apply(boolean[] out, int[] order, int keyIndex, SplittableRandom random) {
      int n = out.length;
      Arrays.fill(out, this == ALL || this == ALL_BUT_ONE);
      switch (this) {
        case ALL_BUT_ONE:
          out[random.nextInt(n)] = false;
          break;
        case HALF:
        case TENTH:
          double p = this == HALF ? 0.5 : 0.1;
          for (int i = 0; i < n; i++) {
            out[i] = random.nextDouble() < p;
          }
          break;
        case ORDER_PREFIX:
          int k = keyIndex % 3 == 0 ? random.nextInt(n + 1) : PREFIXES[keyIndex % PREFIXES.length];
          for (int a = 0; a < Math.min(k, n); a++) {
            out[order[a]] = true;
          }
          break;
        default:
      }
    }
  }

  static Stream<Arguments> routersAndSizes() {
    return Arrays.stream(Fleets.Kind.values())
        .flatMap(
            kind -> IntStream.of(1, 2, 5, 9, 37, 100, 300).mapToObj(n -> Arguments.of(kind, n)));
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("routersAndSizes")
  void walkFindsTheSameTargetAndSkippedNodesAsTheFullOrder(Fleets.Kind kind, int n) {
    Router router = kind.build(Fleets.nodes(n));
    SplittableRandom random = new SplittableRandom(17L * n + kind.ordinal());
    int[] order = new int[n];
    int[] walked = new int[n];
    boolean[] out = new boolean[n];
    IntPredicate available = i -> !out[i];
    long[] keys = Fleets.keyHashes(1000L + n, n > 100 ? 150 : 400);
    for (int k = 0; k < keys.length; k++) {
      router.preferenceOrder(keys[k], order);
      for (Outage outage : Outage.values()) {
        outage.apply(out, order, k, random);
        int expected = 0;
        while (expected < n && out[order[expected]]) {
          expected++;
        }
        Arrays.fill(walked, -1);
        int skipped = router.walkToAvailable(keys[k], available, walked);
        int length = Math.min(expected + 1, n);
        assertThat(skipped).as("%s, key %d", outage, k).isEqualTo(expected);
        assertThat(Arrays.copyOf(walked, length))
            .as("%s, key %d", outage, k)
            .isEqualTo(Arrays.copyOf(order, length));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void walkAllocatesNothingOnceWarm(Fleets.Kind kind) {
    int n = 300;
    Router router = kind.build(Fleets.nodes(n));
    SplittableRandom random = new SplittableRandom(5);
    long[] keys = Fleets.keyHashes(99, 64);
    boolean[][] outs = new boolean[keys.length][n];
    int[][] orders = new int[keys.length][n];
    for (int k = 0; k < keys.length; k++) {
      router.preferenceOrder(keys[k], orders[k]);
      Outage.values()[k % Outage.values().length].apply(outs[k], orders[k], k, random);
    }
    int[] walked = new int[n];
    int[] index = new int[1];
    IntPredicate available = i -> !outs[index[0]][i];
    long[] sum = new long[1];
    long least =
        Fleets.leastBytesAllocated(
            20,
            () -> {
              for (int k = 0; k < keys.length; k++) {
                index[0] = k;
                sum[0] += router.walkToAvailable(keys[k], available, walked);
              }
            });
    assertThat(least).as("bytes allocated by %d walks (sum %d)", keys.length, sum[0]).isZero();
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void walkNeedsABufferOfOneEntryPerNode(Fleets.Kind kind) {
    Router router = kind.build(Fleets.nodes(9));
    assertThatThrownBy(() -> router.walkToAvailable(1L, i -> true, new int[8]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(router.walkToAvailable(1L, i -> true, new int[20])).isZero();
  }
}
