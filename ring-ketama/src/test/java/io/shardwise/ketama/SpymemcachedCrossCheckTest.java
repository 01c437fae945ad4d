package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Runs spymemcached's own {@code KetamaNodeLocator} beside the spymemcached mode. */
class SpymemcachedCrossCheckTest {

  @ParameterizedTest(name = "n={0}")
  @ValueSource(ints = {1, 2, 3, 7, 25, 47, 50, 100, 160})
  void plainLocatorAgreesOnRandomKeys(int n) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(Node.of("127.0." + (i / 200) + "." + (i % 200 + 1), 11211 + i % 7));
    }
    nodes.add(Node.of("localhost", 22122)); // a host name: spymemcached hashes "localhost/127.0.0.1:22122"
    KetamaNodeLocator spy = new KetamaNodeLocator(memcachedNodes(nodes), DefaultHashAlgorithm.KETAMA_HASH);
    KetamaRouter router = KetamaRouter.create(nodes, KetamaCompatibility.SPYMEMCACHED);
    assertThat(router.serverString(nodes.size() - 1)).isEqualTo("localhost/127.0.0.1:22122");
    assertSamePrimaries(spy, router, nodes, n);
  }

  @ParameterizedTest(name = "n={0}")
  @ValueSource(ints = {2, 4, 25, 50, 61})
  void weightedLocatorAgreesOnRandomKeys(int n) {
    List<Node> nodes = new ArrayList<>();
    Map<InetSocketAddress, Integer> weights = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Node node = Node.of("10.1.0." + (i + 1), 11211, 1 + i % 5);
      nodes.add(node);
      weights.put(new InetSocketAddress(node.host(), node.port()), node.weight());
    }
    KetamaNodeLocator spy =
        new KetamaNodeLocator(
            memcachedNodes(nodes),
            DefaultHashAlgorithm.KETAMA_HASH,
            KetamaNodeKeyFormatter.Format.SPYMEMCACHED,
            weights);
    assertSamePrimaries(spy, KetamaRouter.create(nodes, KetamaCompatibility.SPYMEMCACHED), nodes, n);
  }

  @ParameterizedTest(name = "n={0}")
  @ValueSource(ints = {25, 47})
  void weightedLocatorWithEqualWeightsNeedsTheWeightedMode(int n) {
    List<Node> nodes = new ArrayList<>();
    Map<InetSocketAddress, Integer> weights = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Node node = Node.of("10.2.0." + (i + 1), 11211);
      nodes.add(node);
      weights.put(new InetSocketAddress(node.host(), node.port()), 1);
    }
    KetamaNodeLocator spy =
        new KetamaNodeLocator(
            memcachedNodes(nodes),
            DefaultHashAlgorithm.KETAMA_HASH,
            KetamaNodeKeyFormatter.Format.SPYMEMCACHED,
            weights);
    assertSamePrimaries(spy, KetamaRouter.create(nodes, "spymemcached-weighted"), nodes, n);
  }

  private static void assertSamePrimaries(
      KetamaNodeLocator spy, KetamaRouter router, List<Node> nodes, int seed) {
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = 0; i < 20_000; i++) {
      String key = "user:" + random.nextLong();
      InetSocketAddress expected = (InetSocketAddress) spy.getPrimary(key).getSocketAddress();
      Node actual = router.primaryNode(key);
      assertThat(actual.port()).as(key).isEqualTo(expected.getPort());
      assertThat(new InetSocketAddress(actual.host(), actual.port())).as(key).isEqualTo(expected);
    }
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
