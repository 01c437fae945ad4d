package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class KetamaRouterTest {

  @Test
  void serverStringsFollowEachMode() {
    List<Node> nodes =
        List.of(
            Node.of("127.0.0.1", 11211),
            Node.of("127.0.0.2", 22122),
            Node.named("cache-c", "127.0.0.3", 11211, 1));
    KetamaRouter libketama = KetamaRouter.create(nodes);
    KetamaRouter libmemcached = KetamaRouter.create(nodes, KetamaCompatibility.LIBMEMCACHED);
    KetamaRouter twemproxy = KetamaRouter.create(nodes, KetamaCompatibility.TWEMPROXY);
    KetamaRouter spy = KetamaRouter.create(nodes, KetamaCompatibility.SPYMEMCACHED);
    assertThat(libketama.serverString(0)).isEqualTo("127.0.0.1:11211");
    assertThat(libmemcached.serverString(0)).isEqualTo("127.0.0.1");
    assertThat(libmemcached.serverString(1)).isEqualTo("127.0.0.2:22122");
    assertThat(libmemcached.serverString(2)).isEqualTo("127.0.0.3");
    assertThat(twemproxy.serverString(0)).isEqualTo("127.0.0.1");
    assertThat(twemproxy.serverString(2)).isEqualTo("cache-c");
    assertThat(spy.serverString(1)).isEqualTo("127.0.0.2:22122");
    assertThat(libketama.describe()).isEqualTo("ketama(libketama)");
    assertThat(KetamaRouter.create(nodes, "spymemcached-weighted").describe())
        .isEqualTo("ketama(spymemcached-weighted)");
  }

  @ParameterizedTest
  @EnumSource(KetamaCompatibility.class)
  void removingAServerMovesOnlyItsKeysToTheNextServerOnTheContinuum(KetamaCompatibility mode) {
    // Five servers keep 160 points each when one is removed (4 -> 4 also 40 digests), so only
    // the removed server's keys move. libketama rounds 1/5 and 1/4 to 40 digests too.
    List<Node> all = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      all.add(Node.of("127.0.0.1", 11211 + i));
    }
    List<Node> rest = new ArrayList<>(all);
    rest.remove(2);
    KetamaRouter before = KetamaRouter.create(all, mode);
    KetamaRouter after = KetamaRouter.create(rest, mode);
    SplittableRandom random = new SplittableRandom(9);
    int[] order = new int[2];
    int moved = 0;
    for (int i = 0; i < 50_000; i++) {
      String key = "user:" + random.nextLong();
      Node was = before.primaryNode(key);
      Node now = after.primaryNode(key);
      if (!was.equals(now)) {
        moved++;
        assertThat(was).isEqualTo(all.get(2));
        before.preferenceOrder(before.hasher().hash(key), order);
        assertThat(now).isEqualTo(all.get(order[1]));
      }
    }
    assertThat(moved).isBetween(5_000, 15_000);
  }

  @Test
  void everyModeGivesEveryServerAboutItsWeightShare() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      nodes.add(Node.of("127.0.0.1", 11211 + i, 1 + i % 2));
    }
    for (KetamaCompatibility mode : KetamaCompatibility.values()) {
      double[] share = KetamaRouter.create(nodes, mode).ownership();
      for (int i = 0; i < 10; i++) {
        // With weights, every mode but plain spymemcached uses them.
        double weight = mode == KetamaCompatibility.SPYMEMCACHED ? 1.0 / 15 * (1 + i % 2) : (1 + i % 2) / 15.0;
        assertThat(share[i]).as("%s node %d", mode, i).isBetween(weight * 0.6, weight * 1.4);
      }
    }
  }

  @Test
  void aServerTooLightForADigestOwnsNoPointButStaysInThePreferenceOrder() {
    List<Node> nodes = List.of(Node.of("a", 1, 1000), Node.of("b", 1, 1000), Node.of("c", 1, 1));
    KetamaRouter router = KetamaRouter.create(nodes);
    assertThat(router.pointsOf(2)).isZero();
    assertThat(router.ownership()[2]).isZero();
    assertThat(router.preferenceOrder("any")).hasSize(3).endsWith(2);
  }

  @Test
  void rejectsUnknownModes() {
    List<Node> nodes = List.of(Node.of("a", 1));
    assertThatThrownBy(() -> KetamaRouter.create(nodes, "memcachedb"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unknown ketama compatibility mode 'memcachedb'; expected one of libketama, libmemcached, twemproxy, spymemcached");
    assertThat(KetamaCompatibility.of(" TwemProxy ")).isEqualTo(KetamaCompatibility.TWEMPROXY);
  }
}
