package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PointCountTest {

  @Test
  void libmemcachedAndTwemproxyFloatRoundingGive156PointsForSomeServerCounts() {
    List<Integer> short156 = new ArrayList<>();
    for (int n = 1; n <= 100; n++) {
      int digests = KetamaCompatibility.LIBMEMCACHED.digests(1, n, n, true);
      assertThat(digests).isBetween(39, 40);
      assertThat(KetamaCompatibility.TWEMPROXY.digests(1, n, n, true)).isEqualTo(digests);
      if (digests == 39) {
        short156.add(n);
      }
    }
    System.out.println("libmemcached 156-point server counts up to 100: " + short156);
    assertThat(short156).contains(25, 47, 50, 55, 61, 71, 94, 100).doesNotContain(1, 2, 3, 4, 5, 10);
  }

  @Test
  void libketamaRoundsTheDoubleProductToFloat() {
    List<Integer> short156 = new ArrayList<>();
    for (int n = 1; n <= 1000; n++) {
      int digests = KetamaCompatibility.LIBKETAMA.digests(1, n, n, false);
      assertThat(digests).isBetween(39, 40);
      if (digests == 39) {
        short156.add(n);
      }
    }
    System.out.println("libketama 156-point server counts up to 1000: " + short156);
  }

  @Test
  void spymemcachedPlainLocatorAlwaysGives160Points() {
    IntStream.rangeClosed(1, 200)
        .forEach(n -> assertThat(KetamaCompatibility.SPYMEMCACHED.digests(1, n, n, false)).isEqualTo(40));
    assertThat(KetamaCompatibility.SPYMEMCACHED.digests(1, 25, 25, true)).isEqualTo(39);
  }

  @Test
  void routerReportsThePointsEachServerGot() {
    List<Node> nodes = IntStream.range(0, 25).mapToObj(i -> Node.of("127.0.0.1", 11211 + i)).toList();
    assertThat(KetamaRouter.create(nodes, KetamaCompatibility.LIBMEMCACHED).pointsOf(0)).isEqualTo(156);
    assertThat(KetamaRouter.create(nodes, KetamaCompatibility.SPYMEMCACHED).pointsOf(0)).isEqualTo(160);
    assertThat(KetamaRouter.spymemcachedWeighted(nodes).pointsOf(0)).isEqualTo(156);
  }
}
