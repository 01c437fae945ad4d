package io.shardwise.benchmarks;

import io.shardwise.ketama.HashRingRouter;
import io.shardwise.routers.JumpRouter;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routers.MultiProbeRouter;
import io.shardwise.routers.RendezvousRouter;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
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
 * Routing a key whose primary node is out: the first available node of its preference order and
 * the nodes skipped before it. {@code prefixThenFullOrder} is how the client did it before {@link
 * Router#walkToAvailable} (an 8-node prefix of {@code preferenceOrder}, then the whole order if
 * all 8 are out, buffers reused per thread); {@code walkToAvailable} is the router's own walk.
 * Keys are 512 random key hashes whose primary is out, cycled; with {@code out = one} node 0 is
 * out, with {@code tenth} a seeded random 10% of the nodes.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar FailoverBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class FailoverBenchmark {

  @Param({"ring", "maglev", "jump", "hrw", "hrw-weighted", "multiprobe"})
  String router;

  @Param({"100", "1000"})
  int n;

  @Param({"one", "tenth"})
  String out;

  private static final int KEYS = 512;
  private static final int PREFIX = 8;
  private final long[] keys = new long[KEYS];
  private int next;

  private Router selected;
  private IntPredicate available;
  private int[] prefix;
  private int[] order;
  private int[] skipped;
  private int[] walked;

  @Setup
  public void setUp() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(Node.of("10.0." + (i / 250) + "." + (i % 250 + 1), 11211, 1 + i % 4));
    }
    selected = build(router, nodes);
    boolean[] unavailable = new boolean[n];
    SplittableRandom random = new SplittableRandom(7);
    if (out.equals("one")) {
      unavailable[0] = true;
    } else {
      for (int marked = 0; marked < n / 10; ) {
        int i = random.nextInt(n);
        marked += unavailable[i] ? 0 : 1;
        unavailable[i] = true;
      }
    }
    available = i -> !unavailable[i];
    for (int k = 0; k < KEYS; ) {
      long hash = random.nextLong();
      if (unavailable[selected.primary(hash)]) {
        keys[k++] = hash;
      }
    }
    prefix = new int[Math.min(PREFIX, n)];
    order = new int[n];
    skipped = new int[n];
    walked = new int[n];
    for (long key : keys) {
      if (prefixThenFullOrder(key) != walkToAvailable(key)) {
        throw new IllegalStateException(router + " walks " + key + " differently");
      }
    }
  }

  /** {@code hrw-weighted} has weights 1, 2, 3, 4, 1, ...; the others, which take none, 1. */
  private static Router build(String name, List<Node> weighted) {
    List<Node> nodes = new ArrayList<>();
    for (Node node : weighted) {
      nodes.add(node.withWeight(1));
    }
    switch (name) {
      case "ring":
        return HashRingRouter.create(nodes);
      case "maglev":
        return new MaglevRouter(nodes);
      case "jump":
        return new JumpRouter(nodes);
      case "hrw":
        return new RendezvousRouter(nodes);
      case "hrw-weighted":
        return new RendezvousRouter(weighted);
      case "multiprobe":
        return new MultiProbeRouter(nodes);
      default:
        throw new IllegalArgumentException("unknown router " + name);
    }
  }

  private long key() {
    return keys[next++ & (KEYS - 1)];
  }

  @Benchmark
  public int prefixThenFullOrder() {
    return prefixThenFullOrder(key());
  }

  @Benchmark
  public int walkToAvailable() {
    return walkToAvailable(key());
  }

  /** The client's former FailoverOrder.route; the result mixes the target and the skipped nodes. */
  private int prefixThenFullOrder(long key) {
    int count = selected.preferenceOrder(key, prefix);
    int result = walk(prefix, count);
    if (result < 0 && count < n) {
      result = walk(order, selected.preferenceOrder(key, order));
    }
    return result;
  }

  private int walk(int[] nodes, int count) {
    int skippedCount = 0;
    for (int i = 0; i < count; i++) {
      if (available.test(nodes[i])) {
        return mix(nodes[i], skipped, skippedCount);
      }
      skipped[skippedCount++] = nodes[i];
    }
    return -1;
  }

  private int walkToAvailable(long key) {
    int s = selected.walkToAvailable(key, available, walked);
    return s < n ? mix(walked[s], walked, s) : -1;
  }

  private static int mix(int target, int[] skippedNodes, int count) {
    int h = target;
    for (int i = 0; i < count; i++) {
      h = 31 * h + skippedNodes[i];
    }
    return h;
  }
}
