package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.NearCacheStats;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.client.NodeState;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The near cache in the client, over in-memory nodes: what answers a get, and what drops what it kept. */
class NearCacheClientTest {

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private AsyncCacheClient<String> client;
  private CacheClient<String> sync;

  private void build(NearCacheOptions near) {
    client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(200))
            .failover(FailoverOptions.builder().probeInterval(Duration.ofMillis(20)).maxProbeInterval(Duration.ofMillis(50)).build())
            .codec(Codecs.utf8())
            .nearCache(near)
            .build();
    sync = client.sync();
  }

  private static NearCacheOptions everyKey() {
    return NearCacheOptions.defaults().withHotOnly(false).withMaxStaleness(Duration.ofMinutes(1));
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  private InMemoryBackend.Store store(String key) {
    return backend.store(client.nodeFor(key));
  }

  /** Another client writes {@code key} on its server. */
  private void writtenElsewhere(String key, String value) {
    store(key).data.put(key, CachedValue.of(value.getBytes(StandardCharsets.UTF_8), 0));
  }

  @Test
  void aKeyReadOnceIsAnsweredWithoutARequestUntilThisClientWritesIt() {
    build(everyKey());
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    int gets = store("k").gets.get();
    writtenElsewhere("k", "by another client");
    assertThat(sync.get("k")).as("kept here").isEqualTo("v1");
    assertThat(store("k").gets.get()).as("no request").isEqualTo(gets);

    for (Runnable write :
        List.<Runnable>of(
            () -> sync.set("k", "9", Duration.ZERO),
            () -> sync.touch("k", Duration.ofMinutes(5)),
            () -> sync.add("k", "not stored", Duration.ZERO),
            () -> sync.setMulti(Map.of("k", "8"), Duration.ZERO),
            () -> sync.delete("k"),
            () -> sync.incr("k", 1, 7, Duration.ZERO),
            () -> sync.deleteMulti(List.of("k")))) {
      sync.set("k", "1", Duration.ZERO);
      assertThat(sync.get("k")).isEqualTo("1");
      writtenElsewhere("k", "5");
      assertThat(sync.get("k")).as("kept").isEqualTo("1");
      write.run();
      CachedValue stored = store("k").data.get("k");
      String server = stored == null ? null : new String(stored.bytes(), StandardCharsets.UTF_8);
      assertThat(sync.get("k")).as("read from the server after a write of this client").isEqualTo(server);
    }
  }

  @Test
  void aGetMultiAnswersTheKeptKeysHereAndReadsOnlyTheOthers() throws Exception {
    build(everyKey());
    List<String> keys = List.of("m1", "m2", "m3", "m4", "m5", "m6");
    for (String key : keys) {
      sync.set(key, "v-" + key, Duration.ZERO);
    }
    assertThat(sync.get("m2")).isEqualTo("v-m2");
    assertThat(client.getMulti(List.of("m4")).get().values()).containsExactly(Map.entry("m4", "v-m4"));
    writtenElsewhere("m2", "other");
    writtenElsewhere("m4", "other");
    writtenElsewhere("m5", "other");
    int requests = keysAsked();

    io.shardwise.client.MultiResult<String> first = sync.getMulti(List.of("m6", "m2", "missing", "m4", "m5"));
    assertThat(first.values().keySet()).as("the caller's order").containsExactly("m6", "m2", "m4", "m5");
    assertThat(first.values()).containsEntry("m2", "v-m2").containsEntry("m4", "v-m4").as("kept here").containsEntry("m5", "other").containsEntry("m6", "v-m6");
    assertThat(first.misses()).containsExactly("missing");
    assertThat(keysAsked() - requests).as("keys read on the servers: m6, missing and m5, not the two kept").isEqualTo(3);

    writtenElsewhere("m5", "again");
    writtenElsewhere("m6", "again");
    requests = keysAsked();
    assertThat(sync.getMulti(List.of("m2", "m4", "m5", "m6")).values())
        .as("every key kept now: no request")
        .containsExactly(Map.entry("m2", "v-m2"), Map.entry("m4", "v-m4"), Map.entry("m5", "other"), Map.entry("m6", "v-m6"));
    assertThat(keysAsked()).isEqualTo(requests);

    sync.deleteMulti(List.of("m2", "m5"));
    assertThat(client.getMulti(List.of("m2", "m4", "m5")).get().values()).as("the deleted keys read again").containsExactly(Map.entry("m4", "v-m4"));
  }

  @Test
  void aWriteThatFailsDropsTheEntryToo() {
    build(everyKey());
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    store("k").failNext.set(1);
    assertThatThrownBy(() -> sync.set("k", "v2", Duration.ZERO)).isInstanceOf(RuntimeException.class);
    writtenElsewhere("k", "landed late");
    assertThat(sync.get("k")).as("the outcome was unknown: read again").isEqualTo("landed late");
  }

  @Test
  void anEntryServedAgainInTheSecondHalfOfItsLifeIsReadAgainInTheBackgroundWhileStillServed() throws Exception {
    Duration bound = Duration.ofSeconds(3);
    build(everyKey().withMaxStaleness(bound));
    sync.set("k", "v1", Duration.ZERO);
    sync.set("gone", "g1", Duration.ZERO);
    long before = System.nanoTime(); // the entries are kept after this
    for (int i = 0; i < 2; i++) { // read, then served here: served again later, each is refreshed
      assertThat(sync.get("k")).isEqualTo("v1");
      assertThat(sync.get("gone")).isEqualTo("g1");
    }
    writtenElsewhere("k", "v2");
    store("gone").data.remove("gone"); // another client deleted it
    Thread.sleep(bound.toMillis() / 2 + 100);
    long misses = client.nearCacheStats().misses();
    String served = sync.get("k");
    String servedGone = sync.get("gone");
    long age = System.nanoTime() - before;
    assumeTrue(age < bound.toNanos(), "this process stalled past the bound (" + age / 1_000_000 + " ms): the entries expired");
    assertThat(served).as("served while its refresh is under way").isEqualTo("v1");
    assertThat(servedGone).isEqualTo("g1");
    assertThat(client.nearCacheStats().misses()).isEqualTo(misses);

    InMemoryClients.await(() -> "v2".equals(sync.get("k")));
    long waited = System.nanoTime() - before;
    assumeTrue(waited < bound.toNanos(), "this process stalled past the bound (" + waited / 1_000_000 + " ms): the entry expired");
    assertThat(client.nearCacheStats().misses()).as("the new value came without a get waiting for it").isEqualTo(misses);
    assertThat(client.nearCacheStats().refreshes()).isEqualTo(2);
    InMemoryClients.await(() -> client.nearCacheStats().invalidations("server") == 1);
    assertThat(sync.get("gone")).as("the refresh found it gone: dropped before its bound").isNull();
  }

  @Test
  void anEntryLivesAtMostMaxStaleness() throws Exception {
    build(everyKey().withMaxStaleness(Duration.ofMillis(100)));
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    writtenElsewhere("k", "v2");
    InMemoryClients.await(() -> "v2".equals(sync.get("k")));
  }

  @Test
  void anEjectionAndAReadmissionDropEverythingAndAChangeOfServersTheKeysThatMove() throws Exception {
    build(everyKey());
    Node a = client.nodes().get(0);
    String onB = keyOff(a);
    sync.set(onB, "v1", Duration.ZERO);
    assertThat(sync.get(onB)).isEqualTo("v1");
    writtenElsewhere(onB, "v2");
    assertThat(sync.get(onB)).isEqualTo("v1");

    InMemoryClients.eject(client, backend, a);
    assertThat(sync.get(onB)).as("dropped at the ejection").isEqualTo("v2");
    writtenElsewhere(onB, "v3");
    assertThat(sync.get(onB)).isEqualTo("v2");
    backend.store(a).failWith = null;
    InMemoryClients.await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    assertThat(sync.get(onB)).as("dropped at the readmission").isEqualTo("v3");

    Node e = client.nodes().get(4);
    String onE = keyOn(e);
    sync.set(onE, "e1", Duration.ZERO);
    assertThat(sync.get(onE)).isEqualTo("e1");
    writtenElsewhere(onB, "v4");
    writtenElsewhere(onE, "e2");
    client.updateServers(client.nodes().subList(0, 4)).get(); // e leaves; onB stays where it is
    sweepDone();
    assertThat(sync.get(onB)).as("kept: its server did not change").isEqualTo("v3");
    InMemoryClients.await(() -> client.nearCacheStats().invalidations("change") == 1);
    assertThat(sync.get(onE)).as("dropped: it moved").isNotEqualTo("e1");
    NearCacheStats stats = client.nearCacheStats();
    assertThat(stats.dropAlls().get("node")).as("the ejection and the readmission").isGreaterThanOrEqualTo(2);
    assertThat(stats.dropAlls().get("change")).as("only the keys that moved were dropped").isZero();
    assertThat(stats.invalidations("write")).as("the first sets found nothing to drop").isZero();
    assertThat(stats.hits()).isEqualTo(3);
  }

  /**
   * Waits for the sweep of a change, on the common pool: until it carries an entry of a key that
   * stayed into the new epoch, the entry is not served, and a get would read the server.
   */
  private static void sweepDone() {
    assertThat(java.util.concurrent.ForkJoinPool.commonPool().awaitQuiescence(30, java.util.concurrent.TimeUnit.SECONDS))
        .as("the sweep ended").isTrue();
  }

  @Test
  void aChangeOfRouterDropsTheKeysThatMoveAndKeepsTheOthers() throws Exception {
    build(everyKey());
    List<String> keys = new java.util.ArrayList<>();
    for (int k = 0; k < 200; k++) {
      keys.add("r-" + k);
    }
    Map<String, Node> before = new java.util.HashMap<>();
    for (String key : keys) {
      sync.set(key, "v1", Duration.ZERO);
      assertThat(sync.get(key)).isEqualTo("v1");
      writtenElsewhere(key, "v2");
      before.put(key, client.nodeFor(key));
    }
    client.updatePlacement(Map.of("shardwise.router", "maglev")).get();
    int moved = 0;
    for (String key : keys) {
      if (!client.nodeFor(key).equals(before.get(key))) {
        moved++;
      }
    }
    int dropped = moved;
    InMemoryClients.await(() -> client.nearCacheStats().invalidations("change") == dropped);
    sweepDone();
    for (String key : keys) {
      if (client.nodeFor(key).equals(before.get(key))) {
        assertThat(sync.get(key)).as("%s kept: its server did not change", key).isEqualTo("v1");
      } else {
        assertThat(sync.get(key)).as("%s dropped: it moved", key).isNotEqualTo("v1");
      }
    }
    assertThat(moved).as("keys moved, and keys stayed").isBetween(1, keys.size() - 1);
  }

  @Test
  void aChangeWithAServerOutDropsEverything() throws Exception {
    build(everyKey());
    Node a = client.nodes().get(0);
    String onB = keyOff(a);
    sync.set(onB, "v1", Duration.ZERO);
    InMemoryClients.eject(client, backend, a);
    assertThat(sync.get(onB)).isEqualTo("v1");
    writtenElsewhere(onB, "v2");
    assertThat(sync.get(onB)).as("kept").isEqualTo("v1");
    // e leaves, and onB stays on its server; but with a out its reads went where the list sends them
    client.updateServers(client.nodes().subList(0, 4)).get();
    assertThat(sync.get(onB)).as("dropped").isEqualTo("v2");
    assertThat(client.nearCacheStats().dropAlls().get("change")).isEqualTo(1);
  }

  @Test
  void theLiveKeysChangeWhileServingWithoutDroppingTheEntriesAndTheOthersAreRefused() throws Exception {
    build(everyKey());
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    List<Node> before = client.nodes();
    TopologyChange change =
        client
            .updatePlacement(Map.of("shardwise.near-cache.max-bytes", "1MB", "shardwise.near-cache.max-staleness", "30s"))
            .get();
    assertThat(change.movedShare()).isZero();
    assertThat(change.after()).isEqualTo(before);
    writtenElsewhere("k", "v2");
    assertThat(sync.get("k")).as("kept: a change of the near cache alone drops nothing").isEqualTo("v1");
    assertThat(client.nearCacheStats().dropAlls().get("change")).isZero();

    assertThatThrownBy(() -> client.updatePlacement(Map.of("shardwise.near-cache.admit", "hot", "shardwise.router", "maglev")).get())
        .hasMessageContaining("placement change refused, the placement in force stays: ")
        .hasMessageContaining("shardwise.near-cache.admit: is read at start-up only; restart the client to apply it");
    assertThat(client.toString()).as("the router named with it is not applied either").contains("ketama");
    assertThatThrownBy(() -> client.updatePlacement(Map.of("shardwise.near-cache.max-staleness", "2m")).get())
        .hasMessageContaining("shardwise.near-cache.max-staleness: must be <= 1m with backend memcached");

    client.updatePlacement(Map.of("shardwise.near-cache.max-staleness", "100ms")).get();
    writtenElsewhere("k", "v3");
    InMemoryClients.await(() -> "v3".equals(sync.get("k"))); // the entry kept for 30 s goes after 100 ms

    client.updatePlacement(Map.of("shardwise.near-cache.max-bytes", "2MB", "shardwise.router", "maglev")).get();
    assertThat(client.toString()).contains("maglev");
    assertThat(client.nearCacheStats().dropAlls().get("change")).as("a new placement drops the keys that move").isZero();
  }

  @Test
  void nodeStatusSaysThatTheseServersAreNotTrackedAndWithoutANearCacheSaysOff() {
    build(everyKey());
    assertThat(client.nodeStatus().values())
        .allSatisfy(s -> assertThat(s.nearCache()).isEqualTo(NearCacheTracking.BOUNDED_STALENESS));
    client.close();
    build(NearCacheOptions.off());
    assertThat(client.nodeStatus().values()).allSatisfy(s -> assertThat(s.nearCache()).isEqualTo(NearCacheTracking.OFF));
    assertThat(client.nearCacheStats()).isEqualTo(NearCacheStats.OFF);
    assertThatThrownBy(() -> client.updatePlacement(Map.of("shardwise.near-cache.max-bytes", "1MB")).get())
        .hasMessageContaining("shardwise.near-cache.max-bytes: the near cache is off");
  }

  @Test
  void offByDefaultAndABoundTheServersWouldHaveToKeepIsRefused() {
    // The in-memory servers do not track reads, as memcached's do not: refused at build, before
    // anything is connected.
    assertThatThrownBy(() -> build(everyKey().withMaxStaleness(Duration.ofMinutes(2))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "near cache max staleness must be <= 1m with a backend whose servers do not invalidate (memcached) but was PT2M");
    assertThat(backend.stores).as("servers connected").isEmpty();
    assertThatThrownBy(() -> NearCacheOptions.defaults().withMaxEntries(10).withMaxBytes(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("exactly one bound");
    build(NearCacheOptions.off());
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    writtenElsewhere("k", "v2");
    assertThat(sync.get("k")).as("no near cache").isEqualTo("v2");
  }

  /** Keys asked for in gets and getMultis, on every server. */
  private int keysAsked() {
    return backend.stores.values().stream().mapToInt(s -> s.gets.get() + s.multiGetKeys.get()).sum();
  }

  /** A key on {@code node}. */
  private String keyOn(Node node) {
    for (int k = 0; ; k++) {
      String key = "on-" + k;
      if (client.nodeFor(key).equals(node)) {
        return key;
      }
    }
  }

  /** A key on neither {@code node} nor the last server. */
  private String keyOff(Node node) {
    Node last = client.nodes().get(client.nodes().size() - 1);
    for (int k = 0; ; k++) {
      String key = "key-" + k;
      if (!client.nodeFor(key).equals(node) && !client.nodeFor(key).equals(last)) {
        return key;
      }
    }
  }
}
