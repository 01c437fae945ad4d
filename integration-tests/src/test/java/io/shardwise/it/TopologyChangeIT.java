package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyChange;
import io.shardwise.core.TopologyOptions;
import io.shardwise.routing.ServerList;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Server-list changes under cache-aside load on real servers: 5 -> 6, 6 -> 5 and one server
 * replaced, with and without warm-up, one client and two clients applying the change apart; hit
 * rate over the first reads after the change, errors, stale and wrong values; no request to a
 * removed server once it is closed; nothing left behind after many changes.
 *
 * <p>The figures ({@code TOPOLOGY ...} lines on standard output) are the ones in docs/topology.md.
 */
@Timeout(180)
class TopologyChangeIT {

  private static final int KEYS = 20_000;
  private static final int THREADS = 8;
  /** The window the hit rate is measured over: about one read per key. */
  private static final long WINDOW_READS = 20_000;

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(7);
  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(7);

  static Stream<CacheFleet> fleets() {
    return Stream.of(CacheFleet.memcached(MEMCACHED), CacheFleet.redis(REDIS));
  }

  private static String servers(CacheFleet fleet, int... indexes) {
    List<String> all = fleet.fleet().addresses();
    return IntStream.of(indexes).mapToObj(all::get).collect(Collectors.joining(","));
  }

  private static AsyncCacheClient<String> client(CacheFleet fleet, String servers, TopologyOptions options) {
    return ready(
        io.shardwise.core.ShardwiseClient.builder()
            .backend(fleet.newBackend())
            .servers(servers)
            .timeout(CacheFleet.CLIENT_TIMEOUT)
            .topology(options)
            .codec(Codecs.utf8())
            .build());
  }

  private static TopologyOptions warm(Duration settle) {
    return TopologyOptions.defaults().withSettle(settle).withWarmUp(Duration.ofSeconds(60));
  }

  private static final TopologyOptions NO_WARM_UP =
      TopologyOptions.defaults().withSettle(Duration.ZERO).withWarmUp(Duration.ZERO);

  /** One client: preload, load, change, measure the next reads. */
  private static CacheAsideLoad.Counts change(
      CacheFleet fleet, String from, String to, TopologyOptions options, String label) {
    fleet.reset();
    try (AsyncCacheClient<String> client = client(fleet, from, options);
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      CacheAsideLoad.Counts before = load.over(WINDOW_READS);
      TopologyChange change = client.updateServers(ServerList.parse(to)).join();
      CacheAsideLoad.Counts window = load.over(WINDOW_READS);
      CacheAsideLoad.Counts after = load.over(WINDOW_READS);
      System.out.printf(
          "TOPOLOGY %s %s: %s; hit rate before %.4f, over the first %d reads after %.4f, next %d %.4f;"
              + " errors %d, stale %d, wrong %d%n",
          fleet, label, change, before.hitRate(), window.reads(), window.hitRate(), after.reads(),
          after.hitRate(), load.counts().errors(), load.counts().stale(), load.counts().wrong());
      load.stop();
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
      return window;
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void addingAServerWithWarmUpKeepsTheHitRate(CacheFleet fleet) {
    CacheAsideLoad.Counts window =
        change(fleet, servers(fleet, 0, 1, 2, 3, 4), servers(fleet, 0, 1, 2, 3, 4, 5), warm(Duration.ZERO), "5 -> 6, warm-up");
    assertThat(window.hitRate()).isGreaterThanOrEqualTo(0.99);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void addingAServerWithoutWarmUpMissesItsShare(CacheFleet fleet) {
    CacheAsideLoad.Counts window =
        change(fleet, servers(fleet, 0, 1, 2, 3, 4), servers(fleet, 0, 1, 2, 3, 4, 5), NO_WARM_UP, "5 -> 6, no warm-up");
    assertThat(window.hitRate()).isLessThan(0.95);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void removingAServerWithWarmUpKeepsTheHitRate(CacheFleet fleet) {
    CacheAsideLoad.Counts window =
        change(fleet, servers(fleet, 0, 1, 2, 3, 4, 5), servers(fleet, 0, 1, 2, 3, 4), warm(Duration.ZERO), "6 -> 5, warm-up");
    assertThat(window.hitRate()).isGreaterThanOrEqualTo(0.99);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void replacingAServerWithWarmUpKeepsTheHitRate(CacheFleet fleet) {
    CacheAsideLoad.Counts window =
        change(fleet, servers(fleet, 0, 1, 2, 3, 4), servers(fleet, 0, 1, 2, 3, 5), warm(Duration.ZERO), "replace one, warm-up");
    assertThat(window.hitRate()).isGreaterThanOrEqualTo(0.99);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void twoClientsApplyingTheChangeWithinTheSettlePhaseReadNothingStale(CacheFleet fleet) {
    fleet.reset();
    Duration settle = Duration.ofSeconds(4);
    String from = servers(fleet, 0, 1, 2, 3, 4);
    String to = servers(fleet, 0, 1, 2, 3, 4, 5);
    try (AsyncCacheClient<String> a = client(fleet, from, warm(settle));
        AsyncCacheClient<String> b = client(fleet, from, warm(settle));
        CacheAsideLoad load = new CacheAsideLoad(List.of(a, b), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS);
      CacheAsideLoad.Counts start = load.counts();
      a.updateServers(ServerList.parse(to)).join();
      CacheFleet.sleep(2_000); // b still routes by the old list
      b.updateServers(ServerList.parse(to)).join();
      CacheFleet.sleep(settle.toMillis()); // a leaves its settle phase, then b
      load.over(3 * WINDOW_READS);
      CacheAsideLoad.Counts run = load.counts().minus(start);
      load.stop();
      System.out.printf(
          "TOPOLOGY %s two clients 2 s apart, settle %d s: %d reads, hit rate %.4f, errors %d, stale %d, wrong %d%n",
          fleet, settle.toSeconds(), run.reads(), run.hitRate(), run.errors(), run.stale(), run.wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    }
  }

  /**
   * The bound measured: without a settle phase, a client that applies the change 2 s after the
   * other writes moved keys on their previous server meanwhile, which the first client no longer
   * reads. Stale reads are counted and reported (docs/topology.md), not forbidden; wrong values
   * and errors are.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void twoClientsApartLongerThanTheSettlePhaseCanReadStaleValues(CacheFleet fleet) {
    fleet.reset();
    String from = servers(fleet, 0, 1, 2, 3, 4);
    String to = servers(fleet, 0, 1, 2, 3, 4, 5);
    try (AsyncCacheClient<String> a = client(fleet, from, warm(Duration.ZERO));
        AsyncCacheClient<String> b = client(fleet, from, warm(Duration.ZERO));
        CacheAsideLoad load = new CacheAsideLoad(List.of(a, b), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS);
      CacheAsideLoad.Counts start = load.counts();
      a.updateServers(ServerList.parse(to)).join();
      CacheFleet.sleep(2_000);
      b.updateServers(ServerList.parse(to)).join();
      load.over(3 * WINDOW_READS);
      CacheAsideLoad.Counts run = load.counts().minus(start);
      load.stop();
      System.out.printf(
          "TOPOLOGY %s two clients 2 s apart, no settle phase: %d reads, hit rate %.4f, errors %d, stale %d, wrong %d%n",
          fleet, run.reads(), run.hitRate(), run.errors(), run.stale(), run.wrong());
      assertThat(run.errors()).isZero();
      assertThat(run.wrong()).isZero();
    }
  }

  /**
   * A change and its reversal after the warm-up (a server added, then removed again): the keys that
   * moved to the added server and were rewritten there go back to their first servers, which still
   * hold the values from before the first change. None of those is read.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void aChangeReversedAfterItsWarmUpReadsNothingStale(CacheFleet fleet) {
    String five = servers(fleet, 0, 1, 2, 3, 4);
    String six = servers(fleet, 0, 1, 2, 3, 4, 5);
    changesUnderLoad(
        fleet, five, Duration.ofMillis(500), Duration.ofSeconds(2), "5 -> 6, back to 5 after the warm-up",
        (client, load) -> {
          client.updateServers(ServerList.parse(six)).join();
          CacheFleet.sleep(3_000); // past the warm-up: the moved keys are written on the sixth server only
          load.over(WINDOW_READS);
          client.updateServers(ServerList.parse(five)).join();
          load.over(3 * WINDOW_READS);
        });
  }

  /**
   * A change reversed within its settle or warm-up (5 -> 6 -> 5), the reversal sent at several
   * moments of the first change's windows (settle 300 ms, warm-up 600 ms, copies from 600 ms): while
   * the first change settles (the reversal waits for its settle to end), early in its warm-up
   * (before copies), and late in it (copying; its warm-up ends while the reversal settles). The keys
   * moving back are served by the sixth server while the reversal settles, and read again on their
   * first server after a miss there: the hit rate over the first and the next 20,000 reads after
   * the reversal stays at 99% or more, with no stale value. With {@code
   * -Dtopology.reversal.defaults=true}, the same with the default settle and warm-up too.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void aChangeReversedWithinItsSettleOrWarmUpKeepsTheHitRate(CacheFleet fleet) {
    List<String> failures = new java.util.ArrayList<>();
    reversalsWithin(
        fleet, TopologyOptions.defaults().withSettle(Duration.ofMillis(300)).withWarmUp(Duration.ofMillis(600)),
        new long[] {150, 400, 800}, failures);
    if (Boolean.getBoolean("topology.reversal.defaults")) {
      // The default settle (10 s) and warm-up (10 min): while settling, 54 ms into the warm-up, 5 s in.
      reversalsWithin(fleet, TopologyOptions.defaults(), new long[] {5_000, 10_054, 15_000}, failures);
    }
    assertThat(failures).as("hit rates under 99%%, errors, stale and wrong values").isEmpty();
  }

  /**
   * For each of {@code moments}: a fresh client with {@code options} under cache-aside load goes
   * from 5 servers to 6, and back to 5 that many ms later; adds to {@code failures} a hit rate under
   * 99% over the first or the next 20,000 reads after the reversal, and any error, stale or wrong
   * value.
   */
  private static void reversalsWithin(
      CacheFleet fleet, TopologyOptions options, long[] moments, List<String> failures) {
    String five = servers(fleet, 0, 1, 2, 3, 4);
    String six = servers(fleet, 0, 1, 2, 3, 4, 5);
    for (long sentAfter : moments) {
      long begin = System.nanoTime();
      fleet.reset();
      try (AsyncCacheClient<String> client = client(fleet, five, options);
          CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
        load.over(2_000);
        client.updateServers(ServerList.parse(six)).join();
        long first = System.nanoTime(); // the change was applied just before join returned
        CacheFleet.sleep(Math.max(0, sentAfter - (System.nanoTime() - first) / 1_000_000));
        long sent = (System.nanoTime() - first) / 1_000_000;
        TopologyChange reversal = client.updateServers(ServerList.parse(five)).join();
        long applied = (System.nanoTime() - first) / 1_000_000;
        CacheAsideLoad.Counts window = load.over(WINDOW_READS);
        CacheAsideLoad.Counts next = load.over(WINDOW_READS);
        load.stop();
        System.out.printf(
            java.util.Locale.ROOT,
            "TOPOLOGY %s 5 -> 6 -> 5, reversal sent %d ms after the change (applied at %d ms; settle %d ms,"
                + " warm-up %d ms): hit rate over the first %d reads after it %.4f, next %d %.4f; errors %d,"
                + " stale %d, wrong %d; %d ms in all%n",
            fleet, sent, applied, options.settle().toMillis(), options.warmUp().toMillis(), window.reads(),
            window.hitRate(), next.reads(), next.hitRate(), load.counts().errors(), load.counts().stale(),
            load.counts().wrong(), (System.nanoTime() - begin) / 1_000_000);
        String at = "sent at " + sentAfter + " ms, settle " + options.settle().toMillis() + " ms: ";
        if (reversal.movedShare() == 0) {
          failures.add(at + "the reversal moved no key");
        }
        if (window.hitRate() < 0.99 || next.hitRate() < 0.99) {
          failures.add(
              at + String.format(java.util.Locale.ROOT, "hit rates %.4f, %.4f", window.hitRate(), next.hitRate()));
        }
        if (!load.firstProblems.isEmpty()) {
          failures.add(at + load.firstProblems);
        }
      }
    }
  }

  /**
   * Many changes under load, cycling through 5, 6 and 7 servers, each made as soon as the one
   * before has settled, so that changes follow each other while warming, after it, and back.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void manyChangesBackAndForthUnderLoadReadNothingStale(CacheFleet fleet) {
    List<String> lists =
        List.of(servers(fleet, 0, 1, 2, 3, 4), servers(fleet, 0, 1, 2, 3, 4, 5), servers(fleet, 0, 1, 2, 3, 4, 5, 6));
    changesUnderLoad(
        fleet, lists.get(0), Duration.ofMillis(100), Duration.ofMillis(400), "60 changes among 5, 6 and 7 servers",
        (client, load) -> {
          java.util.SplittableRandom random = new java.util.SplittableRandom(7);
          for (int i = 0; i < 60; i++) {
            client.updateServers(ServerList.parse(lists.get(random.nextInt(lists.size())))).join();
            CacheFleet.sleep(random.nextInt(300));
          }
          load.over(WINDOW_READS);
        });
  }

  /**
   * Runs {@code changes} on one client under cache-aside load and requires no error, stale or wrong
   * value over the reads from the first change on.
   */
  private static void changesUnderLoad(
      CacheFleet fleet,
      String from,
      Duration settle,
      Duration warmUp,
      String label,
      java.util.function.BiConsumer<AsyncCacheClient<String>, CacheAsideLoad> changes) {
    fleet.reset();
    TopologyOptions options = TopologyOptions.defaults().withSettle(settle).withWarmUp(warmUp);
    try (AsyncCacheClient<String> client = client(fleet, from, options);
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS);
      CacheAsideLoad.Counts start = load.counts();
      changes.accept(client, load);
      CacheAsideLoad.Counts run = load.counts().minus(start);
      load.stop();
      System.out.printf(
          "TOPOLOGY %s %s: %d reads, hit rate %.4f, errors %d, stale %d, wrong %d%n",
          fleet, label, run.reads(), run.hitRate(), run.errors(), run.stale(), run.wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    }
  }

  /**
   * A server added while it is not running: during the warm-up, writes of the keys that moved to
   * it go to the next server of their order, usually the one they moved from. Nothing written is
   * lost to the delete of the moved keys' old copies.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void writesOfKeysMovedToAnAddedServerThatIsDownAreNotLost(CacheFleet fleet) throws Exception {
    fleet.reset();
    String five = servers(fleet, 0, 1, 2, 3, 4);
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort(); // nothing listens there once closed
    }
    TopologyOptions options =
        TopologyOptions.defaults().withSettle(Duration.ofMillis(500)).withWarmUp(Duration.ofSeconds(60));
    try (AsyncCacheClient<String> client = client(fleet, five, options)) {
      client.updateServers(ServerList.parse(five + ",127.0.0.1:" + port)).join();
      io.shardwise.routing.Node down = io.shardwise.routing.Node.of("127.0.0.1", port);
      List<String> moved =
          IntStream.range(0, 5_000).mapToObj(i -> "down:" + i).filter(k -> client.nodeFor(k).equals(down)).toList();
      CacheFleet.sleep(600); // warming
      for (String key : moved) {
        client.sync().set(key, "set", Duration.ZERO);
      }
      long setLost = moved.stream().filter(k -> !"set".equals(client.sync().get(k))).count();
      for (String key : moved) {
        client.sync().delete(key);
        client.sync().add(key, "added", Duration.ZERO);
      }
      long addLost = moved.stream().filter(k -> !"added".equals(client.sync().get(k))).count();
      System.out.printf(
          "TOPOLOGY %s writes of %d keys moved to an added server that is down, while warming: %d sets lost, %d adds lost%n",
          fleet, moved.size(), setLost, addLost);
      assertThat(moved).hasSizeGreaterThan(300);
      assertThat(setLost).isZero();
      assertThat(addLost).isZero();
    }
  }

  /**
   * A second change while the first one warms up (two edits of a servers file 15 s apart, say):
   * the keys the first change moved are still read where they were, through both changes.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void aSecondChangeWhileTheFirstWarmsUpKeepsTheHitRate(CacheFleet fleet) {
    CacheAsideLoad.Counts window;
    fleet.reset();
    try (AsyncCacheClient<String> client = client(fleet, servers(fleet, 0, 1, 2, 3, 4), warm(Duration.ZERO));
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS);
      client.updateServers(ServerList.parse(servers(fleet, 0, 1, 2, 3, 4, 5))).join();
      client.updateServers(ServerList.parse(servers(fleet, 0, 1, 2, 3, 4, 5, 6))).join();
      window = load.over(WINDOW_READS);
      load.stop();
      System.out.printf(
          "TOPOLOGY %s 5 -> 6 -> 7 while warming: hit rate over the first %d reads after %.4f; errors %d, stale %d, wrong %d%n",
          fleet, window.reads(), window.hitRate(), load.counts().errors(), load.counts().stale(), load.counts().wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    }
    assertThat(window.hitRate()).isGreaterThanOrEqualTo(0.99);
  }

  /**
   * A warm-up copy never outlives its original: the server tells what it has left (Redis {@code
   * PTTL}; memcached 1.6's meta get, {@code mg <key> t}).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void warmUpCopiesKeepWhatTheOriginalHasLeftWhereTheServerTells(CacheFleet fleet) {
    fleet.reset();
    TopologyOptions options = warm(Duration.ZERO).withCopyTtl(Duration.ofSeconds(60));
    try (AsyncCacheClient<String> client = client(fleet, servers(fleet, 0, 1, 2, 3, 4), options)) {
      for (int i = 0; i < 300; i++) {
        client.sync().set("ttl:" + i, "v", Duration.ofSeconds(20));
      }
      client.updateServers(ServerList.parse(servers(fleet, 0, 1, 2, 3, 4, 5))).join();
      List<String> moved =
          IntStream.range(0, 300)
              .mapToObj(i -> "ttl:" + i)
              .filter(k -> fleet.indexOf(client.nodeFor(k)) == 5)
              .toList();
      assertThat(moved).isNotEmpty();
      moved.forEach(k -> assertThat(client.sync().get(k)).isEqualTo("v"));
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (client.topologyStatus().warmUpCopies() < moved.size() && System.nanoTime() < deadline) {
        CacheFleet.sleep(10);
      }
      for (String key : moved) {
        Long left = fleet.rawSecondsToExpiry(5, key);
        assertThat(left).as(key).isNotNull();
        assertThat(left).as("%s: what the original had left", key).isBetween(1L, 20L);
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void aRemovedServerGetsNoRequestOnceClosed(CacheFleet fleet) {
    fleet.reset();
    TopologyOptions quick =
        TopologyOptions.defaults().withSettle(Duration.ofMillis(300)).withWarmUp(Duration.ofMillis(600));
    try (AsyncCacheClient<String> client = client(fleet, servers(fleet, 0, 1, 2, 3, 4, 5), quick);
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      client.updateServers(ServerList.parse(servers(fleet, 0, 1, 2, 3, 4))).join();
      CacheFleet.sleep(2_500); // settle, warm-up, drain
      Map<String, String> closed = fleet.rawActivity(5);
      load.over(WINDOW_READS);
      assertThat(fleet.rawActivity(5)).as("requests to the removed server").isEqualTo(closed);
      load.stop();
      assertThat(load.firstProblems).isEmpty();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void aHundredChangesLeaveNoThreadOrConnectionBehind(CacheFleet fleet) {
    fleet.reset();
    String five = servers(fleet, 0, 1, 2, 3, 4);
    String six = servers(fleet, 0, 1, 2, 3, 4, 5);
    try (AsyncCacheClient<String> client = client(fleet, five, NO_WARM_UP)) {
      client.updateServers(ServerList.parse(six)).join();
      client.updateServers(ServerList.parse(five)).join();
      CacheFleet.sleep(500);
      int threads = Thread.activeCount();
      int fds = openFiles();
      for (int i = 0; i < 100; i++) {
        client.updateServers(ServerList.parse(i % 2 == 0 ? six : five)).join();
        client.sync().set("k" + i, "v", Duration.ZERO);
      }
      CacheFleet.sleep(1_000); // the last drain
      System.out.printf(
          "TOPOLOGY %s 100 changes: threads %d -> %d, open files %d -> %d%n",
          fleet, threads, Thread.activeCount(), fds, openFiles());
      assertThat(Thread.activeCount()).isLessThanOrEqualTo(threads + 2);
      assertThat(openFiles()).isLessThanOrEqualTo(fds + 4);
    }
  }

  private static int openFiles() {
    String[] fds = new File("/proc/self/fd").list();
    return fds == null ? -1 : fds.length;
  }
}
