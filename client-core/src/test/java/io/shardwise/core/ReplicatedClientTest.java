package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Keys stored on N replicas ({@link ClientBuilder#replicas}) over in-memory nodes. */
class ReplicatedClientTest {

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private final Map<String, AtomicLong> counted = new ConcurrentHashMap<>();
  private final ClientMetrics metrics =
      new ClientMetrics() {
        @Override
        public void replicaRead(Node node, int rank) {
          counted.computeIfAbsent("read rank " + rank, k -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void replicaFailover(Node from, Node to, String reason) {
          counted.computeIfAbsent("failover " + reason, k -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void repaired(Node node, String cause) {
          counted.computeIfAbsent("repaired " + cause, k -> new AtomicLong()).incrementAndGet();
        }

        @Override
        public void cameBackEmpty(Node node, long missing) {
          counted.computeIfAbsent("emptied " + node.name(), k -> new AtomicLong()).addAndGet(missing);
        }
      };
  private ReplicaRepair repair = ReplicaRepair.defaults();
  private AsyncCacheClient<String> client;
  private CacheClient<String> sync;
  private Router router;

  private void build(int replicas, ReplicaReads reads) {
    client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(200))
            .failover(FailoverOptions.builder().probeInterval(Duration.ofMillis(20)).maxProbeInterval(Duration.ofMillis(50)).build())
            .metrics(metrics)
            .codec(Codecs.utf8())
            .replicas(replicas)
            .replicaReads(reads)
            .replicaRepair(repair)
            .build();
    sync = client.sync();
    router = RouterSpec.DEFAULT.build(client.nodes());
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  /** The replicas of {@code key}, primary first. */
  private List<Node> replicasOf(String key, int n) {
    int[] out = new int[n];
    int count = router.replicas(router.hasher().hash(key), n, out);
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      nodes.add(client.nodes().get(out[i]));
    }
    return nodes;
  }

  private InMemoryBackend.Store store(Node node) {
    return backend.store(node);
  }

  private int items() {
    int items = 0;
    for (Node n : client.nodes()) {
      items += store(n).data.size();
    }
    return items;
  }

  @Test
  void everyKeyIsStoredOnItsFirstNServersAndReadFromThem() {
    build(3, ReplicaReads.P2C);
    for (int i = 0; i < 500; i++) {
      sync.set("k" + i, "v" + i, Duration.ZERO);
    }
    assertThat(items()).isEqualTo(3 * 500);
    for (int i = 0; i < 500; i++) {
      String key = "k" + i;
      for (Node n : client.nodes()) {
        assertThat(store(n).data.containsKey(key)).as("%s on %s", key, n).isEqualTo(replicasOf(key, 3).contains(n));
      }
      assertThat(sync.get(key)).isEqualTo("v" + i);
    }
    // The power of two choices spreads the reads of a key over its replicas.
    assertThat(counted.get("read rank 0").get()).isBetween(100L, 400L);
    assertThat(counted.get("read rank 1").get() + counted.get("read rank 2").get()).isGreaterThan(100L);
    assertThat(sync.delete("k1")).isTrue();
    assertThat(items()).isEqualTo(3 * 499);
    assertThat(sync.get("k1")).isNull();
  }

  @Test
  void thePrimaryPolicyReadsThePrimaryFirst() {
    build(2, ReplicaReads.PRIMARY);
    for (int i = 0; i < 100; i++) {
      sync.set("k" + i, "v" + i, Duration.ZERO);
      assertThat(sync.get("k" + i)).isEqualTo("v" + i);
    }
    assertThat(counted.get("read rank 0").get()).isEqualTo(100);
    assertThat(counted).doesNotContainKey("read rank 1");
  }

  @Test
  void aReadThatMissesOrFailsOnOneReplicaGoesOnToTheNext() {
    build(2, ReplicaReads.PRIMARY);
    sync.set("gone", "v", Duration.ZERO);
    List<Node> replicas = replicasOf("gone", 2);
    store(replicas.get(0)).data.remove("gone"); // evicted there
    assertThat(sync.get("gone")).isEqualTo("v");
    assertThat(counted.get("failover miss").get()).isEqualTo(1);
    store(replicas.get(0)).failNext.set(1);
    assertThat(sync.get("gone")).isEqualTo("v");
    assertThat(counted.get("failover error").get()).isEqualTo(1);
    assertThat(sync.get("never-written")).isNull();
  }

  private String value(Node node, String key) {
    io.shardwise.client.CachedValue v = store(node).data.get(key);
    return v == null ? null : new String(v.bytes(), java.nio.charset.StandardCharsets.UTF_8);
  }

  private long count(String what) {
    AtomicLong n = counted.get(what);
    return n == null ? 0 : n.get();
  }

  @Test
  void aReadThatMissesOnAReplicaAndHitsOnAnotherWritesTheValueBack() throws Exception {
    build(2, ReplicaReads.PRIMARY);
    sync.set("lost", "v", Duration.ofMinutes(5));
    sync.set("kept", "w", Duration.ZERO);
    Node primary = replicasOf("lost", 2).get(0);
    store(primary).data.remove("lost"); // the primary restarted empty, say
    assertThat(sync.get("lost")).isEqualTo("v");
    InMemoryClients.await(() -> "v".equals(value(primary, "lost")));
    assertThat(store(primary).ttls.get("lost")).as("the warm-up copy TTL: the original's is unknown here").isEqualTo(Duration.ofSeconds(60));
    assertThat(count("repaired read")).isEqualTo(1);
    // getMulti repairs as well, in its rounds
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      sync.set("g" + i, "v" + i, Duration.ZERO);
      keys.add("g" + i);
      store(replicasOf("g" + i, 2).get(0)).data.remove("g" + i);
    }
    assertThat(sync.getMulti(keys).values()).hasSize(50);
    InMemoryClients.await(() -> keys.stream().allMatch(k -> value(replicasOf(k, 2).get(0), k) != null));
    assertThat(count("repaired read")).isEqualTo(51);
  }

  @Test
  void withRepairOffALostCopyComesBackOnlyWhenTheKeyIsWritten() throws Exception {
    repair = ReplicaRepair.off();
    build(2, ReplicaReads.PRIMARY);
    sync.set("lost", "v", Duration.ZERO);
    Node primary = replicasOf("lost", 2).get(0);
    store(primary).data.remove("lost");
    for (int i = 0; i < 10; i++) {
      assertThat(sync.get("lost")).isEqualTo("v");
    }
    Thread.sleep(100);
    assertThat(store(primary).data).doesNotContainKey("lost");
    assertThat(count("repaired read")).isZero();
  }

  @Test
  void aReplicaBackFromAnOutageGetsTheCurrentValuesOfTheKeysItMissed() throws Exception {
    build(2, ReplicaReads.PRIMARY);
    for (int i = 0; i < 200; i++) {
      sync.set("h" + i, "old", Duration.ZERO);
    }
    Node victim = client.nodes().get(2);
    InMemoryClients.eject(client, backend, victim);
    List<String> missed = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      sync.set("h" + i, "new", Duration.ZERO);
      if (replicasOf("h" + i, 2).contains(victim)) {
        missed.add("h" + i);
      }
    }
    store(victim).failWith = null;
    InMemoryClients.await(() -> client.nodeStates().get(victim) == NodeState.HEALTHY);
    // Deleted before it served, then handed the new values without a read of them.
    InMemoryClients.await(() -> missed.stream().allMatch(k -> "new".equals(value(victim, k))));
    assertThat(count("repaired handoff")).isEqualTo(missed.size());
    assertThat(count("repaired read")).isZero();
  }

  @Test
  void aReplicaWhoseWriteFailedGetsTheValueOnceItsOldCopyIsGone() throws Exception {
    build(2, ReplicaReads.P2C);
    sync.set("f", "old", Duration.ZERO);
    Node second = replicasOf("f", 2).get(1);
    store(second).failNext.set(1);
    sync.set("f", "new", Duration.ZERO); // the second's copy is marked old, deleted by the sweep
    InMemoryClients.await(() -> "new".equals(value(second, "f")));
    InMemoryClients.await(() -> count("repaired handoff") > 0); // counted once the copy landed
    assertThat(count("repaired handoff")).isEqualTo(1);
    assertThat(sync.get("f")).isEqualTo("new");
  }

  @Test
  void getMultiReadsEachKeyOnItsNextReplicaInAFewRounds() {
    build(3, ReplicaReads.PRIMARY);
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < 300; i++) {
      values.put("m" + i, "v" + i);
    }
    sync.setMulti(values, Duration.ZERO).valuesOrThrow();
    assertThat(items()).isEqualTo(900);
    // Evict a third of the keys from their primary and another third from their first two replicas.
    for (int i = 0; i < 300; i++) {
      String key = "m" + i;
      List<Node> replicas = replicasOf(key, 3);
      if (i % 3 >= 1) {
        store(replicas.get(0)).data.remove(key);
      }
      if (i % 3 == 2) {
        store(replicas.get(1)).data.remove(key);
      }
    }
    List<String> keys = new ArrayList<>(values.keySet());
    keys.add("absent");
    int before = multiGets();
    MultiResult<String> result = sync.getMulti(keys);
    assertThat(result.values()).isEqualTo(values);
    assertThat(result.misses()).containsExactly("absent");
    assertThat(multiGets() - before).as("requests: one per node and round, 3 rounds").isLessThanOrEqualTo(3 * 5);
    MultiResult<Boolean> deleted = sync.deleteMulti(keys);
    assertThat(deleted.errors()).isEmpty();
    assertThat(deleted.get("m0")).isTrue();
    assertThat(deleted.get("absent")).isFalse();
    assertThat(items()).isZero();
  }

  private int multiGets() {
    int n = 0;
    for (Node node : client.nodes()) {
      n += store(node).multiGets.get();
    }
    return n;
  }

  @Test
  void addDecidesOnTheFirstReplicaAndIncrCountsOnEveryReplica() {
    build(2, ReplicaReads.P2C);
    assertThat(sync.add("a", "1", Duration.ZERO)).isTrue();
    assertThat(sync.add("a", "2", Duration.ZERO)).isFalse();
    List<Node> replicas = replicasOf("a", 2);
    assertThat(store(replicas.get(0)).data).containsKey("a");
    assertThat(store(replicas.get(1)).data).doesNotContainKey("a");
    for (int i = 0; i < 20; i++) {
      assertThat(sync.get("a")).isEqualTo("1"); // a miss on the second goes on to the first
    }
    sync.set("c", "10", Duration.ZERO);
    assertThat(sync.incr("c", 5, 0, Duration.ZERO)).isEqualTo(15);
    List<Node> counter = replicasOf("c", 2);
    assertThat(value(counter.get(0), "c")).isEqualTo("15");
    assertThat(value(counter.get(1), "c")).as("counted on every replica").isEqualTo("15");
    for (int i = 0; i < 20; i++) {
      assertThat(sync.get("c")).isEqualTo("15");
    }
  }

  @Test
  void aCounterIsCreatedOnEveryReplicaAndAReplicaThatLostItDoesNotStartItAgain() throws Exception {
    build(2, ReplicaReads.PRIMARY);
    assertThat(sync.incr("n", 1, 100, Duration.ZERO)).as("created with the initial value").isEqualTo(100);
    List<Node> replicas = replicasOf("n", 2);
    assertThat(value(replicas.get(0), "n")).isEqualTo("100");
    assertThat(value(replicas.get(1), "n")).isEqualTo("100");
    store(replicas.get(0)).data.remove("n"); // the primary restarted empty
    assertThat(sync.incr("n", 1, 100, Duration.ZERO)).as("counted on the replica that holds it").isEqualTo(101);
    // Handed over, and the handoff done with it: a copy that lands, then sees an update under way
    // before it is done, is undone (it may hold that update already) and copied again later.
    InMemoryClients.await(
        () -> client.nodeStatus().get(replicas.get(0)).copiesToRepair() == 0 && "101".equals(value(replicas.get(0), "n")));
    assertThat(sync.decr("n", 2, 100, Duration.ZERO)).isEqualTo(99);
    assertThat(value(replicas.get(1), "n")).isEqualTo("99");
    // A replica that is out misses the increments; its copy is deleted before it serves, then the
    // count is handed back to it.
    Node first = replicas.get(0);
    InMemoryClients.eject(client, backend, first);
    for (int i = 0; i < 10; i++) {
      sync.incr("n", 1, 100, Duration.ZERO);
    }
    assertThat(value(first, "n")).as("missed while out").isEqualTo("99");
    store(first).failWith = null;
    InMemoryClients.await(() -> client.nodeStates().get(first) == NodeState.HEALTHY);
    InMemoryClients.await(() -> "109".equals(value(first, "n")));
    assertThat(sync.incr("n", 1, 100, Duration.ZERO)).isEqualTo(110);
    assertThat(value(replicas.get(1), "n")).isEqualTo("110");
  }

  /**
   * The replica that holds a counter goes out while the other waits for the count to be handed
   * back to it: an update then counts nowhere, and fails. It must not journal the key against the
   * holder, whose rejoin would delete the only copy (seen under load in CounterModelTest: a holder
   * ejected for timeouts lost its count).
   */
  @Test
  void anUpdateThatCanCountNowhereLeavesTheOnlyCopyOfTheCountAlone() throws Exception {
    build(2, ReplicaReads.PRIMARY);
    List<Node> replicas = replicasOf("n", 2);
    Node first = replicas.get(0);
    Node holder = replicas.get(1);
    assertThat(sync.incr("n", 1, 1, Duration.ZERO)).isEqualTo(1);
    InMemoryClients.eject(client, backend, first);
    for (int i = 0; i < 5; i++) {
      sync.incr("n", 1, 1, Duration.ZERO); // counted on the holder alone: journaled against first
    }
    assertThat(value(holder, "n")).isEqualTo("6");
    // The holder fails before first is back: first's copy is deleted when it rejoins, and the count
    // waits to be handed back to it from the holder.
    InMemoryClients.eject(client, backend, holder);
    store(first).failWith = null;
    InMemoryClients.await(() -> client.nodeStates().get(first) == NodeState.HEALTHY);
    assertThat(value(first, "n")).as("deleted on first before it served").isNull();
    for (int i = 0; i < 50; i++) { // the handoff waits for a source: one key, counted once throughout
      assertThat(client.nodeStatus().get(first).copiesToRepair()).as("check %d", i).isEqualTo(1);
      Thread.sleep(2);
    }

    assertThatThrownBy(() -> sync.incr("n", 1, 1, Duration.ZERO))
        .hasMessageContaining("it is not started again from its initial value");

    store(holder).failWith = null;
    InMemoryClients.await(() -> client.nodeStates().get(holder) == NodeState.HEALTHY);
    InMemoryClients.await(() -> "6".equals(value(first, "n")));
    assertThat(value(holder, "n")).as("the holder's count, kept through its rejoin").isEqualTo("6");
    assertThat(sync.incr("n", 1, 1, Duration.ZERO)).isEqualTo(7);
  }

  @Test
  void aRepairCopyThatLandsBeforeAnUpdateUnderWayIsUndoneNotCountedTwice() throws Exception {
    build(2, ReplicaReads.PRIMARY);
    List<Node> replicas = replicasOf("n", 2);
    Node first = replicas.get(0);
    Node holder = replicas.get(1);
    assertThat(sync.incr("n", 1, 1, Duration.ZERO)).isEqualTo(1);
    store(first).data.remove("n"); // evicted there
    // An update reaches the holder at once and first late; meanwhile a read misses on first and
    // repairs it with the holder's count, which holds the update already.
    store(first).incrDelayMillis = 300;
    CompletableFuture<Long> update = client.incr("n", 1, 1, Duration.ZERO);
    InMemoryClients.await(() -> "2".equals(value(holder, "n")));
    assertThat(sync.get("n")).isEqualTo("2");
    assertThat(update.get(5, TimeUnit.SECONDS)).isEqualTo(2);
    store(first).incrDelayMillis = 0;
    InMemoryClients.await(() -> client.nodeStatus().get(first).copiesToRepair() == 0 && "2".equals(value(first, "n")));
    Thread.sleep(100); // nothing more lands
    assertThat(value(first, "n")).as("the copy, the update not counted on it a second time").isEqualTo("2");
    assertThat(value(holder, "n")).isEqualTo("2");
  }

  @Test
  void multiKeyWritesWithAReplicaOutAreJournaledAgainstItAndItsOldValuesDeletedBeforeItServes() throws Exception {
    build(2, ReplicaReads.P2C);
    for (int i = 0; i < 200; i++) {
      sync.set("k" + i, "old", Duration.ZERO);
    }
    Node victim = client.nodes().get(2);
    InMemoryClients.eject(client, backend, victim);
    Map<String, String> values = new LinkedHashMap<>();
    List<String> deleted = new ArrayList<>();
    int onVictim = 0;
    for (int i = 0; i < 200; i++) {
      if (i % 2 == 0) {
        values.put("k" + i, "new");
      } else {
        deleted.add("k" + i);
      }
      onVictim += replicasOf("k" + i, 2).contains(victim) ? 1 : 0;
    }
    assertThat(sync.setMulti(values, Duration.ZERO).errors()).isEmpty();
    assertThat(sync.deleteMulti(deleted).errors()).isEmpty();
    assertThat(client.nodeStatus().get(victim).journaledKeys()).as("keys written while their replica was out").isEqualTo(onVictim);
    store(victim).failWith = null; // back, still holding "old"
    InMemoryClients.await(() -> client.nodeStates().get(victim) == NodeState.HEALTHY);
    assertThat(store(victim).data.values()).as("old values left on the victim").noneMatch(v -> "old".equals(new String(v.bytes(), java.nio.charset.StandardCharsets.UTF_8)));
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 200; i++) {
        assertThat(sync.get("k" + i)).as("k%d after readmission", i).isEqualTo(i % 2 == 0 ? "new" : null);
      }
    }
  }

  @Test
  void aReplicaWhoseBatchFailedForAKeyHasItsCopyMarkedAndNeverServesItsOldValue() throws Exception {
    build(2, ReplicaReads.PRIMARY);
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      sync.set("k" + i, "old", Duration.ZERO);
      values.put("k" + i, "new");
    }
    Node failing = client.nodes().get(1);
    store(failing).failInBatch = key -> true; // its part of every batch fails, the node answers
    MultiResult<Boolean> written = sync.setMulti(values, Duration.ZERO);
    assertThat(written.errors()).as("written on the other replica, the failed copy marked").isEmpty();
    int primaryThere = 0;
    for (int i = 0; i < 100; i++) {
      primaryThere += replicasOf("k" + i, 2).get(0).equals(failing) ? 1 : 0;
      assertThat(sync.get("k" + i)).as("k%d, read on its primary first", i).isEqualTo("new");
    }
    assertThat(primaryThere).as("keys whose primary copy failed").isPositive();
  }

  @Test
  void losingAReplicaLosesNoHitAndItsOldValuesAreDeletedBeforeItServes() throws Exception {
    build(2, ReplicaReads.P2C);
    for (int i = 0; i < 200; i++) {
      sync.set("k" + i, "old", Duration.ZERO);
    }
    Node victim = client.nodes().get(2);
    InMemoryClients.eject(client, backend, victim);
    for (int i = 0; i < 200; i++) {
      assertThat(sync.get("k" + i)).as("k%d with a replica out", i).isEqualTo("old");
    }
    int onVictim = 0;
    for (int i = 0; i < 200; i++) {
      sync.set("k" + i, "new", Duration.ZERO);
      onVictim += replicasOf("k" + i, 2).contains(victim) ? 1 : 0;
    }
    NodeStatus status = client.nodeStatus().get(victim);
    assertThat(status.journaledKeys()).as("keys written while its replica was out").isEqualTo(onVictim);
    store(victim).failWith = null; // back, still holding "old"
    InMemoryClients.await(() -> client.nodeStates().get(victim) == NodeState.HEALTHY);
    for (int round = 0; round < 5; round++) {
      for (int i = 0; i < 200; i++) {
        assertThat(sync.get("k" + i)).as("k%d after readmission", i).isEqualTo("new");
      }
    }
  }

  @Test
  void aReplicaWhoseWriteFailedIsNotReadUntilItsCopyIsGone() {
    build(2, ReplicaReads.P2C);
    sync.set("f", "old", Duration.ZERO);
    Node second = replicasOf("f", 2).get(1);
    store(second).failNext.set(1);
    sync.set("f", "new", Duration.ZERO); // stored on the primary; the second's copy is marked old
    assertThat(new String(store(second).data.get("f").bytes(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("old");
    for (int i = 0; i < 50; i++) {
      assertThat(sync.get("f")).isEqualTo("new");
    }
  }

  @Test
  void badSettingsAreRefusedWithTheValueAndTheRule() {
    assertThatThrownBy(() -> ShardwiseClient.builder().replicas(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be >= 1 but was 0");
    assertThatThrownBy(
            () -> ShardwiseClient.builder().backend(backend).servers("a:1,b:2").replicas(3).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be at most the number of servers (2) but was 3");
  }

  @Test
  void aServerThatCameBackEmptyIsSeenAndRefilledByTheReadsOfItsKeys() throws Exception {
    repair = ReplicaRepair.defaults().withCheckInterval(Duration.ZERO); // checked by the test only
    build(2, ReplicaReads.P2C);
    RoutingClient<String> routing = (RoutingClient<String>) client;
    for (int i = 0; i < 600; i++) {
      sync.set("k" + i, "v" + i, Duration.ZERO);
    }
    Node emptied = client.nodes().get(2);
    int held = store(emptied).data.size();
    assertThat(held).isGreaterThan(100);
    routing.checkServerRuns(); // the run each server is in
    InMemoryClients.await(() -> routing.serverRunsRead() == 5);

    store(emptied).flushAll().join(); // as a restart: a new run, no keys
    routing.checkServerRuns();
    InMemoryClients.await(() -> client.nodeStatus().get(emptied).missingCopies() > 0);
    assertThat(client.nodeStatus().get(emptied).missingCopies()).isEqualTo(held);
    assertThat(counted.get("emptied " + emptied.name())).hasValue(held);
    assertThat(client.nodeStatus().get(Node.of("a", 1)).missingCopies()).isZero();

    // Reads of its keys put them back, as refills; none of another server's keys is copied there.
    for (int pass = 0; pass < 20 && store(emptied).data.size() < held; pass++) {
      for (int i = 0; i < 600; i++) {
        assertThat(sync.get("k" + i)).isEqualTo("v" + i);
      }
      Thread.sleep(20);
    }
    InMemoryClients.await(() -> store(emptied).data.size() == held);
    assertThat(counted.get("repaired refill").get()).isEqualTo(held);
    assertThat(counted.get("repaired read")).as("repairs of other causes").isNull();
    for (String key : store(emptied).data.keySet()) {
      assertThat(replicasOf(key, 2)).as(key).contains(emptied);
    }
    routing.checkServerRuns(); // all back: the refill ends
    InMemoryClients.await(() -> client.nodeStatus().get(emptied).missingCopies() == 0);

    // After it ended, a repair into that server counts as a read repair again.
    store(emptied).data.remove(store(emptied).data.keySet().iterator().next());
    for (int pass = 0; pass < 20 && counted.get("repaired read") == null; pass++) {
      for (int i = 0; i < 600; i++) {
        sync.get("k" + i);
      }
    }
    InMemoryClients.await(() -> counted.get("repaired read") != null);
  }

  @Test
  void aServerListChangeWarmsTheNewReplicasFromTheOldOnesAndATooShortListIsRefused() throws Exception {
    client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(200))
            .topology(TopologyOptions.defaults().withSettle(Duration.ZERO).withWarmUp(Duration.ofMinutes(1)))
            .codec(Codecs.utf8())
            .replicas(2)
            .build();
    sync = client.sync();
    for (int i = 0; i < 300; i++) {
      sync.set("k" + i, "v" + i, Duration.ZERO);
    }
    client.updateServers(io.shardwise.routing.ServerList.parse("a:1,b:2,c:3,f:6,g:7")).join();
    router = RouterSpec.DEFAULT.build(client.nodes());
    int moved = 0;
    for (int i = 0; i < 300; i++) {
      String key = "k" + i;
      List<Node> now = replicasOf(key, 2);
      if (now.stream().anyMatch(n -> !store(n).data.containsKey(key))) {
        moved++;
      }
      assertThat(sync.get(key)).as(key).isEqualTo("v" + i);
    }
    assertThat(moved).as("keys with a new replica").isGreaterThan(100);
    // The hits read on the old replicas were copied to the new ones.
    for (int i = 0; i < 300; i++) {
      String key = "k" + i;
      for (Node n : replicasOf(key, 2)) {
        InMemoryClients.await(() -> store(n).data.containsKey(key));
      }
    }
    // A write after the change goes to the new replicas and deletes the key on the old ones.
    for (int i = 0; i < 300; i++) {
      sync.set("k" + i, "w" + i, Duration.ZERO);
    }
    for (InMemoryBackend.Store store : List.of(store(Node.of("d", 4)), store(Node.of("e", 5)))) {
      assertThat(store.data.keySet()).as("keys left on %s", store.node).noneMatch(k -> k.startsWith("k"));
    }
    assertThat(client.updateServers(io.shardwise.routing.ServerList.parse("a:1")))
        .failsWithin(Duration.ofSeconds(1))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(IllegalArgumentException.class)
        .withMessageContaining("1 server(s) cannot hold shardwise.replicas=2");
    assertThat(client.nodes()).hasSize(5);
    assertThat(sync.get("k1")).isEqualTo("w1");
  }

  @Test
  void theNumberOfReplicasChangesLiveAndTheSetsSettleAndWarm() throws Exception {
    client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(200))
            .topology(TopologyOptions.defaults().withSettle(Duration.ZERO).withWarmUp(Duration.ofMinutes(1)))
            .codec(Codecs.utf8())
            .build();
    sync = client.sync();
    router = RouterSpec.DEFAULT.build(client.nodes());
    for (int i = 0; i < 200; i++) {
      sync.set("k" + i, "v" + i, Duration.ZERO);
    }
    assertThat(totalItems()).isEqualTo(200);

    // 1 -> 2: every key read once is copied to the replica that arrived.
    assertThat(client.updatePlacement(Map.of("shardwise.replicas", "2")).join().placementAfter())
        .isEqualTo("ketama(libketama), replicas 2");
    for (int i = 0; i < 200; i++) {
      assertThat(sync.get("k" + i)).isEqualTo("v" + i);
    }
    for (int i = 0; i < 200; i++) {
      String key = "k" + i;
      for (Node n : replicasOf(key, 2)) {
        InMemoryClients.await(() -> store(n).data.containsKey(key));
      }
    }
    assertThat(totalItems()).isEqualTo(400);

    // 2 -> 1: a write goes to the primary and deletes the key on the replica that left.
    client.updatePlacement(Map.of("shardwise.replicas", "1")).join();
    for (int i = 0; i < 200; i++) {
      sync.set("k" + i, "w" + i, Duration.ZERO);
    }
    assertThat(totalItems()).isEqualTo(200);
    for (int i = 0; i < 200; i++) {
      assertThat(store(replicasOf("k" + i, 1).get(0)).data).containsKey("k" + i);
      assertThat(sync.get("k" + i)).isEqualTo("w" + i);
    }
    assertThat(client.updatePlacement(Map.of("shardwise.replicas", "6")))
        .failsWithin(Duration.ofSeconds(1))
        .withThrowableOfType(ExecutionException.class)
        .withMessageContaining("shardwise.replicas: must be at most the number of servers (5) but was 6");
  }

  @Test
  void whileAChangeToFewerReplicasSettlesWritesStillGoToTheFormerSet() {
    client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .topology(TopologyOptions.defaults().withSettle(Duration.ofMinutes(1)).withWarmUp(Duration.ofMinutes(1)))
            .codec(Codecs.utf8())
            .replicas(2)
            .build();
    sync = client.sync();
    router = RouterSpec.DEFAULT.build(client.nodes());
    sync.set("k", "v1", Duration.ZERO);
    client.updatePlacement(Map.of("shardwise.replicas", "1")).join();
    sync.set("k", "v2", Duration.ZERO);
    // A client that has not applied the change yet reads either replica: both hold v2.
    for (Node n : replicasOf("k", 2)) {
      assertThat(new String(store(n).data.get("k").bytes())).as("k on %s", n).isEqualTo("v2");
    }
  }

  private long totalItems() {
    long items = 0;
    for (Node n : client.nodes()) {
      items += store(n).data.keySet().stream().filter(k -> k.startsWith("k")).count();
    }
    return items;
  }
}
