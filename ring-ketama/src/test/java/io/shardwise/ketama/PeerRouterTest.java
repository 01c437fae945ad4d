package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PeerRouterTest {

  @Test
  void twemproxyModulaFollowsTwemproxysNameOrderNotTheList() {
    // conf_server_name_cmp: shorter names first, then bytes: b, cc, zeta, alpha.
    List<Node> nodes = ServerList.parse("zeta=127.0.0.1:11211,b=127.0.0.1:11212,alpha=127.0.0.1:11213,cc=127.0.0.1:11214");
    PeerRouter router = PeerRouter.create(nodes, "twemproxy:md5:modula");
    assertThat(new int[] {router.primary(0), router.primary(1), router.primary(2), router.primary(3)})
        .containsExactly(1, 3, 0, 2);
    // Unnamed servers are named host, or host:port when the port is not 11211; 127.0.0.9, the
    // shorter name, comes before 127.0.0.10, the reverse of byte order.
    List<Node> unnamed = ServerList.parse("127.0.0.10:11211,127.0.0.9:11211,127.0.0.9:22122:2");
    PeerRouter weighted = PeerRouter.create(unnamed, "twemproxy:md5:modula");
    assertThat(new int[] {weighted.primary(0), weighted.primary(1), weighted.primary(2), weighted.primary(3)})
        .containsExactly(1, 0, 2, 2);
  }

  @Test
  void xmemcachedAndLibmemcachedModuloKeepTheListOrder() {
    List<Node> nodes = ServerList.parse("127.0.0.10:11211,127.0.0.9:11211:2");
    PeerRouter x = PeerRouter.create(nodes, "xmemcached:array:native_hash");
    assertThat(new int[] {x.primary(0), x.primary(1), x.primary(2)}).containsExactly(0, 1, 1);
    assertThatThrownBy(() -> PeerRouter.create(nodes, "libmemcached:default:modula"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("127.0.0.9:11211:2 has weight 2");
  }

  @Test
  void refusesWhatThePeerRefusesOrCannotBuild() {
    assertThat(PeerRouter.create(
            ServerList.parse("cache=127.0.0.1:11211,127.0.0.1:11212,cache2=127.0.0.1:11213"), "twemproxy:md5:ketama")
        .size()).isEqualTo(3);
    assertThatThrownBy(() -> PeerRouter.create(
            ServerList.parse("127.0.0.1:11211,127.0.0.1=127.0.0.2:11211"), "twemproxy:md5:ketama"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("twemproxy refuses two servers with the same name")
        .hasMessageContaining("'127.0.0.1'");
    assertThatThrownBy(() -> PeerRouter.create(ServerList.parse("127.0.0.1:6379:200000"), "jedis:sharded:murmur_hash"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("32000000 points, more than 16000000");
    assertThatThrownBy(() -> PeerRouter.create(ServerList.parse("127.0.0.1:11211:2"), "libmemcached:md5:consistent"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has weight 2");
  }

  @Test
  void walkToAvailableIsThePreferenceOrdersPrefix() {
    List<Node> nodes = ServerList.parse("127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:11213,127.0.0.1:11214,127.0.0.1:11215");
    SplittableRandom random = new SplittableRandom(7);
    for (String mode : List.of("twemproxy:crc32:ketama", "twemproxy:fnv1a_64:modula", "jedis:sharded:murmur_hash",
        "spymemcached:consistent:fnv1_64_hash:spymemcached", "xmemcached:ketama:ketama_hash")) {
      PeerRouter router = PeerRouter.create(nodes, mode);
      for (int k = 0; k < 2_000; k++) {
        long hash = router.hasher().hash("key:" + random.nextLong());
        int[] order = new int[nodes.size()];
        assertThat(router.preferenceOrder(hash, order)).isEqualTo(nodes.size());
        assertThat(order[0]).isEqualTo(router.primary(hash));
        assertThat(order).as(mode).doesNotHaveDuplicates();
        boolean[] out = new boolean[nodes.size()];
        for (int i = 0; i < out.length; i++) {
          out[i] = random.nextInt(3) == 0;
        }
        int[] walked = new int[nodes.size()];
        int skipped = router.walkToAvailable(hash, i -> !out[i], walked);
        int expected = 0;
        while (expected < order.length && out[order[expected]]) {
          expected++;
        }
        assertThat(skipped).as(mode).isEqualTo(expected);
        for (int i = 0; i < Math.min(skipped + 1, nodes.size()); i++) {
          assertThat(walked[i]).isEqualTo(order[i]);
        }
      }
    }
  }
}
