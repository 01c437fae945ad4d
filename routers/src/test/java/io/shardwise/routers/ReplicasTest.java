package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Router;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Locale;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Router#replicas}: the first N nodes of the preference order, for every router of the
 * package; HRW's N highest scores are checked in {@code RendezvousRouterTest}.
 */
class ReplicasTest {

  static Stream<Arguments> routersAndSizes() {
    return Arrays.stream(Fleets.Kind.values())
        .flatMap(kind -> IntStream.of(1, 2, 5, 37, 100).mapToObj(n -> Arguments.of(kind, n)));
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("routersAndSizes")
  void replicasAreDistinctNodesThatPrefixThePreferenceOrderFromThePrimary(Fleets.Kind kind, int size) {
    Router router = kind.build(Fleets.nodes(size));
    // Counts on both sides of the selection, scan and lazy-walk limits, and more than the nodes.
    int[] counts = {1, 2, 3, 8, 9, 16, 17, 36, size - 1, size, size + 3};
    int[] order = new int[size];
    int[] out = new int[size + 8];
    int[] longer = new int[size + 8];
    for (long key : Fleets.keyHashes(77 + size, 300)) {
      router.preferenceOrder(key, order);
      for (int n : counts) {
        if (n < 1) {
          continue;
        }
        int expected = Math.min(n, size);
        Arrays.fill(out, -1);
        assertThat(router.replicas(key, n, out)).isEqualTo(expected);
        int[] replicas = Arrays.copyOf(out, expected);
        assertThat(replicas[0]).isEqualTo(router.primary(key));
        assertThat(replicas).doesNotHaveDuplicates();
        assertThat(replicas).as("n=%d", n).isEqualTo(Arrays.copyOf(order, expected));
        assertThat(Arrays.copyOfRange(out, expected, out.length)).as("past the replicas").containsOnly(-1);
        router.replicas(key, n + 1, longer);
        assertThat(Arrays.copyOf(longer, expected)).as("n=%d is a prefix of n+1", n).isEqualTo(replicas);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void replicasAllocateNothingOnceWarm(Fleets.Kind kind) {
    int size = 300;
    Router router = kind.build(Fleets.nodes(size));
    long[] keys = Fleets.keyHashes(98, 64);
    int[] counts = {1, 2, 3, 9, 17, size};
    int[] out = new int[size];
    long[] sum = new long[1];
    long least =
        Fleets.leastBytesAllocated(
            20,
            () -> {
              for (int k = 0; k < keys.length; k++) {
                sum[0] += router.replicas(keys[k], counts[k % counts.length], out);
              }
            });
    assertThat(least).as("bytes allocated by %d lookups (sum %d)", keys.length, sum[0]).isZero();
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void rejectsFewerThanOneReplicaAndABufferShorterThanTheReplicas(Fleets.Kind kind) {
    Router router = kind.build(Fleets.nodes(5));
    assertThatThrownBy(() -> router.replicas(1L, 0, new int[5]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be >= 1 but was 0");
    assertThatThrownBy(() -> router.replicas(1L, -2, new int[5]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be >= 1 but was -2");
    assertThatThrownBy(() -> router.replicas(1L, 3, new int[2]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> router.replicas(1L, 7, new int[4]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(router.replicas(1L, 7, new int[5])).isEqualTo(5);
    assertThat(router.replicas(1L, 2, new int[2])).isEqualTo(2);
  }

  /**
   * Routers whose order for a key keeps the old nodes' relative order when a node joins: HRW's
   * scores and multi-probe's probe distances of the old nodes do not change.
   */
  private static final EnumSet<Fleets.Kind> INSERTING =
      EnumSet.of(Fleets.Kind.HRW, Fleets.Kind.HRW_WEIGHTED, Fleets.Kind.MULTIPROBE);

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void addingASixthServerChangesTheReplicaSetsOfAFractionOfKeys(Fleets.Kind kind) {
    // The new server is appended, so the five old ones keep their indexes (jump needs that).
    Router five = kind.build(Fleets.nodes(5));
    Router six = kind.build(Fleets.nodes(6));
    long[] keys = Fleets.keyHashes(2024, 100_000);
    StringBuilder line = new StringBuilder();
    for (int n = 1; n <= 3; n++) {
      int[] before = new int[n];
      int[] after = new int[n];
      int changed = 0;
      for (long key : keys) {
        five.replicas(key, n, before);
        six.replicas(key, n, after);
        Arrays.sort(before);
        Arrays.sort(after);
        if (!Arrays.equals(before, after)) {
          changed++;
        }
      }
      double fraction = (double) changed / keys.length;
      line.append(String.format(Locale.ROOT, "  N=%d %6.2f%%", n, 100 * fraction));
      if (kind == Fleets.Kind.HRW) {
        // The set changes exactly when the new server is among a key's N best of 6.
        Fleets.assertBinomial("keys with a new replica set, N=" + n, changed, keys.length, n / 6.0);
      }
    }
    System.out.printf(Locale.ROOT, "replica sets changed, 5 -> 6 servers, %-16s%s%n", kind, line);
    if (INSERTING.contains(kind)) {
      int[] old = new int[5];
      int[] full = new int[6];
      for (long key : Arrays.copyOf(keys, 5_000)) {
        five.preferenceOrder(key, old);
        six.preferenceOrder(key, full);
        assertThat(IntStream.of(full).filter(i -> i != 5).toArray())
            .as("the new server only joins the order")
            .isEqualTo(old);
      }
    }
  }
}
