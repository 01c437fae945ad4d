package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NoNodeAvailableException;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Failure detection, failure modes and rejoin policies over in-memory nodes. */
class FailoverTest {

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private final List<NodeEvent> events = new CopyOnWriteArrayList<>();
  private AsyncCacheClient<String> client;
  private CacheClient<String> sync;

  private void build(FailoverOptions.Builder options) {
    client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(200))
            .failover(options.probeInterval(Duration.ofMillis(20)).maxProbeInterval(Duration.ofMillis(50)).build())
            .listener(events::add)
            .codec(Codecs.utf8())
            .build();
    sync = client.sync();
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  /** A key whose primary is {@code node}. */
  private String keyOn(Node node, int i) {
    for (int k = 0; ; k++) {
      String key = "key-" + i + "-" + k;
      if (client.nodeFor(key).equals(node)) {
        return key;
      }
    }
  }

  private void fail(Node node) {
    backend.store(node).failWith = new IOException("connection refused");
  }

  private void heal(Node node) {
    backend.store(node).failWith = null;
  }

  private void eject(Node node) {
    fail(node);
    for (int i = 0; i < 3; i++) {
      String key = keyOn(node, 1000 + i);
      assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class).hasMessage(node.name() + ": connection refused");
    }
    assertThat(client.nodeStates().get(node)).isNotEqualTo(NodeState.HEALTHY);
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(5);
    }
  }

  @Test
  void ejectsAfterThreeConsecutiveNodeFailuresAndRoutesItsKeysToTheNextNode() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    eject(a);
    await(() -> events.stream().anyMatch(NodeEvent::isEjection));
    assertThat(events.get(0).node()).isEqualTo(a);
    assertThat(events.get(0).detail()).startsWith("ejected after 3 consecutive failures; last: IOException: connection refused");

    sync.set(key, "v2", Duration.ZERO);
    assertThat(sync.get(key)).isEqualTo("v2");
    long holders = client.nodes().stream().filter(n -> backend.store(n).data.containsKey(key)).count();
    assertThat(holders).as("the key went to exactly one node").isEqualTo(1);
    assertThat(backend.store(a).data).doesNotContainKey(key);
  }

  @Test
  void errorRepliesAndMissesNeverEject() {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    backend.store(a).failWith = new IllegalArgumentException("SERVER_ERROR object too large for cache");
    for (int i = 0; i < 10; i++) {
      String key = keyOn(a, i);
      assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class);
    }
    heal(a);
    for (int i = 0; i < 10; i++) {
      assertThat(sync.get(keyOn(a, i))).isNull();
    }
    assertThat(client.nodeStates().get(a)).isEqualTo(NodeState.HEALTHY);
    assertThat(events).isEmpty();
  }

  @Test
  void readmitsOnlyAfterAProbeSucceedsAndFlushesByDefault() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    sync.set(key, "old", Duration.ZERO);
    eject(a);
    sync.set(keyOn(a, 2), "written elsewhere", Duration.ZERO);
    Thread.sleep(300); // many probe intervals: every probe fails, so it stays out
    assertThat(client.nodeStates().get(a)).isEqualTo(NodeState.PROBING);
    heal(a);
    await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    await(() -> events.size() == 3);
    assertThat(events).extracting(NodeEvent::to).containsExactly(NodeState.EJECTED, NodeState.PROBING, NodeState.HEALTHY);
    assertThat(events.get(2).detail()).contains("rejoin policy flush: emptied it");
    assertThat(sync.get(key)).as("flushed before readmission").isNull();
  }

  @Test
  void flushKeepsTheDataWhenNothingWasWrittenElsewhereWhileOut() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    sync.set(key, "kept", Duration.ZERO);
    eject(a);
    assertThat(sync.get(keyOn(a, 3))).isNull(); // reads alone are harmless
    heal(a);
    await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    await(() -> events.size() == 3);
    assertThat(events.get(2).detail()).contains("no key was written elsewhere while it was out, so its data was kept");
    assertThat(sync.get(key)).isEqualTo("kept");
  }

  @Test
  void journalDeletesTheKeysWrittenWhileOutOnTheNodeAndOnTheirFallback() throws Exception {
    build(FailoverOptions.builder().rejoinPolicy(RejoinPolicy.JOURNAL));
    Node a = client.nodes().get(0);
    String rewritten = keyOn(a, 1);
    String untouched = keyOn(a, 2);
    sync.set(rewritten, "old", Duration.ZERO);
    sync.set(untouched, "kept", Duration.ZERO);
    eject(a);
    sync.set(rewritten, "new", Duration.ZERO); // goes to a fallback while a is out
    assertThat(sync.get(rewritten)).isEqualTo("new");
    // a comes back still holding the old value
    heal(a);
    await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    assertThat(backend.store(a).data).doesNotContainKey(rewritten).containsKey(untouched);
    for (Node n : client.nodes()) {
      assertThat(backend.store(n).data).as(n.name()).doesNotContainKey(rewritten);
    }
    assertThat(sync.get(rewritten)).as("never the old value").isNull();
    assertThat(sync.get(untouched)).as("the rest stays warm").isEqualTo("kept");
  }

  @Test
  void keepServesTheOldValueAfterFailback() throws Exception {
    build(FailoverOptions.builder().rejoinPolicy(RejoinPolicy.KEEP));
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    sync.set(key, "old", Duration.ZERO);
    eject(a);
    sync.set(key, "new", Duration.ZERO);
    heal(a);
    await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    assertThat(sync.get(key)).as("the failback hazard, by explicit choice").isEqualTo("old");
  }

  @Test
  void journalOverflowFallsBackToAFlush() throws Exception {
    build(FailoverOptions.builder().rejoinPolicy(RejoinPolicy.JOURNAL).journalCapacity(2));
    Node a = client.nodes().get(0);
    String cold = keyOn(a, 99);
    backend.store(a).data.put(cold, CachedValue.of("x".getBytes(StandardCharsets.UTF_8), 0));
    eject(a);
    for (int i = 0; i < 5; i++) {
      sync.set(keyOn(a, i), "v", Duration.ZERO);
    }
    heal(a);
    await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    assertThat(events.get(events.size() - 1).detail()).contains("journal overflowed past 2 keys: emptied it");
    assertThat(backend.store(a).data).isEmpty();
  }

  @Test
  void failFastRefusesKeysOfAnEjectedNodeWithoutIo() {
    build(FailoverOptions.builder().failureMode(FailureMode.FAIL_FAST));
    Node a = client.nodes().get(0);
    eject(a);
    int before = backend.store(a).requests.get();
    String key = keyOn(a, 5);
    assertThatThrownBy(() -> sync.get(key))
        .isInstanceOf(NodeUnavailableException.class)
        .hasMessageContaining(a.name() + ": ejected")
        .hasMessageContaining("failure mode fail-fast does not send");
    assertThat(backend.store(a).requests.get()).isLessThanOrEqualTo(before + 1); // at most a probe
  }

  @Test
  void retryResendsToTheSameNodeAfterATransientFailure() {
    build(FailoverOptions.builder().failureMode(FailureMode.RETRY).retryAttempts(2));
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    sync.set(key, "v", Duration.ZERO);
    InMemoryBackend.Store store = backend.store(a);
    store.requests.set(0);
    store.failNext.set(2); // two transient failures, then the node answers
    assertThat(sync.get(key)).isEqualTo("v");
    assertThat(store.requests.get()).isEqualTo(3);
    store.failNext.set(3); // more failures than attempts: the caller sees the last one
    assertThatThrownBy(() -> sync.get(key)).hasMessage(a.name() + ": connection reset");
  }

  @Test
  void allNodesDownFailsFastAndTheClientRecovers() throws Exception {
    build(FailoverOptions.builder());
    for (Node n : client.nodes()) {
      eject(n);
    }
    long start = System.nanoTime();
    assertThatThrownBy(() -> sync.get("anything"))
        .isInstanceOf(NoNodeAvailableException.class)
        .hasMessage("no node is available for anything: all 5 nodes are ejected");
    assertThat(System.nanoTime() - start).isLessThan(50_000_000L);
    for (Node n : client.nodes()) {
      heal(n);
    }
    await(() -> client.nodeStates().values().stream().allMatch(s -> s == NodeState.HEALTHY));
    sync.set("anything", "back", Duration.ZERO);
    assertThat(sync.get("anything")).isEqualTo("back");
  }

  @Test
  void multiKeyOperationsRedistributeOnlyTheKeysOfTheEjectedNode() {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      keys.add("multi:" + i);
    }
    eject(a);
    for (Node n : client.nodes()) {
      backend.store(n).multiGets.set(0);
    }
    MultiResult<String> result = sync.getMulti(keys);
    assertThat(result.errors()).isEmpty();
    assertThat(result.misses()).hasSize(200);
    assertThat(backend.store(a).multiGets.get()).isZero();
    // Keys of healthy nodes stay where they are: each healthy node got exactly one batch.
    for (Node n : client.nodes().subList(1, 5)) {
      assertThat(backend.store(n).multiGets.get()).as(n.name()).isEqualTo(1);
    }
    assertThat(sync.setMulti(java.util.Map.of(keyOn(a, 7), "x"), Duration.ZERO).values()).containsValue(true);
  }

  @Test
  void rejectsBadFailoverOptions() {
    assertThatThrownBy(() -> FailoverOptions.builder().failureThreshold(0))
        .hasMessage("failure threshold must be >= 1 but was 0");
    assertThatThrownBy(() -> FailoverOptions.builder().probeInterval(Duration.ZERO))
        .hasMessage("probe interval must be > 0 but was PT0S");
    assertThatThrownBy(() -> FailoverOptions.builder().probeInterval(Duration.ofSeconds(2)).maxProbeInterval(Duration.ofSeconds(1)).build())
        .hasMessage("max probe interval must be >= the probe interval PT2S but was PT1S");
    assertThatThrownBy(() -> FailureMode.of("panic"))
        .hasMessage("unknown failure mode 'panic'; expected one of redistribute, fail-fast, retry");
    assertThatThrownBy(() -> RejoinPolicy.of("hope"))
        .hasMessage("unknown rejoin policy 'hope'; expected one of flush, journal, keep");
  }

}
