package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;

/** Seeded node lists and key hashes for the router tests. */
final class Fleets {

  private Fleets() {}

  /** {@code n} nodes named by distinct loopback addresses (127.0.0.1, 127.0.0.2, ...), weight 1. */
  static List<Node> nodes(int n) {
    List<Node> nodes = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      nodes.add(node(i));
    }
    return nodes;
  }

  /** The {@code i}-th node of {@link #nodes}. */
  static Node node(int i) {
    int a = i + 1; // all of 127.0.0.0/8 is loopback; start at 127.0.0.1
    return Node.of("127." + (a >> 16) + "." + ((a >> 8) & 0xff) + "." + (a & 0xff), 11211);
  }

  /** {@code count} key hashes: seeded uniform 64-bit values, as Murmur3 produces. */
  static long[] keyHashes(long seed, int count) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] keys = new long[count];
    for (int i = 0; i < count; i++) {
      keys[i] = random.nextLong();
    }
    return keys;
  }

  /** The node holding each key, by node name. */
  static String[] owners(Router router, long[] keys) {
    String[] owners = new String[keys.length];
    for (int i = 0; i < keys.length; i++) {
      owners[i] = router.nodes().get(router.primary(keys[i])).name();
    }
    return owners;
  }

  /** Keys per node index. */
  static int[] counts(Router router, long[] keys) {
    int[] counts = new int[router.size()];
    for (long key : keys) {
      counts[router.primary(key)]++;
    }
    return counts;
  }

  /**
   * Asserts that {@code count} is within five standard deviations (plus one, for tiny p) of the
   * mean of a binomial count with {@code trials} trials of probability {@code p}.
   */
  static void assertBinomial(String what, int count, int trials, double p) {
    double tolerance = 5 * Math.sqrt(trials * p * (1 - p)) + 1;
    assertThat((double) count).as(what).isCloseTo(trials * p, within(tolerance));
  }

  /**
   * The least number of bytes this thread allocated in one of {@code rounds} runs of {@code
   * round}. The JIT allocates now and then on the thread it compiles for; an allocation per call
   * would show in every round, so a round that allocates nothing has none.
   */
  static long leastBytesAllocated(int rounds, Runnable round) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    long least = Long.MAX_VALUE;
    for (int r = 0; r < rounds; r++) {
      long before = threads.getThreadAllocatedBytes(thread);
      round.run();
      least = Math.min(least, threads.getThreadAllocatedBytes(thread) - before);
    }
    return least;
  }

  /** The nodes with weights 1, 2, 3, 4, 1, 2, ... */
  static List<Node> weighted(List<Node> nodes) {
    List<Node> weighted = new ArrayList<>(nodes.size());
    for (int i = 0; i < nodes.size(); i++) {
      weighted.add(nodes.get(i).withWeight(1 + i % 4));
    }
    return weighted;
  }

  /** Every router of the package, built with its default parameters. */
  enum Kind {
    HRW(RendezvousRouter::new),
    HRW_WEIGHTED(nodes -> new RendezvousRouter(weighted(nodes))),
    JUMP(JumpRouter::new),
    MULTIPROBE(MultiProbeRouter::new),
    MAGLEV(MaglevRouter::new),
    MAGLEV_WEIGHTED(nodes -> new MaglevRouter(weighted(nodes))),
    MODULO(ModuloRouter::new);

    private final Function<List<Node>, Router> factory;

    Kind(Function<List<Node>, Router> factory) {
      this.factory = factory;
    }

    Router build(List<Node> nodes) {
      return factory.apply(nodes);
    }
  }
}
