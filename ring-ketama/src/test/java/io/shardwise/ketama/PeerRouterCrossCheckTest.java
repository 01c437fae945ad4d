package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.code.yanf4j.core.Session;
import io.shardwise.routing.Node;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import net.rubyeye.xmemcached.HashAlgorithm;
import net.rubyeye.xmemcached.impl.ArrayMemcachedSessionLocator;
import net.rubyeye.xmemcached.impl.KetamaMemcachedSessionLocator;
import net.spy.memcached.ArrayModNodeLocator;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.util.ShardInfo;
import redis.clients.jedis.util.Sharded;

/**
 * Runs the peers' own locators (spymemcached 2.12.3, Xmemcached 2.4.8, Jedis 3.10.0) beside
 * {@link PeerRouter} on random keys, ASCII and not, and requires the same server for every key.
 */
@SuppressWarnings("deprecation") // Jedis 3 deprecates Sharded and ShardInfo
class PeerRouterCrossCheckTest {

  private static final int KEYS = 5_000;

  private static String randomKey(SplittableRandom random) {
    switch (random.nextInt(4)) {
      case 0:
        return "user:" + random.nextLong();
      case 1:
        return "k" + random.nextInt(1000);
      case 2:
        return "caf\u00e9:" + random.nextInt() + ":\u00fc\u4e2d"; // non-ASCII: chars and bytes differ
      default:
        StringBuilder sb = new StringBuilder();
        int len = 1 + random.nextInt(60);
        for (int i = 0; i < len; i++) {
          sb.append((char) (0x21 + random.nextInt(0x7e - 0x21)));
        }
        return sb.toString();
    }
  }

  /**
   * {@code n} servers on 127.0.0.1, with ports of 1 to 5 digits. One address only: the modes that
   * hash a server's reverse-DNS name look it up, and 127.0.0.1 is answered from the hosts file,
   * where another loopback address would ask the DNS server (seconds when it does not answer).
   */
  private static List<Node> fleet(int n, boolean weights) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(Node.of("127.0.0.1", 1 + i * 4_999, weights ? 1 + i % 4 : 1));
    }
    return nodes;
  }

  private static void assertSamePrimaries(PeerRouter router, Function<String, InetSocketAddress> peer, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < KEYS; i++) {
      String key = randomKey(random);
      InetSocketAddress expected = peer.apply(key);
      Node actual = router.primaryNode(key);
      assertThat(new InetSocketAddress(actual.host(), actual.port())).as("%s %s", router, key).isEqualTo(expected);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DefaultHashAlgorithm.class)
  void spymemcachedArrayModLocator(DefaultHashAlgorithm alg) {
    for (int n : new int[] {1, 2, 5, 13}) {
      List<Node> nodes = fleet(n, false);
      NodeLocator spy = new ArrayModNodeLocator(memcachedNodes(nodes), alg);
      PeerRouter router = PeerRouter.create(nodes, "spymemcached:array_mod:" + alg.name());
      assertSamePrimaries(router, k -> (InetSocketAddress) spy.getPrimary(k).getSocketAddress(), n);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DefaultHashAlgorithm.class)
  void spymemcachedKetamaLocatorBothFormats(DefaultHashAlgorithm alg) {
    for (KetamaNodeKeyFormatter.Format format : KetamaNodeKeyFormatter.Format.values()) {
      for (int n : new int[] {1, 3, 10}) {
        List<Node> nodes = fleet(n, false);
        nodes.add(Node.of("localhost", 11211)); // host name and the default port
        NodeLocator spy = new KetamaNodeLocator(memcachedNodes(nodes), alg, format, new HashMap<>());
        PeerRouter router = PeerRouter.create(nodes,
            "spymemcached:consistent:" + alg.name() + ":" + format.name());
        assertSamePrimaries(router, k -> (InetSocketAddress) spy.getPrimary(k).getSocketAddress(), n);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(DefaultHashAlgorithm.class)
  void spymemcachedWeightedKetamaLocator(DefaultHashAlgorithm alg) {
    List<Node> nodes = fleet(7, true);
    Map<InetSocketAddress, Integer> weights = new HashMap<>();
    for (Node node : nodes) {
      weights.put(new InetSocketAddress(node.host(), node.port()), node.weight());
    }
    NodeLocator spy = new KetamaNodeLocator(memcachedNodes(nodes), alg,
        KetamaNodeKeyFormatter.Format.SPYMEMCACHED, weights);
    PeerRouter router = PeerRouter.create(nodes, "spymemcached:consistent:" + alg.name() + ":spymemcached");
    assertSamePrimaries(router, k -> (InetSocketAddress) spy.getPrimary(k).getSocketAddress(), 7);
  }

  @Test
  void spymemcachedArrayModRefusesWeights() {
    assertThatThrownBy(() -> PeerRouter.create(fleet(3, true), "spymemcached:array_mod:native_hash"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has weight 2");
  }

  private static final HashAlgorithm[] XMEMCACHED_ALGS = {
    HashAlgorithm.NATIVE_HASH, HashAlgorithm.CRC32_HASH, HashAlgorithm.FNV1_64_HASH,
    HashAlgorithm.FNV1A_64_HASH, HashAlgorithm.FNV1_32_HASH, HashAlgorithm.FNV1A_32_HASH,
    HashAlgorithm.KETAMA_HASH
  };

  @Test
  void xmemcachedArrayLocator() {
    for (HashAlgorithm alg : XMEMCACHED_ALGS) {
      for (int n : new int[] {1, 2, 5, 13}) {
        List<Node> nodes = fleet(n, false);
        ArrayMemcachedSessionLocator x = new ArrayMemcachedSessionLocator(alg);
        x.updateSessions(sessions(nodes));
        PeerRouter router = PeerRouter.create(nodes, "xmemcached:array:" + alg.name());
        assertSamePrimaries(router, k -> x.getSessionByKey(k).getRemoteSocketAddress(), n);
      }
    }
  }

  @Test
  void xmemcachedKetamaLocator() {
    for (HashAlgorithm alg : XMEMCACHED_ALGS) {
      for (int n : new int[] {1, 3, 10}) {
        List<Node> nodes = fleet(n, false);
        nodes.add(Node.of("localhost", 11211));
        KetamaMemcachedSessionLocator x = new KetamaMemcachedSessionLocator(alg);
        x.updateSessions(sessions(nodes));
        PeerRouter router = PeerRouter.create(nodes, "xmemcached:ketama:" + alg.name());
        assertSamePrimaries(router, k -> x.getSessionByKey(k).getRemoteSocketAddress(), n);
      }
    }
  }

  @Test
  void jedisShardedUnnamedNamedAndWeighted() {
    for (int n : new int[] {1, 2, 5, 12}) {
      List<Node> nodes = new ArrayList<>();
      List<Shard> shards = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        Node node = Node.of("127.0.0." + (i + 1), 6379 + i % 3, 1 + i % 3);
        nodes.add(node);
        shards.add(new Shard(node.host(), node.port(), null, node.weight()));
      }
      Sharded<Object, Shard> jedis = new Sharded<>(shards);
      assertSamePrimaries(PeerRouter.create(nodes, "jedis:sharded:murmur_hash"),
          k -> address(jedis.getShardInfo(k)), n);

      List<Node> named = new ArrayList<>();
      List<Shard> namedShards = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        named.add(Node.named("cache-" + i, "127.0.0." + (i + 1), 6379, 1));
        namedShards.add(new Shard("127.0.0." + (i + 1), 6379, "cache-" + i, 1));
      }
      Sharded<Object, Shard> namedJedis = new Sharded<>(namedShards);
      assertSamePrimaries(PeerRouter.create(named, "jedis:sharded:murmur_hash"),
          k -> address(namedJedis.getShardInfo(k)), n + 100);
    }
  }

  private static InetSocketAddress address(Shard shard) {
    return new InetSocketAddress(shard.host, shard.port);
  }

  /** A shard as JedisShardInfo describes one, without the connection Jedis would open. */
  private static final class Shard extends ShardInfo<Object> {
    final String host;
    final int port;
    final String name;

    Shard(String host, int port, String name, int weight) {
      super(weight);
      this.host = host;
      this.port = port;
      this.name = name;
    }

    @Override
    protected Object createResource() {
      return new Object();
    }

    @Override
    public String getName() {
      return name;
    }
  }

  @Test
  void modesReadBackAndRejectUnknownOnes() {
    for (boolean redis : new boolean[] {false, true}) {
      for (PeerMode mode : PeerMode.all(redis)) {
        assertThat(PeerMode.of(mode.id().toUpperCase(java.util.Locale.ROOT))).isEqualTo(mode);
      }
    }
    assertThatThrownBy(() -> PeerMode.of("twemproxy:fnv1a:ketama"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'twemproxy:fnv1a:ketama'")
        .hasMessageContaining("fnv1a_64");
    assertThatThrownBy(() -> PeerMode.of("memcachedb"))
        .hasMessageContaining("expected a mode starting with twemproxy:");
  }

  private static List<Session> sessions(List<Node> nodes) {
    List<Session> out = new ArrayList<>();
    for (Node node : nodes) {
      InetSocketAddress address = new InetSocketAddress(node.host(), node.port());
      address.getHostName(); // as a connected Xmemcached session's address has it
      out.add(
          (Session)
              Proxy.newProxyInstance(
                  Session.class.getClassLoader(),
                  new Class<?>[] {Session.class},
                  (proxy, method, args) -> {
                    switch (method.getName()) {
                      case "getRemoteSocketAddress":
                        return address;
                      case "isClosed":
                        return false;
                      case "hashCode":
                        return System.identityHashCode(proxy);
                      case "equals":
                        return proxy == args[0];
                      case "toString":
                        return address.toString();
                      default:
                        throw new UnsupportedOperationException(method.getName());
                    }
                  }));
    }
    return out;
  }

  private static List<MemcachedNode> memcachedNodes(List<Node> nodes) {
    List<MemcachedNode> out = new ArrayList<>();
    for (Node node : nodes) {
      InetSocketAddress address = new InetSocketAddress(node.host(), node.port());
      out.add(
          (MemcachedNode)
              Proxy.newProxyInstance(
                  MemcachedNode.class.getClassLoader(),
                  new Class<?>[] {MemcachedNode.class},
                  (proxy, method, args) -> {
                    switch (method.getName()) {
                      case "getSocketAddress":
                        return address;
                      case "hashCode":
                        return System.identityHashCode(proxy);
                      case "equals":
                        return proxy == args[0];
                      case "toString":
                        return address.toString();
                      default:
                        throw new UnsupportedOperationException(method.getName());
                    }
                  }));
    }
    return out;
  }
}
