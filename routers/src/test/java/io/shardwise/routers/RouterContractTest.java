package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** What every router of the package promises through the {@link Router} SPI. */
class RouterContractTest {

  static Stream<Arguments> routersAndSizes() {
    return Arrays.stream(Fleets.Kind.values())
        .flatMap(
            kind -> IntStream.of(1, 2, 5, 37, 100).mapToObj(n -> Arguments.of(kind, n)));
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("routersAndSizes")
  void preferenceOrderIsAPermutationWithThePrimaryFirst(Fleets.Kind kind, int n) {
    Router router = kind.build(Fleets.nodes(n));
    int[] expected = IntStream.range(0, n).toArray();
    for (long key : Fleets.keyHashes(n, 2_000)) {
      int[] out = new int[n];
      assertThat(router.preferenceOrder(key, out)).isEqualTo(n);
      assertThat(out[0]).isEqualTo(router.primary(key));
      int[] sorted = out.clone();
      Arrays.sort(sorted);
      assertThat(sorted).isEqualTo(expected);
    }
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("routersAndSizes")
  void everyShorterPreferenceOrderIsAPrefixOfTheFullOne(Fleets.Kind kind, int n) {
    Router router = kind.build(Fleets.nodes(n));
    // Lengths on both sides of the selection and scan limits, and longer than n.
    int[] lengths = {0, 1, 2, 3, 8, 9, 16, 17, 36, n - 1, n, n + 5};
    for (long key : Fleets.keyHashes(31 + n, 300)) {
      int[] full = new int[n];
      router.preferenceOrder(key, full);
      for (int length : lengths) {
        int[] out = new int[length];
        int written = router.preferenceOrder(key, out);
        int expected = Math.min(length, n);
        assertThat(written).isEqualTo(expected);
        assertThat(Arrays.copyOf(out, written)).isEqualTo(Arrays.copyOf(full, expected));
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void stringAndByteKeysRouteByTheirMurmur3Hash(Fleets.Kind kind) {
    Router router = kind.build(Fleets.nodes(23));
    assertThat(router.hasher()).isSameAs(Murmur3.INSTANCE);
    for (int i = 0; i < 1_000; i++) {
      String key = "user:" + i + ":\u00e9t\u00e9";
      long hash = Murmur3.INSTANCE.hash(key);
      int primary = router.primary(hash);
      assertThat(router.primary(key)).isEqualTo(primary);
      assertThat(router.primary(key.getBytes(StandardCharsets.UTF_8))).isEqualTo(primary);
      assertThat(router.primaryNode(key)).isEqualTo(router.nodes().get(primary));
      assertThat(router.preferenceOrder(key)[0]).isEqualTo(primary);
    }
  }

  private static List<String> names(List<Node> nodes) {
    List<String> names = new ArrayList<>();
    for (Node node : nodes) {
      names.add(node.name());
    }
    return names;
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void nodesAreAnImmutableCopyInListOrder(Fleets.Kind kind) {
    List<Node> nodes = new ArrayList<>(Fleets.nodes(7));
    Router router = kind.build(nodes);
    nodes.clear();
    assertThat(router.nodes()).extracting(Node::name).isEqualTo(names(Fleets.nodes(7)));
    assertThat(router.size()).isEqualTo(7);
    assertThatThrownBy(() -> router.nodes().clear())
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void rejectsAnEmptyListAndAServerNamedTwice(Fleets.Kind kind) {
    assertThatThrownBy(() -> kind.build(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one server");
    List<Node> twice = List.of(Fleets.node(0), Fleets.node(1), Fleets.node(0));
    assertThatThrownBy(() -> kind.build(twice))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("127.0.0.1:11211");
  }

  @ParameterizedTest
  @EnumSource(Fleets.Kind.class)
  void describesItselfByAlgorithmAndParameters(Fleets.Kind kind) {
    String expected;
    switch (kind) {
      case HRW:
      case HRW_WEIGHTED:
        expected = "hrw";
        break;
      case JUMP:
        expected = "jump";
        break;
      case MULTIPROBE:
        expected = "multiprobe(K=21)";
        break;
      case MAGLEV:
      case MAGLEV_WEIGHTED:
        expected = "maglev(M=65537)";
        break;
      default:
        expected = "modulo";
    }
    assertThat(kind.build(Fleets.nodes(3)).describe()).isEqualTo(expected);
  }
}
