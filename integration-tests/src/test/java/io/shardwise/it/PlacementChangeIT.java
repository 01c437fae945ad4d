package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.LoadReport;
import io.shardwise.client.TopologyChange;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.MemcachedClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Changes of the placement itself under cache-aside load on real servers (issue 23): a fleet that
 * a bare spymemcached client filled with its default placement (modulo) switched live to ketama,
 * with and without warm-up; two clients switching 2 s apart within the settle phase; ketama to
 * Maglev, HRW to ketama with bounded loads, and a change reversed after its warm-up; a bad
 * placement refused while the old one serves.
 *
 * <p>The figures ({@code PLACEMENT ...} lines on standard output) are the ones in docs/migration.md
 * and docs/topology.md. Settle and warm-up are short so that the class runs in about a minute.
 */
@Timeout(180)
class PlacementChangeIT {

  private static final int KEYS = 20_000;
  private static final int THREADS = 8;
  /** The window the hit rate is measured over: about one read per key. */
  private static final long WINDOW_READS = 20_000;
  /** spymemcached's {@code new MemcachedClient(addresses)}, as {@code detect} names it. */
  private static final String SPYMEMCACHED_DEFAULT = "spymemcached:array_mod:native_hash";

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(5);
  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(5);

  static Stream<CacheFleet> fleets() {
    return Stream.of(CacheFleet.memcached(MEMCACHED), CacheFleet.redis(REDIS));
  }

  private static Map<String, String> settings(String... keysAndValues) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      out.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return out;
  }

  private static final Map<String, String> TO_KETAMA =
      settings("shardwise.router", "ketama", "shardwise.ketama.compatibility", "spymemcached");

  /** The configuration detect prints for a fleet spymemcached's default client filled. */
  private static AsyncCacheClient<String> detected(CacheFleet fleet, Duration settle, Duration warmUp) {
    Map<String, String> config =
        settings(
            "shardwise.backend", fleet.kind(),
            "shardwise.servers", fleet.serverList(5),
            "shardwise.router", "compat",
            "shardwise.compat.mode", SPYMEMCACHED_DEFAULT,
            "shardwise.codec", fleet.kind().equals("memcached") ? "spymemcached" : "utf8",
            "shardwise.timeout", "2s",
            "shardwise.topology.settle", settle.toMillis() + "ms",
            "shardwise.topology.warm-up", warmUp.toMillis() + "ms");
    return ready(ShardwiseConfig.from(config).build(String.class));
  }

  private static AsyncCacheClient<String> client(CacheFleet fleet, RouterSpec router, TopologyOptions options, BoundedOptions bounded) {
    return ready(
        ShardwiseClient.builder()
            .backend(fleet.newBackend())
            .servers(fleet.serverList(5))
            .router(router)
            .bounded(bounded)
            .timeout(CacheFleet.CLIENT_TIMEOUT)
            .topology(options)
            .codec(Codecs.utf8())
            .build());
  }

  private static TopologyOptions options(Duration settle, Duration warmUp) {
    return TopologyOptions.defaults().withSettle(settle).withWarmUp(warmUp);
  }

  /** Version 0 of every row, written by spymemcached with its defaults. */
  private static void fillWithSpymemcached(CacheFleet fleet) throws Exception {
    MemcachedClient spy =
        SpymemcachedClients.connected(
            new MemcachedClient(AddrUtil.getAddresses(fleet.serverList(5).replace(',', ' '))), 5);
    try {
      List<Future<Boolean>> writes = new ArrayList<>();
      for (int i = 0; i < KEYS; i++) {
        String key = CacheAsideLoad.key(i);
        writes.add(spy.set(key, 0, key + "|0"));
      }
      for (Future<Boolean> w : writes) {
        assertThat(w.get()).isTrue();
      }
    } finally {
      spy.shutdown();
    }
  }

  /**
   * spymemcached's default client fills the fleet; Shardwise, as detect configures it, reads every
   * key, then serves cache-aside load and switches to ketama.
   */
  private static CacheAsideLoad.Counts fromSpymemcachedDefaultToKetama(Duration settle, Duration warmUp, String label)
      throws Exception {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    fillWithSpymemcached(fleet);
    try (AsyncCacheClient<String> client = detected(fleet, settle, warmUp)) {
      List<String> keys = IntStream.range(0, KEYS).mapToObj(CacheAsideLoad::key).toList();
      Map<String, String> read = client.sync().getMulti(keys).values();
      assertThat(read).as("keys spymemcached wrote, read through Shardwise").hasSize(KEYS);
      try (CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).start()) {
        String what = "memcached " + label + ": " + read.size() + " of " + KEYS + " keys spymemcached wrote read";
        return measured(client, load, TO_KETAMA, what);
      }
    }
  }

  @Test
  void aFleetFilledBySpymemcachedsDefaultsMovesToKetamaWithoutAMissStorm() throws Exception {
    CacheAsideLoad.Counts window =
        fromSpymemcachedDefaultToKetama(Duration.ZERO, Duration.ofSeconds(60), "spymemcached default -> ketama, warm-up");
    assertThat(window.hitRate()).isGreaterThanOrEqualTo(0.99);
  }

  @Test
  void withoutWarmUpTheSameSwitchMissesTheKeysThatMoved() throws Exception {
    CacheAsideLoad.Counts window =
        fromSpymemcachedDefaultToKetama(Duration.ZERO, Duration.ZERO, "spymemcached default -> ketama, no warm-up");
    assertThat(window.hitRate()).isLessThan(0.6);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void twoClientsSwitchingWithinTheSettlePhaseReadNothingStale(CacheFleet fleet) {
    fleet.reset();
    Duration settle = Duration.ofSeconds(4);
    TopologyOptions options = options(settle, Duration.ofSeconds(60));
    RouterSpec modulo = RouterSpec.of("compat").withCompatMode(SPYMEMCACHED_DEFAULT);
    try (AsyncCacheClient<String> a = client(fleet, modulo, options, BoundedOptions.disabled());
        AsyncCacheClient<String> b = client(fleet, modulo, options, BoundedOptions.disabled());
        CacheAsideLoad load = new CacheAsideLoad(List.of(a, b), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS);
      CacheAsideLoad.Counts start = load.counts();
      TopologyChange change = a.updatePlacement(TO_KETAMA).join();
      CacheFleet.sleep(2_000); // b still places keys by modulo
      b.updatePlacement(TO_KETAMA).join();
      CacheFleet.sleep(settle.toMillis()); // a leaves its settle phase, then b
      load.over(3 * WINDOW_READS);
      CacheAsideLoad.Counts run = load.counts().minus(start);
      load.stop();
      System.out.printf(
          "PLACEMENT %s two clients 2 s apart, settle %d s: %s; %d reads, hit rate %.4f, errors %d, stale %d, wrong %d%n",
          fleet, settle.toSeconds(), change, run.reads(), run.hitRate(), run.errors(), run.stale(), run.wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    }
  }

  /** One client on Redis: a router change under load, the hit rate over the next reads. */
  private static void routerChangeOnRedis(RouterSpec from, Map<String, String> to, BoundedOptions bounded, String label) {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    try (AsyncCacheClient<String> client = client(fleet, from, options(Duration.ZERO, Duration.ofSeconds(60)), bounded);
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      assertThat(measured(client, load, to, "redis " + label).hitRate()).isGreaterThanOrEqualTo(0.99);
    }
  }

  /**
   * Under {@code load}: the hit rate over a window before, the change to {@code to}, the windows of
   * the first reads after it and of the next ones, printed; no error, stale or wrong value.
   */
  private static CacheAsideLoad.Counts measured(
      AsyncCacheClient<String> client, CacheAsideLoad load, Map<String, String> to, String what) {
    CacheAsideLoad.Counts before = load.over(WINDOW_READS);
    TopologyChange change = client.updatePlacement(to).join();
    CacheAsideLoad.Counts window = load.over(WINDOW_READS);
    CacheAsideLoad.Counts next = load.over(WINDOW_READS);
    load.stop();
    System.out.printf(
        "PLACEMENT %s; %s; hit rate before %.4f, over the first %d reads after %.4f, next %d %.4f;"
            + " errors %d, stale %d, wrong %d%n",
        what, change, before.hitRate(), window.reads(), window.hitRate(), next.reads(), next.hitRate(),
        load.counts().errors(), load.counts().stale(), load.counts().wrong());
    assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    assertThat(change.movedShare()).as("moved share").isBetween(0.7, 0.9); // unrelated placements on 5 servers
    return window;
  }

  @Test
  void ketamaToMaglevOnRedisKeepsTheHitRate() {
    routerChangeOnRedis(RouterSpec.of("ketama"), settings("shardwise.router", "maglev"), BoundedOptions.disabled(), "ketama -> maglev");
  }

  @Test
  void hrwToKetamaWithBoundedLoadsOnRedisKeepsTheHitRate() {
    BoundedOptions bounded =
        BoundedOptions.builder().enabled(true).epsilon(0.25).scope(BoundedOptions.Scope.ALL).build();
    routerChangeOnRedis(RouterSpec.of("hrw"), settings("shardwise.router", "ketama"), bounded, "hrw -> ketama, bounded loads e=0.25");
  }

  /**
   * HRW without bounded loads switched live to ketama with bounded loads (epsilon 0.25, every key):
   * the router and the bounded-load keys in one change, the spills counted after it.
   */
  @Test
  void hrwSwitchedLiveToKetamaWithBoundedLoadsOnRedisKeepsTheHitRate() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    Map<String, String> to =
        settings(
            "shardwise.router", "ketama",
            "shardwise.bounded.enabled", "true",
            "shardwise.bounded.epsilon", "0.25",
            "shardwise.bounded.scope", "all");
    try (AsyncCacheClient<String> client =
            client(fleet, RouterSpec.of("hrw"), options(Duration.ZERO, Duration.ofSeconds(60)), BoundedOptions.disabled());
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      assertThat(client.loadReport().enabled()).isFalse();
      CacheAsideLoad.Counts window = measured(client, load, to, "redis hrw -> ketama + bounded loads e=0.25 (switched on live)");
      LoadReport report = client.loadReport();
      long spills = report.nodes().stream().mapToLong(LoadReport.NodeLoad::spilledFrom).sum();
      System.out.printf("PLACEMENT redis hrw -> ketama + bounded loads: %d reads spilled after the switch%n", spills);
      assertThat(report.enabled()).isTrue();
      assertThat(window.hitRate()).isGreaterThanOrEqualTo(0.99);
    }
  }

  /**
   * ketama to Maglev, and back to ketama once the warm-up has ended, under the same load: the keys
   * go back to servers that still hold their values from before the first change. None is read.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void thereAndBackAfterTheWarmUpReadsNothingStale(CacheFleet fleet) {
    fleet.reset();
    TopologyOptions options = options(Duration.ofMillis(500), Duration.ofSeconds(2));
    try (AsyncCacheClient<String> client = client(fleet, RouterSpec.of("ketama"), options, BoundedOptions.disabled());
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS);
      CacheAsideLoad.Counts start = load.counts();
      client.updatePlacement(settings("shardwise.router", "maglev")).join();
      CacheFleet.sleep(3_000); // past the warm-up: moved keys are written on their Maglev servers only
      load.over(WINDOW_READS);
      TopologyChange back = client.updatePlacement(settings("shardwise.router", "ketama")).join();
      load.over(3 * WINDOW_READS);
      CacheAsideLoad.Counts run = load.counts().minus(start);
      load.stop();
      System.out.printf(
          "PLACEMENT %s ketama -> maglev, back after the warm-up (%s): %d reads, hit rate %.4f, errors %d, stale %d, wrong %d%n",
          fleet, back, run.reads(), run.hitRate(), run.errors(), run.stale(), run.wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    }
  }

  @Test
  void aBadPlacementIsRefusedAndTheOldOneServesOnWithoutAnError() {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    try (AsyncCacheClient<String> client =
            client(fleet, RouterSpec.of("ketama"), options(Duration.ZERO, Duration.ofSeconds(60)), BoundedOptions.disabled());
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS / 4);
      CacheAsideLoad.Counts start = load.counts();
      String weighted = fleet.serverList(5).replaceFirst(",", ":2,");
      List<String> messages = new ArrayList<>();
      for (Map<String, String> bad :
          List.of(
              settings("shardwise.router", "fastest"),
              settings("shardwise.router", "jump", "shardwise.servers", weighted),
              settings("shardwise.router", "maglev", "shardwise.maglev.table-size", "3"))) {
        assertThatThrownBy(() -> client.updatePlacement(bad).join())
            .isInstanceOf(CompletionException.class)
            .hasCauseInstanceOf(IllegalArgumentException.class)
            .satisfies(e -> messages.add(e.getCause().getMessage()));
      }
      CacheAsideLoad.Counts run = load.over(WINDOW_READS / 2);
      load.stop();
      System.out.printf(
          "PLACEMENT memcached bad placements refused: %s; then %d reads, hit rate %.4f, errors %d%n",
          messages.stream().map(m -> "'" + m + "'").collect(Collectors.joining(", ")), run.reads(), run.hitRate(),
          load.counts().minus(start).errors());
      assertThat(messages.get(0)).contains("shardwise.router: 'fastest' is not allowed");
      assertThat(messages.get(1)).contains("jump cannot route these servers");
      assertThat(messages.get(2)).contains("maglev cannot route these servers");
      assertThat(client.topologyStatus().lastChange()).isNull();
      assertThat(run.hitRate()).isEqualTo(1.0);
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    }
  }

}
