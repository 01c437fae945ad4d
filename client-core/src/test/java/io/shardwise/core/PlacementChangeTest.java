package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyChange;
import io.shardwise.client.TopologyStatus;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Changes of the placement itself (router, its mode and parameters, hash tag) while the client
 * serves, on simulated servers whose data outlives the client's connections: the moved keys settle
 * and warm up as in a server-list change, a change and its reversal read no old value, and a bad
 * placement is refused with the old one still serving.
 */
class PlacementChangeTest {

  private static final String FIVE = "a:1,b:2,c:3,d:4,e:5";
  private static final String SPY_DEFAULT = "spymemcached:array_mod:native_hash";
  private static final Duration SETTLE = Duration.ofMillis(150);
  private static final Duration WARM = Duration.ofMillis(600);

  private final SimulatedFleet fleet = new SimulatedFleet();
  private final List<AsyncCacheClient<String>> clients = new ArrayList<>();

  @AfterEach
  void close() {
    clients.forEach(AsyncCacheClient::close);
    fleet.close();
  }

  private AsyncCacheClient<String> client(RouterSpec router, Duration settle, Duration warmUp, BoundedOptions bounded) {
    AsyncCacheClient<String> c =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers(FIVE)
            .router(router)
            .bounded(bounded)
            // No server here fails: a timeout only measures this process's own stalls (a read timed
            // out at 200 ms while another build shared the 2 cores).
            .timeout(Duration.ofSeconds(2))
            .topology(
                TopologyOptions.defaults().withSettle(settle).withWarmUp(warmUp).withConnectWait(Duration.ofMillis(100)))
            .codec(Codecs.utf8())
            .build();
    clients.add(c);
    return c;
  }

  private AsyncCacheClient<String> client(RouterSpec router) {
    return client(router, SETTLE, WARM, BoundedOptions.disabled());
  }

  private static TopologyChange update(AsyncCacheClient<String> client, String... keysAndValues) {
    return client.updatePlacement(settings(keysAndValues)).join();
  }

  private static Map<String, String> settings(String... keysAndValues) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      out.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return out;
  }

  private static List<String> keys(int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add("k" + i);
    }
    return keys;
  }

  private static void writeAll(AsyncCacheClient<String> client, List<String> keys, String value) {
    for (String key : keys) {
      client.sync().set(key, value, Duration.ZERO);
    }
  }

  private static int hits(AsyncCacheClient<String> client, List<String> keys, String value) {
    int hits = 0;
    for (String key : keys) {
      String got = client.sync().get(key);
      assertThat(got).as(key).isIn(value, null);
      hits += got == null ? 0 : 1;
    }
    return hits;
  }

  @Test
  void fromSpymemcachedsModuloPlacementToKetamaFourKeysInFiveMoveAndEveryOneIsStillRead() throws Exception {
    // A warm-up long enough for 2,000 reads one after the other on a loaded machine (1,737 of them
    // fitted in 600 ms at load 10): every moved key is read, and so copied, while warming.
    AsyncCacheClient<String> client =
        client(RouterSpec.of("compat").withCompatMode(SPY_DEFAULT), SETTLE, Duration.ofSeconds(3), BoundedOptions.disabled());
    List<String> keys = keys(2000);
    writeAll(client, keys, "v");
    Map<String, Node> before = new java.util.HashMap<>();
    keys.forEach(k -> before.put(k, client.nodeFor(k)));

    TopologyChange change =
        update(client, "shardwise.router", "ketama", "shardwise.ketama.compatibility", "spymemcached");

    assertThat(change.placementBefore()).isEqualTo("compat(" + SPY_DEFAULT + ")");
    assertThat(change.placementAfter()).isEqualTo("ketama(spymemcached)");
    assertThat(change.movedShare()).isBetween(0.75, 0.85); // 1 - 1/5: the placements are unrelated
    assertThat(change.added()).isEmpty();
    assertThat(change.removed()).isEmpty();
    assertThat(change.toString()).startsWith("compat(" + SPY_DEFAULT + ") -> ketama(spymemcached), 5 -> 5 nodes");
    long moved = keys.stream().filter(k -> !client.nodeFor(k).equals(before.get(k))).count();
    assertThat(moved / 2000.0).isBetween(0.75, 0.85);
    // Settling: every key still read where it was; then warming: read on the previous owner, copied.
    assertThat(client.topologyStatus().phase()).isEqualTo(TopologyStatus.Phase.SETTLING);
    assertThat(hits(client, keys, "v")).isEqualTo(2000);
    until(() -> client.topologyStatus().phase() == TopologyStatus.Phase.WARMING);
    Thread.sleep(SETTLE.toMillis() + 20); // copies start one settle into warming
    assertThat(hits(client, keys, "v")).isEqualTo(2000);
    until(() -> client.topologyStatus().warmUpCopies() >= moved);
    until(() -> client.topologyStatus().phase() == TopologyStatus.Phase.STABLE);
    assertThat(hits(client, keys, "v")).as("after the warm-up, from the copies").isEqualTo(2000);
    assertThat(client.toString()).contains("ketama(spymemcached)");
  }

  @Test
  void withoutWarmUpTheMovedKeysMiss() {
    AsyncCacheClient<String> client =
        client(RouterSpec.of("compat").withCompatMode(SPY_DEFAULT), Duration.ZERO, Duration.ZERO, BoundedOptions.disabled());
    List<String> keys = keys(1000);
    writeAll(client, keys, "v");
    TopologyChange change = update(client, "shardwise.router", "ketama");
    assertThat(change.warmUp()).isZero();
    assertThat(hits(client, keys, "v")).isBetween(150, 250);
  }

  @Test
  void keysNotNamedKeepTheirValuesAndKeysThatStayCostNoRead() {
    AsyncCacheClient<String> client = client(RouterSpec.of("ketama").withKetamaCompatibility("spymemcached"));
    TopologyChange change = update(client, "shardwise.hash-tag", "{}");
    assertThat(change.placementAfter()).isEqualTo("ketama(spymemcached), hash tag {}");
    // The same placement again: nothing moves, nothing is taken over.
    TopologyChange again = update(client, "shardwise.hash-tag", "{}", "shardwise.servers", FIVE);
    assertThat(again.isEmpty()).isTrue();
    assertThat(again.movedShare()).isZero();
    // A server list given as a placement key is a server-list change.
    TopologyChange six = update(client, "shardwise.servers", FIVE + ",f:6");
    assertThat(six.added()).containsExactly(Node.of("f", 6));
    assertThat(six.placementChanged()).isFalse();
    assertThat(six.movedShare()).isBetween(0.08, 0.26);
    assertThat(client.nodes()).hasSize(6);
  }

  @Test
  void aChangeOfTheReplicaCountCountsTheKeysWhoseReplicaSetChanged() {
    AsyncCacheClient<String> client = client(RouterSpec.of("ketama"));
    // Every key keeps its primary and gains a second server, then loses it again.
    TopologyChange grow = update(client, "shardwise.replicas", "2");
    assertThat(grow.placementAfter()).isEqualTo("ketama(libketama), replicas 2");
    assertThat(grow.movedShare()).isEqualTo(1.0);
    assertThat(grow.toString()).endsWith("100.0% of keys move");
    TopologyChange shrink = update(client, "shardwise.replicas", "1");
    assertThat(shrink.movedShare()).isEqualTo(1.0);
    // One replica: the share is that of the keys whose server changed, as before.
    TopologyChange six = update(client, "shardwise.servers", FIVE + ",f:6");
    assertThat(six.movedShare()).isBetween(0.08, 0.26);
  }

  @Test
  void aRouterChangeAndItsReversalAfterTheWarmUpReadNoOldValue() throws Exception {
    AsyncCacheClient<String> client = client(RouterSpec.of("ketama"), Duration.ofMillis(50), Duration.ofMillis(200), BoundedOptions.disabled());
    List<String> keys = keys(400);
    writeAll(client, keys, "v1");
    update(client, "shardwise.router", "maglev");
    Thread.sleep(400); // settled and warmed up: moved keys live on their maglev owners
    writeAll(client, keys, "v2");
    update(client, "shardwise.router", "ketama");
    for (int round = 0; round < 3; round++) { // settling, warming, after
      hits(client, keys, "v2");
      assertThat(client.sync().getMulti(keys).values().values()).doesNotContain("v1");
      Thread.sleep(150);
    }
    assertThat(client.topologyStatus().phase()).isEqualTo(TopologyStatus.Phase.STABLE);
    hits(client, keys, "v2");
  }

  @Test
  void aHashTagChangeMovesTheTaggedKeysAndKeepsThemReadable() throws Exception {
    AsyncCacheClient<String> client = client(RouterSpec.of("ketama"));
    List<String> keys = new ArrayList<>();
    for (int user = 0; user < 200; user++) {
      for (String part : List.of("profile", "cart", "prefs")) {
        keys.add("{user:" + user + "}:" + part);
      }
    }
    writeAll(client, keys, "v");
    TopologyChange change = update(client, "shardwise.hash-tag", "{}");
    assertThat(change.movedShare()).isBetween(0.7, 0.9);
    assertThat(hits(client, keys, "v")).isEqualTo(keys.size());
    until(() -> client.topologyStatus().phase() == TopologyStatus.Phase.WARMING);
    assertThat(hits(client, keys, "v")).isEqualTo(keys.size());
    for (int user = 0; user < 200; user++) {
      assertThat(client.nodeFor("{user:" + user + "}:cart")).isEqualTo(client.nodeFor("{user:" + user + "}:profile"));
    }
    // A write while warming lands where the tag places the key, and the old copy is not read back.
    writeAll(client, keys, "v2");
    until(() -> client.topologyStatus().phase() == TopologyStatus.Phase.STABLE);
    update(client, "shardwise.hash-tag", "none");
    assertThat(hits(client, keys, "v2")).isEqualTo(keys.size());
  }

  @Test
  void underLoadRouterChangesReadNoStaleValue() throws Exception {
    AsyncCacheClient<String> client = client(RouterSpec.of("ketama"), Duration.ofMillis(30), Duration.ofMillis(150), BoundedOptions.disabled());
    VersionedLoad load =
        new VersionedLoad(client.sync(), "p:", 2000, 6, new VersionedLoad.Mix(40, 8, 30, 8, 6, 4, 4)).start(7);
    for (String router : List.of("maglev", "hrw", "ketama", "maglev", "ketama")) {
      update(client, "shardwise.router", router);
      Thread.sleep(120);
    }
    update(client, "shardwise.hash-tag", "{}");
    Thread.sleep(300);
    VersionedLoad.Outcome done = load.stop();
    assertThat(done.reads()).isGreaterThan(1000);
    assertThat(done.wrong()).isZero();
    assertThat(done.stale()).as("stale reads, e.g. %s", done.examples()).isZero();
  }

  @Test
  void boundedLoadsFollowTheNewRouter() throws Exception {
    BoundedOptions bounded =
        BoundedOptions.builder().enabled(true).epsilon(0.25).scope(BoundedOptions.Scope.ALL).build();
    AsyncCacheClient<String> client = client(RouterSpec.of("hrw"), Duration.ofMillis(30), Duration.ofMillis(150), bounded);
    VersionedLoad load =
        new VersionedLoad(client.sync(), "b:", 500, 6, new VersionedLoad.Mix(60, 5, 20, 5, 5, 3, 2)).start(11);
    Thread.sleep(150);
    TopologyChange change = update(client, "shardwise.router", "ketama");
    assertThat(change.placementBefore()).isEqualTo("hrw");
    Thread.sleep(400);
    VersionedLoad.Outcome done = load.stop();
    assertThat(done.wrong()).isZero();
    assertThat(done.stale()).as("stale reads, e.g. %s", done.examples()).isZero();
    assertThat(client.loadReport().enabled()).isTrue();
    assertThat(client.loadReport().total()).isPositive();
  }

  @Test
  void underLoadBoundedLoadsTurnedOnOffAndRetunedWithTheRouterReadNoStaleValue() throws Exception {
    AsyncCacheClient<String> client =
        client(RouterSpec.of("hrw"), Duration.ofMillis(30), Duration.ofMillis(150), BoundedOptions.disabled());
    VersionedLoad load =
        new VersionedLoad(client.sync(), "t:", 300, 6, new VersionedLoad.Mix(60, 5, 20, 5, 5, 3, 2)).start(13);
    List<String[]> changes =
        List.of(
            new String[] {"shardwise.bounded.enabled", "true", "shardwise.bounded.scope", "all"},
            new String[] {"shardwise.bounded.epsilon", "0.05"},
            new String[] {"shardwise.bounded.enabled", "false"},
            new String[] {"shardwise.router", "ketama", "shardwise.bounded.enabled", "true", "shardwise.bounded.epsilon", "0.25"},
            new String[] {"shardwise.bounded.enabled", "false"},
            new String[] {"shardwise.bounded.enabled", "true"},
            new String[] {"shardwise.bounded.probe-limit", "2", "shardwise.bounded.window", "500ms"});
    for (String[] change : changes) {
      Thread.sleep(150);
      update(client, change);
    }
    Thread.sleep(300);
    VersionedLoad.Outcome done = load.stop();
    assertThat(done.reads()).isGreaterThan(1000);
    assertThat(done.wrong()).isZero();
    assertThat(done.stale()).as("stale reads, e.g. %s", done.examples()).isZero();
    assertThat(client.loadReport().enabled()).isTrue();
  }

  @Test
  void aBadPlacementIsRefusedNamingTheKeyAndTheOldOneKeepsServing() {
    AsyncCacheClient<String> client = client(RouterSpec.of("ketama"));
    writeAll(client, keys(100), "v");
    Map<Map<String, String>, String> refused = new java.util.LinkedHashMap<>();
    refused.put(settings("shardwise.router", "fastest"), "shardwise.router: 'fastest' is not allowed");
    refused.put(settings("shardwise.router", "jump", "shardwise.servers", "a:1:2,b:2,c:3"), "jump cannot route these servers");
    refused.put(settings("shardwise.router", "maglev", "shardwise.maglev.table-size", "3"), "shardwise.router: maglev cannot route these servers");
    refused.put(settings("shardwise.router", "maglev", "shardwise.maglev.table-size", "4"), "shardwise.maglev.table-size: must be a prime");
    refused.put(settings("shardwise.maglev.table-size", "5003"), "applies to router maglev only, but shardwise.router is ketama");
    refused.put(settings("shardwise.hash-tag", "{{"), "shardwise.hash-tag: '{{' is not allowed");
    refused.put(settings("shardwise.replicas", "9"), "shardwise.replicas: must be at most the number of servers");
    refused.put(settings("shardwise.replicas", "0"), "shardwise.replicas:");
    refused.put(settings("shardwise.timeout", "1s"), "shardwise.timeout: is not a placement key");
    refused.put(settings("shardwise.routr", "hrw"), "unknown key shardwise.routr (did you mean shardwise.router?)");
    refused.put(settings("router", "hrw"), "router: is not a placement key");
    refused.put(settings("shardwise.servers", "a:1,,b:2"), "shardwise.servers:");
    refused.forEach(
        (bad, message) ->
            assertThatThrownBy(() -> client.updatePlacement(bad).join())
                .as("%s", bad)
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .cause()
                .hasMessageContaining(message));
    assertThat(client.topologyStatus().lastChange()).isNull();
    assertThat(client.toString()).contains("ketama(libketama)");
    assertThat(hits(client, keys(100), "v")).isEqualTo(100);
  }

  @Test
  void aRouterBuiltByTheApplicationIsKeptUnlessTheRouterIsNamed() {
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers(FIVE)
            .router(nodes -> RouterSpec.of("hrw").build(nodes))
            .timeout(Duration.ofMillis(200))
            .codec(Codecs.utf8())
            .build();
    clients.add(client);
    assertThatThrownBy(() -> client.updatePlacement(settings("shardwise.maglev.table-size", "5003")).join())
        .cause()
        .hasMessageContaining("shardwise.maglev.table-size: needs shardwise.router too");
    assertThat(update(client, "shardwise.hash-tag", "{}").placementAfter()).isEqualTo("custom, hash tag {}");
    assertThat(update(client, "shardwise.router", "maglev").placementAfter()).isEqualTo("maglev(M=65537), hash tag {}");
  }

  @Test
  void theBlockingViewChangesThePlacementAndTheServersAndThrowsARefusal() {
    AsyncCacheClient<String> async = client(RouterSpec.of("ketama"));
    CacheClient<String> client = async.sync();
    writeAll(async, keys(200), "v");

    TopologyChange change = client.updatePlacement(settings("shardwise.router", "maglev"));

    assertThat(change.placementBefore()).isEqualTo("ketama(libketama)");
    assertThat(change.placementAfter()).isEqualTo("maglev(M=65537)");
    assertThat(client.topologyStatus().lastChange()).isSameAs(change);
    assertThat(hits(async, keys(200), "v")).isEqualTo(200);
    assertThatThrownBy(() -> client.updatePlacement(settings("shardwise.router", "fastest")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("placement change refused, the placement in force stays")
        .hasMessageContaining("shardwise.router: 'fastest' is not allowed");
    assertThatThrownBy(() -> client.updateServers(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("refused, the current list stays in force");
    TopologyChange six = client.updateServers(ServerList.parse(FIVE + ",f:6"));
    assertThat(six.added()).containsExactly(Node.of("f", 6));
    assertThat(six.placementAfter()).isEqualTo("maglev(M=65537)");
    assertThat(client.nodes()).hasSize(6);
    assertThat(hits(async, keys(200), "v")).isEqualTo(200);
  }

  @Test
  void updateServersFollowsAPlacementChangeAskedForBeforeIt() {
    AsyncCacheClient<String> client = client(RouterSpec.of("ketama"));
    var placement = client.updatePlacement(settings("shardwise.router", "hrw"));
    TopologyChange servers = client.updateServers(ServerList.parse(FIVE + ",f:6")).join();
    assertThat(placement.join().placementAfter()).isEqualTo("hrw");
    assertThat(servers.placementBefore()).isEqualTo("hrw");
    assertThat(servers.placementAfter()).isEqualTo("hrw");
  }

  private static void until(BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(10);
    }
  }
}
