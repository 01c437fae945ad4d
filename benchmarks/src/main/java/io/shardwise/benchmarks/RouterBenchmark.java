package io.shardwise.benchmarks;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import io.shardwise.ketama.HashRingRouter;
import io.shardwise.ketama.KetamaCompatibility;
import io.shardwise.ketama.KetamaRouter;
import io.shardwise.routers.JumpRouter;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routing.Node;
import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.KetamaNodeLocator;
import net.spy.memcached.MemcachedNode;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Primary-node lookup for a String key, key hashing included, side by side with spymemcached's
 * {@code KetamaNodeLocator.getPrimary} and Guava's {@code consistentHash(murmur3_128())}. Keys are
 * {@code user:<random long>}, 4096 of them, cycled.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar RouterBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RouterBenchmark {

  @Param({"10", "100", "1000"})
  int n;

  private static final int KEYS = 4096;
  private final String[] keys = new String[KEYS];
  private int next;

  private KetamaRouter ketama;
  private KetamaNodeLocator spymemcached;
  private HashRingRouter ring;
  private JumpRouter jump;
  private MaglevRouter maglev;
  private final HashFunction murmur = Hashing.murmur3_128();

  @Setup
  public void setUp() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(Node.of("10.0." + (i / 250) + "." + (i % 250 + 1), 11211));
    }
    ketama = KetamaRouter.create(nodes, KetamaCompatibility.SPYMEMCACHED);
    spymemcached = new KetamaNodeLocator(memcachedNodes(nodes), DefaultHashAlgorithm.KETAMA_HASH);
    ring = HashRingRouter.create(nodes);
    jump = new JumpRouter(nodes);
    maglev = new MaglevRouter(nodes);
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "user:" + random.nextLong();
    }
    for (int i = 0; i < KEYS; i++) {
      // Same placement, or the comparison would be meaningless.
      InetSocketAddress a = (InetSocketAddress) spymemcached.getPrimary(keys[i]).getSocketAddress();
      if (a.getPort() != 11211 || !a.getHostString().equals(ketama.primaryNode(keys[i]).host())) {
        throw new IllegalStateException("spymemcached and Shardwise disagree on " + keys[i]);
      }
      if (jump.primary(keys[i]) != Hashing.consistentHash(murmur.hashString(keys[i], StandardCharsets.UTF_8), n)) {
        throw new IllegalStateException("Guava and Shardwise jump disagree on " + keys[i]);
      }
    }
  }

  private String key() {
    return keys[next++ & (KEYS - 1)];
  }

  @Benchmark
  public int shardwiseKetama() {
    return ketama.primary(key());
  }

  @Benchmark
  public Object spymemcachedKetama() {
    return spymemcached.getPrimary(key());
  }

  @Benchmark
  public int shardwiseRing() {
    return ring.primary(key());
  }

  @Benchmark
  public int shardwiseJump() {
    return jump.primary(key());
  }

  @Benchmark
  public int shardwiseMaglev() {
    return maglev.primary(key());
  }

  @Benchmark
  public int guavaJump() {
    return Hashing.consistentHash(murmur.hashString(key(), StandardCharsets.UTF_8), n);
  }

  static List<MemcachedNode> memcachedNodes(List<Node> nodes) {
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
