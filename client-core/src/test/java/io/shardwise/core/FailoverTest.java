package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NoNodeAvailableException;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodePermissionException;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Failure detection, failure modes, the ejection cap and the failback protocol over in-memory nodes. */
class FailoverTest {

  private static final int THRESHOLD = FailoverOptions.DEFAULT_FAILURE_THRESHOLD;

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private final List<NodeEvent> events = new CopyOnWriteArrayList<>();
  private final AtomicInteger oldCopiesSkipped = new AtomicInteger();
  private final AtomicInteger journalFull = new AtomicInteger();
  private final List<String> avoided = new CopyOnWriteArrayList<>();
  private final List<Throwable> rejoinFailures = new CopyOnWriteArrayList<>();
  private final ClientMetrics metrics =
      new ClientMetrics() {
        @Override
        public void oldCopySkipped(Node node) {
          oldCopiesSkipped.incrementAndGet();
        }

        @Override
        public void journalFull(Node node) {
          journalFull.incrementAndGet();
        }

        @Override
        public void ejectionAvoided(Node node, String reason) {
          avoided.add(node.name() + ":" + reason);
        }

        @Override
        public void rejoinFailed(Node node, Throwable cause) {
          rejoinFailures.add(cause);
        }
      };
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
            .metrics(metrics)
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

  /** The node a key goes to while its own (only) is out: the second of its preference order. */
  private Node fallbackOf(String key) {
    int[] order = RouterSpec.DEFAULT.build(client.nodes()).preferenceOrder(key);
    return client.nodes().get(order[1]);
  }

  private void fail(Node node) {
    backend.store(node).failWith = new IOException("connection refused");
  }

  private void heal(Node node) {
    backend.store(node).failWith = null;
  }

  private void eject(Node node) {
    fail(node);
    for (int i = 0; i < THRESHOLD; i++) {
      String key = keyOn(node, 1000 + i);
      assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class).hasMessage(node.name() + ": connection refused");
    }
    assertThat(client.nodeStates().get(node)).isNotEqualTo(NodeState.HEALTHY);
  }

  private void readmit(Node node) throws InterruptedException {
    heal(node);
    InMemoryClients.await(() -> client.nodeStates().get(node) == NodeState.HEALTHY);
  }

  private static CachedValue utf8(String s) {
    return CachedValue.of(s.getBytes(StandardCharsets.UTF_8), 0);
  }

  @Test
  void ejectsAfterConsecutiveNodeFailuresAndRoutesItsKeysToTheNextNode() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    eject(a);
    InMemoryClients.await(() -> events.stream().anyMatch(NodeEvent::isEjection));
    assertThat(events.get(0).node()).isEqualTo(a);
    assertThat(events.get(0).detail())
        .startsWith("ejected after " + THRESHOLD + " consecutive failures; last: IOException: connection refused");
    NodeStatus status = client.nodeStatus().get(a);
    assertThat(status.state()).isNotEqualTo(NodeState.HEALTHY);
    assertThat(status.detail()).contains("connection refused");

    sync.set(key, "v2", Duration.ZERO);
    assertThat(sync.get(key)).isEqualTo("v2");
    long holders = client.nodes().stream().filter(n -> backend.store(n).data.containsKey(key)).count();
    assertThat(holders).as("the key went to exactly one node").isEqualTo(1);
    assertThat(backend.store(a).data).doesNotContainKey(key);
    assertThat(client.nodeStatus().get(a).journaledKeys()).isEqualTo(1);
  }

  @Test
  void errorRepliesMissesAndConfigurationErrorsNeverEject() {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    backend.store(a).failWith = new IllegalArgumentException("SERVER_ERROR object too large for cache");
    for (int i = 0; i < 10; i++) {
      String key = keyOn(a, i);
      assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class);
    }
    backend.store(a).failWith = new NodePermissionException(a, "get refused: NOPERM", null);
    for (int i = 0; i < 10; i++) {
      String key = keyOn(a, i);
      assertThatThrownBy(() -> sync.set(key, "v", Duration.ZERO)).isInstanceOf(NodePermissionException.class);
    }
    heal(a);
    for (int i = 0; i < 10; i++) {
      assertThat(sync.get(keyOn(a, i))).isNull();
    }
    assertThat(client.nodeStates().get(a)).isEqualTo(NodeState.HEALTHY);
    assertThat(events).isEmpty();
    for (Node n : client.nodes().subList(1, 5)) {
      assertThat(backend.store(n).data).as("nothing rerouted to %s", n.name()).isEmpty();
    }
  }

  /**
   * A request the client's own full queue refused never reached the server: it is counted neither
   * as a failure (a burst alone does not eject) nor as a success (it does not break a run of
   * failures of a server that stopped answering).
   */
  @Test
  void requestsRefusedByTheClientsFullQueueCountNeitherWay() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    backend.store(a).failWith = new InMemoryBackend.QueueFull();
    for (int i = 0; i < 4 * THRESHOLD; i++) {
      String key = keyOn(a, i);
      assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class).hasMessageContaining("queue");
    }
    assertThat(client.nodeStates().get(a)).isEqualTo(NodeState.HEALTHY);
    assertThat(events).isEmpty();

    for (int i = 0; i < 2 * THRESHOLD - 1; i++) {
      // THRESHOLD failures of the server, with refusals of the full queue between them
      backend.store(a).failWith = i % 2 == 0 ? new IOException("connection refused") : new InMemoryBackend.QueueFull();
      String key = keyOn(a, i);
      assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class);
    }
    InMemoryClients.await(() -> events.stream().anyMatch(NodeEvent::isEjection));
    assertThat(events.get(0).detail()).startsWith("ejected after " + THRESHOLD + " consecutive failures");
  }

  @Test
  void byDefaultTheReturningNodeLosesOnlyTheKeysWrittenElsewhereAndIsNeverFlushed() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String rewritten = keyOn(a, 1);
    String deleted = keyOn(a, 2);
    String untouched = keyOn(a, 3);
    sync.set(rewritten, "old", Duration.ZERO);
    sync.set(deleted, "old", Duration.ZERO);
    sync.set(untouched, "kept", Duration.ZERO);
    backend.store(a).data.put("other-application", utf8("theirs"));
    eject(a);
    sync.set(rewritten, "new", Duration.ZERO); // goes to a fallback while a is out
    sync.delete(deleted);
    assertThat(sync.get(rewritten)).isEqualTo("new");
    Thread.sleep(150); // many probe intervals: every probe fails, so it stays out
    assertThat(client.nodeStates().get(a)).isEqualTo(NodeState.PROBING);
    readmit(a); // a comes back still holding the old values
    InMemoryClients.await(() -> events.size() == 3);
    assertThat(events).extracting(NodeEvent::to).containsExactly(NodeState.EJECTED, NodeState.PROBING, NodeState.HEALTHY);
    assertThat(events.get(2).detail()).contains("rejoin policy journal: 2 keys were written elsewhere while it was out; deleted them on it");
    assertThat(backend.store(a).flushes.get()).as("never flushed").isZero();
    assertThat(backend.store(a).data).doesNotContainKeys(rewritten, deleted).containsKeys(untouched, "other-application");
    InMemoryClients.await(() -> client.nodes().stream().noneMatch(n -> backend.store(n).data.containsKey(rewritten)));
    assertThat(sync.get(rewritten)).as("never the old value").isNull();
    assertThat(sync.get(deleted)).isNull();
    assertThat(sync.get(untouched)).as("the rest stays warm").isEqualTo("kept");
    assertThat(client.nodeStatus().get(a).journaledKeys()).isZero();
  }

  @Test
  void flushIsAnOptInThatEmptiesTheNodeOnlyIfSomethingWasWrittenElsewhere() throws Exception {
    build(FailoverOptions.builder().rejoinPolicy(RejoinPolicy.FLUSH));
    Node a = client.nodes().get(0);
    sync.set(keyOn(a, 1), "kept", Duration.ZERO);
    eject(a);
    assertThat(sync.get(keyOn(a, 3))).isNull(); // reads alone are harmless
    readmit(a);
    InMemoryClients.await(() -> events.size() == 3);
    assertThat(events.get(2).detail()).contains("rejoin policy flush: nothing was written elsewhere while it was out");
    assertThat(sync.get(keyOn(a, 1))).isEqualTo("kept");
    assertThat(backend.store(a).flushes.get()).isZero();

    eject(a);
    sync.set(keyOn(a, 2), "written elsewhere", Duration.ZERO);
    readmit(a);
    InMemoryClients.await(() -> events.size() == 6);
    assertThat(events.get(5).detail()).contains("rejoin policy flush: emptied it; 1 key was written elsewhere");
    assertThat(backend.store(a).flushes.get()).isEqualTo(1);
    assertThat(sync.get(keyOn(a, 1))).isNull();
  }

  @Test
  void keepServesTheOldValueAfterFailback() throws Exception {
    build(FailoverOptions.builder().rejoinPolicy(RejoinPolicy.KEEP));
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    sync.set(key, "old", Duration.ZERO);
    eject(a);
    sync.set(key, "new", Duration.ZERO);
    readmit(a);
    assertThat(sync.get(key)).as("the failback hazard, by explicit choice").isEqualTo("old");
  }

  @Test
  void writesSentElsewhereCarryAtMostTheFailoverTtl() throws Exception {
    build(FailoverOptions.builder().failoverTtl(Duration.ofSeconds(10)));
    Node a = client.nodes().get(0);
    Node b = client.nodes().get(1);
    String away = keyOn(a, 1);
    String home = keyOn(b, 1);
    eject(a);
    Node fallback = fallbackOf(away);
    sync.set(away, "v", Duration.ZERO);
    assertThat(backend.store(fallback).ttls.get(away)).as("no expiry becomes the failover TTL").isEqualTo(Duration.ofSeconds(10));
    sync.set(away, "v", Duration.ofHours(1));
    assertThat(backend.store(fallback).ttls.get(away)).isEqualTo(Duration.ofSeconds(10));
    sync.set(away, "v", Duration.ofSeconds(3));
    assertThat(backend.store(fallback).ttls.get(away)).as("a shorter TTL stays").isEqualTo(Duration.ofSeconds(3));
    sync.touch(away, Duration.ZERO);
    assertThat(backend.store(fallback).ttls.get(away)).isEqualTo(Duration.ofSeconds(10));
    String other = keyOn(a, 2);
    sync.setMulti(Map.of(other, "x", home, "y"), Duration.ZERO);
    assertThat(backend.store(fallbackOf(other)).ttls.get(other)).isEqualTo(Duration.ofSeconds(10));
    assertThat(backend.store(b).ttls.get(home)).as("a key whose node is up keeps its TTL").isEqualTo(Duration.ZERO);
  }

  @Test
  void aFullJournalFailsWritesOfTheNodesKeysRatherThanRiskAnOldValue() throws Exception {
    build(FailoverOptions.builder().journalCapacity(2));
    Node a = client.nodes().get(0);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      keys.add(keyOn(a, i));
      sync.set(keys.get(i), "old", Duration.ZERO);
    }
    eject(a);
    sync.set(keys.get(0), "new", Duration.ZERO);
    sync.set(keys.get(1), "new", Duration.ZERO);
    sync.set(keys.get(0), "newer", Duration.ZERO); // already journaled: still fine
    assertThatThrownBy(() -> sync.set(keys.get(2), "new", Duration.ZERO))
        .isInstanceOf(NodeUnavailableException.class)
        .hasMessageContaining(a.name() + ": is out and its journal of 2 keys written elsewhere is full");
    assertThatThrownBy(() -> sync.delete(keys.get(3))).isInstanceOf(NodeUnavailableException.class);
    MultiResult<Boolean> multi = sync.deleteMulti(List.of(keys.get(2), keys.get(0)));
    assertThat(multi.errors()).containsOnlyKeys(keys.get(2));
    assertThat(journalFull.get()).isEqualTo(3);
    for (Node n : client.nodes().subList(1, 5)) {
      assertThat(backend.store(n).data).as("nothing unrecorded written to %s", n.name()).doesNotContainKeys(keys.get(2), keys.get(3));
    }
    assertThat(sync.get(keys.get(2))).as("reads still fail over").isNull();
    readmit(a);
    assertThat(backend.store(a).data).doesNotContainKeys(keys.get(0), keys.get(1)).containsKeys(keys.get(2), keys.get(3));
    assertThat(sync.get(keys.get(2))).isEqualTo("old"); // never overwritten: not stale
    sync.set(keys.get(2), "new", Duration.ZERO);
    assertThat(sync.get(keys.get(2))).isEqualTo("new");
  }

  @Test
  void aCopyLeftOnTheFallbackIsNeverReadAgainEvenIfItsDeleteFails() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    eject(a);
    Node fallback = fallbackOf(key);
    sync.set(key, "v1", Duration.ZERO); // the copy, on the fallback
    backend.store(fallback).refuseDeletes = new IllegalStateException("NOPERM no permission to run 'del'");
    readmit(a);
    sync.set(key, "v2", Duration.ZERO); // on a
    assertThat(backend.store(fallback).data).as("the old copy is still there").containsKey(key);
    eject(a);
    assertThat(sync.get(key)).as("the old copy is not read").isNull();
    assertThat(sync.getMulti(List.of(key)).misses()).containsExactly(key);
    assertThat(oldCopiesSkipped.get()).isEqualTo(2);
    backend.store(fallback).refuseDeletes = null;
    InMemoryClients.await(() -> !backend.store(fallback).data.containsKey(key)); // the sweep deleted it
    sync.set(key, "v3", Duration.ZERO);
    assertThat(sync.get(key)).as("new copies are read once the old one is gone").isEqualTo("v3");
  }

  @Test
  void aKeyWhoseOwnDeleteFailedInsideARejoinBatchKeepsTheNodeOutUntilItsDeleteIsConfirmed() throws Exception {
    // The rejoin's delete batch reaches a, but the deletes of two of its keys get no reply, as
    // when a server stops halfway through a batch: the batch itself completes.
    rejoinWithTwoDeletesUnconfirmed((store, keys) -> store.failInBatch = keys::contains, "no reply for");
  }

  @Test
  void aRejoinWhoseDeleteBatchReplyLeavesKeysOutKeepsTheNodeOutUntilTheyAreDeleted() throws Exception {
    // The rejoin's delete batch is answered, but its reply names no outcome for two keys, whose
    // deletes did not happen: they are not done, and a must not serve their old values.
    rejoinWithTwoDeletesUnconfirmed((store, keys) -> store.silentInBatch = keys::contains, "named no outcome");
  }

  /**
   * Ten keys of node a written elsewhere while it is out; its rejoin's delete batch then leaves two
   * of them undeleted, as {@code hold} makes the store do: a stays out, saying why, until they are.
   */
  private void rejoinWithTwoDeletesUnconfirmed(
      java.util.function.BiConsumer<InMemoryBackend.Store, List<String>> hold, String detail) throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      keys.add(keyOn(a, i));
      sync.set(keys.get(i), "old", Duration.ZERO);
    }
    eject(a);
    for (String key : keys) {
      sync.set(key, "new", Duration.ZERO); // elsewhere, journaled against a
    }
    hold.accept(backend.store(a), List.of(keys.get(3), keys.get(7)));
    heal(a);
    InMemoryClients.await(() -> !rejoinFailures.isEmpty());
    Thread.sleep(200);
    assertThat(client.nodeStates().get(a)).as("a holds two old values: it stays out").isEqualTo(NodeState.PROBING);
    assertThat(client.nodeStatus().get(a).detail()).contains("2 of 2 deletes of old copies were not confirmed").contains(detail);
    assertThat(backend.store(a).data).containsKeys(keys.get(3), keys.get(7)).doesNotContainKeys(keys.get(0), keys.get(9));
    assertThat(client.nodeStatus().get(a).journaledKeys()).as("the other deletes are done").isEqualTo(10);
    for (String key : keys) {
      assertThat(sync.get(key)).isEqualTo("new");
    }
    hold.accept(backend.store(a), List.of());
    InMemoryClients.await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    assertThat(backend.store(a).data).doesNotContainKeys(keys.toArray(new String[0]));
    for (String key : keys) {
      assertThat(sync.get(key)).as("never the old value of %s", key).isNull();
    }
  }

  @Test
  void anOldCopyWhoseOwnDeleteFailedInsideTheSweepsBatchStaysUnreadUntilItIsDeleted() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String first = keyOn(a, 1);
    Node fallback = fallbackOf(first);
    String second = null;
    for (int i = 2; second == null; i++) {
      String key = keyOn(a, i);
      if (fallbackOf(key).equals(fallback)) {
        second = key;
      }
    }
    String kept = second;
    eject(a);
    sync.set(first, "v1", Duration.ZERO); // the copies, on the fallback
    sync.set(kept, "v1", Duration.ZERO);
    backend.store(fallback).failInBatch = kept::equals;
    readmit(a);
    sync.set(first, "v2", Duration.ZERO); // on a
    sync.set(kept, "v2", Duration.ZERO);
    InMemoryClients.await(() -> !backend.store(fallback).data.containsKey(first)); // its delete went through
    assertThat(backend.store(fallback).data).as("the delete of this copy got no reply").containsKey(kept);
    eject(a);
    assertThat(sync.get(kept)).as("the old copy is not read").isNull();
    assertThat(sync.get(first)).isNull();
    backend.store(fallback).failInBatch = null;
    InMemoryClients.await(() -> !backend.store(fallback).data.containsKey(kept)); // the sweep deleted it
    sync.set(kept, "v3", Duration.ZERO);
    assertThat(sync.get(kept)).isEqualTo("v3");
  }

  @Test
  void aKeyOfAMultiKeyWriteWhoseOwnRequestFailedInsideItsBatchFailsWithTheNodesReason() {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String refused = keyOn(a, 1);
    String stored = keyOn(a, 2);
    sync.set(refused, "old", Duration.ZERO);
    backend.store(a).failInBatch = refused::equals;
    MultiResult<Boolean> set = sync.setMulti(Map.of(refused, "new", stored, "new"), Duration.ZERO);
    assertThat(set.values()).containsOnlyKeys(stored);
    assertThat(set.errors()).containsOnlyKeys(refused);
    assertThat(set.errors().get(refused)).hasMessage(a.name() + ": no reply for " + refused);
    MultiResult<Boolean> deleted = sync.deleteMulti(List.of(refused, stored));
    assertThat(deleted.values()).containsExactly(Map.entry(stored, true));
    assertThat(deleted.errors().get(refused)).isInstanceOf(NodeException.class).hasMessage(a.name() + ": no reply for " + refused);
    MultiResult<String> read = sync.getMulti(List.of(refused, stored));
    assertThat(read.misses()).containsExactly(stored);
    assertThat(read.errors()).as("a failed read is not a miss").containsOnlyKeys(refused);
    assertThat(client.nodeStates().get(a)).isEqualTo(NodeState.HEALTHY);
    backend.store(a).failInBatch = null;
    assertThat(sync.get(refused)).isEqualTo("old");
  }

  @Test
  void aKeyTheBatchReplyLeavesOutIsAFailureNeverAWriteOrADelete() {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    String silent = keyOn(a, 1);
    String stored = keyOn(a, 2);
    sync.set(silent, "old", Duration.ZERO);
    backend.store(a).silentInBatch = silent::equals;
    MultiResult<Boolean> set = sync.setMulti(Map.of(silent, "new", stored, "new"), Duration.ZERO);
    assertThat(set.values()).containsOnlyKeys(stored);
    assertThat(set.errors().get(silent)).isInstanceOf(NodeException.class).hasMessageContaining("named no outcome");
    MultiResult<Boolean> deleted = sync.deleteMulti(List.of(silent, stored));
    assertThat(deleted.values()).containsExactly(Map.entry(stored, true));
    assertThat(deleted.errors().get(silent)).isInstanceOf(NodeException.class).hasMessageContaining("named no outcome");
    backend.store(a).silentInBatch = null;
    assertThat(sync.get(silent)).as("neither written nor deleted, and not reported as either").isEqualTo("old");
  }

  @Test
  void aKeyRedirectedPastTwoNodesIsDeletedOnBothBeforeEitherServesIt() throws Exception {
    build(FailoverOptions.builder().maxEjectedPercent(100));
    Node a = client.nodes().get(0);
    String key = keyOn(a, 1);
    Node b = fallbackOf(key);
    sync.set(key, "v1", Duration.ZERO); // on a
    eject(a);
    sync.set(key, "v2", Duration.ZERO); // on b
    eject(b);
    sync.set(key, "v3", Duration.ZERO); // on the third node of its order
    readmit(b); // b holds v2; the key's reads go to b again
    assertThat(sync.get(key)).as("b's copy was deleted before it served").isNull();
    sync.set(key, "v4", Duration.ZERO); // on b
    readmit(a);
    assertThat(sync.get(key)).as("a's copy was deleted before it served").isNull();
    sync.set(key, "v5", Duration.ZERO);
    eject(a);
    assertThat(sync.get(key)).as("b's v4 is old now").isNull();
  }

  @Test
  void timeoutsMayEjectAtMostTheCapWhileRefusedConnectionsEjectRegardless() throws Exception {
    build(FailoverOptions.builder().maxEjectedPercent(40)); // 2 of 5
    List<Node> nodes = client.nodes();
    for (Node n : nodes.subList(0, 3)) {
      backend.store(n).failWith = new TimeoutException("no reply");
    }
    for (int round = 0; round < THRESHOLD; round++) {
      for (Node n : nodes.subList(0, 3)) {
        String key = keyOn(n, round);
        assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class);
      }
    }
    long out = client.nodeStates().values().stream().filter(s -> s != NodeState.HEALTHY).count();
    assertThat(out).as("nodes ejected on timeouts").isEqualTo(2);
    Node keptIn = nodes.get(2);
    assertThat(client.nodeStates().get(keptIn)).isEqualTo(NodeState.HEALTHY);
    assertThat(client.nodeStatus().get(keptIn).detail())
        .contains("is not ejected: 2 of 5 nodes are out, the most that timeouts may keep out (max-ejected-percent 40)");
    assertThat(avoided).contains(keptIn.name() + ":cap");
    backend.store(keptIn).failWith = new IOException("connection refused");
    String key = keyOn(keptIn, 100);
    // Its window is all failures already: the first refused connection ejects it.
    assertThatThrownBy(() -> sync.get(key)).isInstanceOf(NodeException.class);
    assertThat(client.nodeStates().get(keptIn)).as("a refused connection is hard evidence").isNotEqualTo(NodeState.HEALTHY);
  }

  @Test
  void aRejoinStepTheServerRefusesKeepsTheNodeOutAndSaysWhy() throws Exception {
    build(FailoverOptions.builder());
    Node a = client.nodes().get(0);
    eject(a);
    sync.set(keyOn(a, 1), "elsewhere", Duration.ZERO);
    backend.store(a).refuseDeletes = new NodePermissionException(a, "DEL refused: NOPERM", null);
    heal(a);
    InMemoryClients.await(() -> !rejoinFailures.isEmpty());
    Thread.sleep(200);
    assertThat(client.nodeStates().get(a)).isEqualTo(NodeState.PROBING);
    assertThat(client.nodeStatus().get(a).detail())
        .contains("answers, but stays out: its rejoin step (policy journal) failed: NodePermissionException")
        .contains("DEL refused: NOPERM");
    backend.store(a).refuseDeletes = null;
    InMemoryClients.await(() -> client.nodeStates().get(a) == NodeState.HEALTHY);
    assertThat(client.nodeStatus().get(a).detail()).isEmpty();
  }

  @Test
  void failFastRefusesKeysOfAnEjectedNodeWithoutIo() {
    build(FailoverOptions.builder().failureMode(FailureMode.FAIL_FAST));
    Node a = client.nodes().get(0);
    eject(a);
    int gets = backend.store(a).gets.get();
    int sets = backend.store(a).sets.get();
    String key = keyOn(a, 5);
    assertThatThrownBy(() -> sync.get(key))
        .isInstanceOf(NodeUnavailableException.class)
        .hasMessageContaining(a.name() + ": ejected")
        .hasMessageContaining("failure mode fail-fast does not send");
    assertThatThrownBy(() -> sync.set(key, "v", Duration.ZERO)).isInstanceOf(NodeUnavailableException.class);
    // Counted by kind: the probes that come meanwhile depend on how long this takes.
    assertThat(backend.store(a).gets.get()).as("gets sent").isEqualTo(gets);
    assertThat(backend.store(a).sets.get()).as("sets sent").isEqualTo(sets);
    assertThat(client.nodeStatus().get(a).journaledKeys()).isZero();
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
    int sent = client.nodes().stream().mapToInt(n -> backend.store(n).gets.get()).sum();
    assertThatThrownBy(() -> sync.get("anything"))
        .isInstanceOf(NoNodeAvailableException.class)
        .hasMessage("no node is available for anything: all 5 nodes are ejected");
    // Fast: refused without a request to any node (a count, which a loaded machine cannot skew).
    assertThat(client.nodes().stream().mapToInt(n -> backend.store(n).gets.get()).sum())
        .as("gets sent")
        .isEqualTo(sent);
    for (Node n : client.nodes()) {
      heal(n);
    }
    InMemoryClients.await(() -> client.nodeStates().values().stream().allMatch(s -> s == NodeState.HEALTHY));
    sync.set("anything", "back", Duration.ZERO);
    assertThat(sync.get("anything")).isEqualTo("back");
  }

  @Test
  void multiKeyOperationsRedistributeOnlyTheKeysOfTheEjectedNode() throws Exception {
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
    Map<String, String> values = new LinkedHashMap<>();
    for (String key : keys) {
      values.put(key, "v-" + key);
    }
    assertThat(sync.setMulti(values, Duration.ZERO).values().values()).hasSize(200).containsOnly(true);
    long journaled = keys.stream().filter(k -> client.nodeFor(k).equals(a)).count();
    assertThat(client.nodeStatus().get(a).journaledKeys()).isEqualTo((int) journaled);
    readmit(a);
    MultiResult<String> after = sync.getMulti(keys);
    assertThat(after.misses()).as("a's keys were deleted on it").hasSize((int) journaled);
    assertThat(after.values()).hasSize(200 - (int) journaled);
  }

  @Test
  void rejectsBadFailoverOptions() {
    assertThatThrownBy(() -> FailoverOptions.builder().failureThreshold(0))
        .hasMessage("failure threshold must be >= 1 but was 0");
    assertThatThrownBy(() -> FailoverOptions.builder().probeInterval(Duration.ZERO))
        .hasMessage("probe interval must be > 0 but was PT0S");
    assertThatThrownBy(() -> FailoverOptions.builder().probeInterval(Duration.ofSeconds(2)).maxProbeInterval(Duration.ofSeconds(1)).build())
        .hasMessage("max probe interval must be >= the probe interval PT2S but was PT1S");
    assertThatThrownBy(() -> FailoverOptions.builder().failoverTtl(Duration.ofSeconds(-1)))
        .hasMessage("failover ttl must be > 0 but was PT-1S");
    assertThatThrownBy(() -> FailoverOptions.builder().maxEjectedPercent(101))
        .hasMessage("max ejected percent must be in 0..100 but was 101");
    assertThatThrownBy(() -> FailureMode.of("panic"))
        .hasMessage("unknown failure mode 'panic'; expected one of redistribute, fail-fast, retry");
    assertThatThrownBy(() -> RejoinPolicy.of("hope"))
        .hasMessage("unknown rejoin policy 'hope'; expected one of journal, flush, keep");
  }

  @Test
  void defaultsSuitASharedFleet() {
    FailoverOptions d = FailoverOptions.defaults();
    assertThat(d.rejoinPolicy()).isEqualTo(RejoinPolicy.JOURNAL);
    assertThat(d.failureThreshold()).isEqualTo(5);
    assertThat(d.failoverTtl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(d.maxEjectedPercent()).isEqualTo(50);
    assertThat(d.maxEjectedNodes(5)).isEqualTo(2);
    assertThat(d.maxEjectedNodes(1)).isEqualTo(1);
    assertThat(d.maxEjectedNodes(100)).isEqualTo(50);
  }
}
