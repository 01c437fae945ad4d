package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ring's preference order against a walk that remembers the owners it met in a set, and
 * {@link Router#walkToAvailable} against that order walked to its first available node.
 */
class ContinuumWalkTest {

  enum Ring {
    RING_160(nodes -> HashRingRouter.create(nodes)),
    RING_1(nodes -> HashRingRouter.create(nodes, 1)),
    LIBKETAMA(nodes -> KetamaRouter.create(nodes)),
    /** Node 0 is too light to earn a digest: it owns no point and ends every order. */
    LIBKETAMA_POINTLESS(nodes -> KetamaRouter.create(withLightFirstNode(nodes))),
    SPYMEMCACHED(nodes -> KetamaRouter.create(nodes, KetamaCompatibility.SPYMEMCACHED));

    private final Function<List<Node>, Router> factory;

    Ring(Function<List<Node>, Router> factory) {
      this.factory = factory;
    }

    boolean ketama() {
      return this != RING_160 && this != RING_1;
    }
  }

  private static List<Node> withLightFirstNode(List<Node> nodes) {
    List<Node> light = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      light.add(i == 0 || nodes.size() == 1 ? nodes.get(i) : nodes.get(i).withWeight(1000));
    }
    return light;
  }

  static Stream<Arguments> ringsAndSizes() {
    return Arrays.stream(Ring.values())
        .flatMap(ring -> IntStream.of(1, 2, 5, 37, 100).mapToObj(n -> Arguments.of(ring, n)));
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("ringsAndSizes")
  void walkMatchesAWalkThatRemembersTheOwnersInASet(Ring ring, int n) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(Node.of("10.1." + (i / 250) + "." + (i % 250), 11211));
    }
    Router router = ring.factory.apply(nodes);
    Continuum continuum = ContinuumTest.continuumOf(router);
    SplittableRandom random = new SplittableRandom(31L * n + ring.ordinal());
    int[] order = new int[n];
    int[] walked = new int[n];
    boolean[] out = new boolean[n];
    for (int k = 0; k < 300; k++) {
      long hash = ring.ketama() ? random.nextLong() >>> 32 : random.nextLong();
      int[] expected = reference(continuum, ring.ketama() ? hash << 32 : hash, n);
      assertThat(router.preferenceOrder(hash, order)).isEqualTo(n);
      assertThat(order).isEqualTo(expected);
      // Out: none, all, all but one, about half, a tenth, or the first k of the order.
      double p = new double[] {0, 1, 1, 0.5, 0.1, 0}[k % 6];
      for (int i = 0; i < n; i++) {
        out[i] = random.nextDouble() < p;
      }
      if (k % 6 == 2) {
        out[random.nextInt(n)] = false;
      } else if (k % 6 == 5) {
        int prefix = random.nextInt(n + 1);
        for (int a = 0; a < prefix; a++) {
          out[order[a]] = true;
        }
      }
      int skipped = 0;
      while (skipped < n && out[order[skipped]]) {
        skipped++;
      }
      int length = Math.min(skipped + 1, n);
      assertThat(router.walkToAvailable(hash, i -> !out[i], walked)).isEqualTo(skipped);
      assertThat(Arrays.copyOf(walked, length)).isEqualTo(Arrays.copyOf(order, length));
    }
  }

  /** Clockwise from the position's successor, each owner once, then the nodes owning no point. */
  private static int[] reference(Continuum continuum, long position, int n) {
    LinkedHashSet<Integer> met = new LinkedHashSet<>();
    int start = continuum.successor(position);
    for (int step = 0; step < continuum.size(); step++) {
      met.add(continuum.owner((start + step) % continuum.size()));
    }
    for (int node = 0; node < n; node++) {
      met.add(node);
    }
    return met.stream().mapToInt(Integer::intValue).toArray();
  }
}
