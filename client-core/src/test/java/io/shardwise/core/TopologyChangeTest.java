package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyChange;
import io.shardwise.client.TopologyStatus;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Server-list changes at runtime, on in-memory nodes: routing, phases, warm-up, closing. */
class TopologyChangeTest {

  // Long enough for the reads each phase's assertions make (up to 2,000 gets) on a loaded 2-core
  // machine: at load 18-20, 300 ms of settle and 800 ms of warm-up ran out mid-loop.
  private static final Duration SETTLE = Duration.ofMillis(1000);
  private static final Duration WARM = Duration.ofMillis(3000);

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private final AtomicInteger copies = new AtomicInteger();
  private final AtomicInteger changes = new AtomicInteger();
  private final AsyncCacheClient<String> client =
      ShardwiseClient.builder()
          .backend(backend)
          .servers("a:1,b:2,c:3,d:4,e:5")
          .router(RouterSpec.of("ketama"))
          .timeout(Duration.ofMillis(200))
          .topology(TopologyOptions.defaults().withSettle(SETTLE).withWarmUp(WARM))
          .metrics(
              new ClientMetrics() {
                @Override
                public void warmUpCopied(Node node) {
                  copies.incrementAndGet();
                }

                @Override
                public void topologyChanged(TopologyChange change) {
                  changes.incrementAndGet();
                }
              })
          .codec(Codecs.utf8())
          .build();

  @AfterEach
  void close() {
    client.close();
  }

  private TopologyChange update(String servers) {
    return client.updateServers(ServerList.parse(servers)).join();
  }

  /**
   * A multi-key write while a change settles: the keys that moved are written one by one, the others
   * in batches per node. The result still names every key, in the caller's order, each with what
   * happened to that key alone: a key whose batch failed for it is that key's error, and no other's.
   */
  @Test
  void aMultiKeyWriteDuringAChangeNamesEveryKeyWithItsOwnOutcomeInTheCallersOrder() {
    update("a:1,b:2,c:3,d:4,e:5,f:6");
    assertThat(client.topologyStatus().phase()).isEqualTo(TopologyStatus.Phase.SETTLING);
    java.util.function.Predicate<String> failing = k -> Integer.parseInt(k.substring(1)) % 7 == 0;
    backend.stores.values().forEach(store -> store.failInBatch = failing);
    java.util.Map<String, String> values = new java.util.LinkedHashMap<>();
    for (int i = 299; i >= 0; i--) {
      values.put("m" + i, "v" + i);
    }
    io.shardwise.client.MultiResult<Boolean> result = client.setMulti(values, Duration.ZERO).join();

    List<String> written = new ArrayList<>(values.keySet());
    written.removeAll(result.errors().keySet());
    assertThat(new ArrayList<>(result.values().keySet())).as("the keys written, in the caller's order").isEqualTo(written);
    assertThat(result.misses()).isEmpty();
    assertThat(result.errors()).isNotEmpty();
    assertThat(result.errors().keySet()).as("only keys whose batch failed for them").allMatch(failing);
    assertThat(result.values()).hasSize(values.size() - result.errors().size()).doesNotContainValue(false);
  }

  /**
   * While a change warms, a write of a moved key deletes it where reads still look (its previous
   * node), but never where the write itself lands: with the new node out, the write fails over to
   * the key's previous node, and the value it stored there is not deleted as an old copy.
   */
  @Test
  void aMovedKeysWriteThatFailsOverToItsPreviousNodeIsNotDeletedThere() throws Exception {
    List<Node> five = List.copyOf(client.nodes());
    update("a:1,b:2,c:3,d:4,e:5,f:6");
    Node f = Node.of("f", 6);
    io.shardwise.routing.Router before = RouterSpec.of("ketama").build(five);
    io.shardwise.routing.Router after = RouterSpec.of("ketama").build(client.nodes());
    String key = null;
    Node previous = null;
    for (int i = 0; key == null; i++) {
      String k = "w" + i;
      Node was = five.get(before.preferenceOrder(k)[0]);
      if (client.nodeFor(k).equals(f) && client.nodes().get(after.preferenceOrder(k)[1]).equals(was)) {
        key = k;
        previous = was;
      }
    }
    client.sync().set(key, "old", Duration.ZERO); // on its previous node, while the change settles
    assertThat(backend.store(previous).data).containsKey(key);
    until(() -> client.topologyStatus().phase() == TopologyStatus.Phase.WARMING);
    backend.store(f).failWith = new java.io.IOException("connection refused");
    for (int i = 0; i < 100 && client.nodeStates().get(f) == io.shardwise.client.NodeState.HEALTHY; i++) {
      String k = "f" + i;
      if (client.nodeFor(k).equals(f)) {
        try {
          client.sync().set(k, "x", Duration.ZERO);
        } catch (RuntimeException expected) {
          // f refuses: counted toward its ejection
        }
      }
    }
    assertThat(client.nodeStates().get(f)).isNotEqualTo(io.shardwise.client.NodeState.HEALTHY);
    assertThat(client.topologyStatus().phase()).isEqualTo(TopologyStatus.Phase.WARMING);

    client.sync().set(key, "new", Duration.ZERO);
    assertThat(backend.store(previous).data).as("the write landed on %s and stays there", previous).containsKey(key);
    assertThat(new String(backend.store(previous).data.get(key).bytes(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("new");
    assertThat(client.sync().get(key)).isEqualTo("new");
  }

  @Test
  void addingANodeMovesAboutItsShareAndKeepsEveryValueReadable() throws Exception {
    for (int i = 0; i < 2000; i++) {
      client.sync().set("k" + i, "v" + i, Duration.ZERO);
    }
    TopologyChange change = update("a:1,b:2,c:3,d:4,e:5,f:6");
    assertThat(change.added()).extracting(Node::name).containsExactly("f:6");
    assertThat(change.movedShare()).isBetween(0.10, 0.24); // 1/6 is the optimum
    assertThat(client.nodes()).hasSize(6);
    Node f = Node.of("f", 6);
    // Settling: moved keys are still read on their previous node; nothing is read on f.
    for (int i = 0; i < 2000; i++) {
      assertThat(client.sync().get("k" + i)).isEqualTo("v" + i);
    }
    assertThat(backend.store(f).data).isEmpty();
    assertThat(client.topologyStatus().phase()).isEqualTo(TopologyStatus.Phase.SETTLING);
    assertThat(client.topologyStatus().lastChange()).isEqualTo(change);
    Thread.sleep(2 * SETTLE.toMillis() + 50);
    assertThat(client.topologyStatus().phase()).isEqualTo(TopologyStatus.Phase.WARMING);
    // Warming, once settle has passed again: a miss on f is read on the previous node and copied to f.
    List<String> onF = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      String key = "k" + i;
      assertThat(client.sync().get(key)).isEqualTo("v" + i);
      if (client.nodeFor(key).equals(f)) {
        onF.add(key);
      }
    }
    assertThat(onF).hasSizeBetween(200, 480);
    until(() -> backend.store(f).data.size() == onF.size());
    assertThat(copies.get()).isEqualTo(onF.size());
    assertThat(changes.get()).isEqualTo(1);
    TopologyStatus status = client.topologyStatus();
    assertThat(status.warmUpReads()).isEqualTo(onF.size());
    assertThat(status.warmUpHits()).isEqualTo(onF.size());
    assertThat(status.warmUpCopies()).isEqualTo(onF.size());
    Thread.sleep(WARM.toMillis());
    assertThat(client.topologyStatus().phase()).isEqualTo(TopologyStatus.Phase.STABLE);
  }

  @Test
  void noCopyIsMadeWhileAClientThatAppliedTheChangeLaterMayStillBeSettling() throws Exception {
    Duration settle = Duration.ofMillis(1000);
    try (AsyncCacheClient<String> slow =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .router(RouterSpec.of("ketama"))
            .timeout(Duration.ofMillis(200))
            .topology(TopologyOptions.defaults().withSettle(settle).withWarmUp(Duration.ofSeconds(30)))
            .codec(Codecs.utf8())
            .build()) {
      for (int i = 0; i < 500; i++) {
        slow.sync().set("k" + i, "v" + i, Duration.ZERO);
      }
      slow.updateServers(ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6")).join();
      Node f = Node.of("f", 6);
      List<String> moved = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        if (slow.nodeFor("k" + i).equals(f)) {
          moved.add("k" + i);
        }
      }
      assertThat(moved).isNotEmpty();
      until(() -> slow.topologyStatus().phase() == TopologyStatus.Phase.WARMING);
      // The first settle of warming: read on f, then on the previous node, and not copied.
      for (String key : moved) {
        assertThat(slow.sync().get(key)).isEqualTo("v" + key.substring(1));
      }
      assertThat(slow.sync().getMulti(moved).values()).hasSize(moved.size());
      Thread.sleep(100); // a copy would have been written by now
      assertThat(backend.store(f).data).isEmpty();
      assertThat(slow.topologyStatus().warmUpHits()).isEqualTo(2L * moved.size());
      assertThat(slow.topologyStatus().warmUpCopies()).isZero();
      // Then copies are made.
      Thread.sleep(settle.toMillis());
      for (String key : moved) {
        assertThat(slow.sync().get(key)).isEqualTo("v" + key.substring(1));
      }
      until(() -> backend.store(f).data.size() == moved.size());
      assertThat(slow.topologyStatus().warmUpCopies()).isEqualTo(moved.size());
    }
  }

  @Test
  void aWriteWhileWarmingDeletesTheOldCopySoItIsNeverReadAgain() throws Exception {
    for (int i = 0; i < 500; i++) {
      client.sync().set("k" + i, "old", Duration.ZERO);
    }
    update("a:1,b:2,c:3,d:4,e:5,f:6");
    Thread.sleep(SETTLE.toMillis() + 50);
    Node f = Node.of("f", 6);
    for (int i = 0; i < 500; i++) {
      client.sync().delete("k" + i);
    }
    for (int i = 0; i < 500; i++) {
      assertThat(client.sync().get("k" + i)).as("k" + i).isNull();
    }
    for (InMemoryBackend.Store s : backend.stores.values()) {
      assertThat(s.data).as(s.node.name()).isEmpty();
    }
    assertThat(backend.store(f).data).isEmpty();
  }

  /**
   * A read routed while a change warms reads the older value on the key's previous node, slowly;
   * the warm-up ends, and a multi-key delete is routed as for a change only remembered, then the
   * read's reply comes and it would copy the older value to the new node. The delete moves the
   * key's generation before it sends anything, so no copy is made. (Before, only a write that saw
   * the change warming did: the copy was added after the delete and read back.)
   */
  @Test
  void aCopyFromAReadRoutedWhileWarmingIsNotMadeAfterADeleteRoutedOnceTheWarmUpEnded()
      throws Exception {
    Duration settle = Duration.ofMillis(100);
    Duration warm = Duration.ofMillis(400);
    long slowMillis = 500;
    InMemoryBackend slowBackend = new InMemoryBackend(KeyRules.MEMCACHED);
    try (AsyncCacheClient<String> c =
        ShardwiseClient.builder()
            .backend(slowBackend)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .router(RouterSpec.of("ketama"))
            .timeout(Duration.ofSeconds(2))
            .topology(TopologyOptions.defaults().withSettle(settle).withWarmUp(warm))
            .codec(Codecs.utf8())
            .build()) {
      List<String> keys = new ArrayList<>();
      for (int i = 0; i < 300; i++) {
        keys.add("k" + i);
        c.sync().set("k" + i, "old", Duration.ZERO);
      }
      c.updateServers(ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6")).join();
      long warmEnd = System.nanoTime() + settle.toNanos() + warm.toNanos();
      Node f = Node.of("f", 6);
      for (InMemoryBackend.Store s : slowBackend.stores.values()) {
        if (!s.node.equals(f)) {
          s.delayMillis = slowMillis; // the previous nodes answer late
        }
      }
      sleepUntil(warmEnd - 250_000_000L);
      List<java.util.concurrent.CompletableFuture<String>> reads = new ArrayList<>();
      for (String key : keys) {
        reads.add(c.get(key).toCompletableFuture()); // moved keys: a miss on f, then the slow source
      }
      sleepUntil(warmEnd + 100_000_000L);
      c.deleteMulti(keys).toCompletableFuture().join();
      for (java.util.concurrent.CompletableFuture<String> read : reads) {
        read.join();
      }
      Thread.sleep(slowMillis + 200); // copies under way, if any, are done
      assertThat(slowBackend.store(f).data).as("copies added to f after the delete").isEmpty();
      for (InMemoryBackend.Store s : slowBackend.stores.values()) {
        s.delayMillis = 0;
      }
      for (String key : keys) {
        assertThat(c.sync().get(key)).as(key).isNull();
      }
    }
  }

  /**
   * A deleteMulti of a moved key while copies are made: its delete on the new node comes first, a
   * read then misses there and copies the older value from the previous node (which applies deletes
   * late, so the read comes before the delete there). The delete then deletes
   * that late copy on the new node, and when that delete fails, the copy is marked old there: the
   * key reads as a miss until the copy is gone. (Before, the failure was ignored: the older value
   * was read back after the confirmed delete.)
   */
  @Test
  void aLateCopyThatCannotBeDeletedAfterADeleteIsMarkedOld() throws Exception {
    Duration settle = Duration.ofMillis(100);
    InMemoryBackend memory = new InMemoryBackend(KeyRules.MEMCACHED);
    try (AsyncCacheClient<String> c = longWarmUp(memory, settle)) {
      List<String> keys = writeOld(c);
      java.util.Map<String, Node> before = new java.util.HashMap<>();
      keys.forEach(k -> before.put(k, c.nodeFor(k)));
      c.updateServers(ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6")).join();
      Node f = Node.of("f", 6);
      String moved = keys.stream().filter(k -> c.nodeFor(k).equals(f)).findFirst().orElseThrow();
      Node previous = before.get(moved);
      Thread.sleep(2 * settle.toMillis() + 50); // warming, and copying
      memory.store(previous).deleteDelayMillis = 1000; // the delete there, so a read finds the old value
      java.util.concurrent.CompletableFuture<?> delete = c.deleteMulti(List.of(moved)).toCompletableFuture();
      assertThat(memory.store(f).data).as("the delete on f is done").doesNotContainKey(moved);
      assertThat(c.sync().get(moved)).as("read on the previous node before its delete").isEqualTo("old");
      long copied = System.nanoTime() + 5_000_000_000L;
      while (!memory.store(f).data.containsKey(moved) && System.nanoTime() < copied) {
        Thread.sleep(1); // the copy is written after the read returns
      }
      assertThat(memory.store(f).data).as("the late copy").containsKey(moved);
      memory.store(f).refuseDeletes = new IllegalStateException("refused");
      delete.join();
      assertThat(memory.store(f).data).as("the late copy, not deleted").containsKey(moved);
      assertThat(c.sync().get(moved)).as("read after the confirmed delete").isNull();
      assertThat(c.sync().getMulti(List.of(moved)).values()).isEmpty();
      memory.store(f).refuseDeletes = null;
      memory.store(previous).deleteDelayMillis = 0;
      long until = System.nanoTime() + 5_000_000_000L;
      while (memory.store(f).data.containsKey(moved) && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThat(memory.store(f).data).as("the marked copy, deleted by the sweep").doesNotContainKey(moved);
    }
  }

  /**
   * A copy under way when a delete of its key comes: the copy's {@code add} reaches the new node
   * after the delete, so the copy deletes itself, and when that delete fails the copy is marked old
   * there before the delete (which waits for the copy) completes: the key reads as a miss.
   */
  @Test
  void aCopyThatCannotUndoItselfAfterADeleteIsMarkedOld() throws Exception {
    Duration settle = Duration.ofMillis(100);
    InMemoryBackend memory = new InMemoryBackend(KeyRules.MEMCACHED);
    try (AsyncCacheClient<String> c = longWarmUp(memory, settle)) {
      List<String> keys = writeOld(c);
      c.updateServers(ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6")).join();
      Node f = Node.of("f", 6);
      String moved = keys.stream().filter(k -> c.nodeFor(k).equals(f)).findFirst().orElseThrow();
      Thread.sleep(2 * settle.toMillis() + 50); // warming, and copying
      InMemoryBackend.Store newNode = memory.store(f);
      int sent = newNode.requests.get();
      // The read's miss there, then its copy, answer late: the delete below must reach the node
      // before the copy does, with room for a loaded machine's pauses.
      newNode.delayMillis = 2000;
      java.util.concurrent.CompletableFuture<String> read = c.get(moved).toCompletableFuture();
      long until = System.nanoTime() + 8_000_000_000L;
      while (newNode.requests.get() < sent + 2 && System.nanoTime() < until) {
        Thread.sleep(1); // the get, then the copy's add
      }
      assertThat(newNode.requests.get()).as("the copy's add was sent").isEqualTo(sent + 2);
      assertThat(read.join()).isEqualTo("old");
      newNode.delayMillis = 0; // the delete lands before the copy
      java.util.concurrent.CompletableFuture<Boolean> delete = c.delete(moved).toCompletableFuture();
      newNode.refuseDeletes = new IllegalStateException("refused"); // the copy's own delete
      delete.join();
      assertThat(newNode.data).as("the copy, added after the delete").containsKey(moved);
      assertThat(c.sync().get(moved)).as("read after the confirmed delete").isNull();
      newNode.refuseDeletes = null;
      until = System.nanoTime() + 5_000_000_000L;
      while (newNode.data.containsKey(moved) && System.nanoTime() < until) {
        Thread.sleep(10);
      }
      assertThat(newNode.data).as("the marked copy, deleted by the sweep").doesNotContainKey(moved);
    }
  }

  /** Writes "old" under k0..k399 and returns the keys. */
  private static List<String> writeOld(AsyncCacheClient<String> c) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      keys.add("k" + i);
      c.sync().set("k" + i, "old", Duration.ZERO);
    }
    return keys;
  }

  /**
   * A client on a..e of {@code memory} whose changes settle for {@code settle} and warm for 10 s,
   * with a timeout far above the replies the tests delay on purpose (2 s at most).
   */
  private static AsyncCacheClient<String> longWarmUp(InMemoryBackend memory, Duration settle) {
    return ShardwiseClient.builder()
        .backend(memory)
        .servers("a:1,b:2,c:3,d:4,e:5")
        .router(RouterSpec.of("ketama"))
        .timeout(Duration.ofSeconds(10))
        .topology(TopologyOptions.defaults().withSettle(settle).withWarmUp(Duration.ofSeconds(10)))
        .codec(Codecs.utf8())
        .build();
  }

  private static void sleepUntil(long nanos) throws InterruptedException {
    long left = nanos - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
    }
  }

  /**
   * A write of a moved key whose copy where reads may look can be neither deleted nor marked old,
   * the node holding as many marks as the journal's capacity, fails rather than leave that copy
   * readable: while the change settles, on the new node (clients already warming read it first)
   * whose delete fails; while it warms, on the previous node, out. The writes before them, whose
   * marks were recorded, succeeded, and the copy marked on the new node is not read.
   */
  @Test
  void aMovedKeysWriteWhoseCopyCanBeNeitherDeletedNorMarkedFails() throws Exception {
    InMemoryBackend memory = new InMemoryBackend(KeyRules.MEMCACHED);
    try (AsyncCacheClient<String> c =
        ShardwiseClient.builder()
            .backend(memory)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .router(RouterSpec.of("ketama"))
            .timeout(Duration.ofMillis(200))
            .failover(FailoverOptions.builder().journalCapacity(1).build())
            .topology(TopologyOptions.defaults().withSettle(Duration.ofSeconds(4)).withWarmUp(Duration.ofSeconds(60)))
            .codec(Codecs.utf8())
            .build()) {
      java.util.Map<String, Node> before = new java.util.HashMap<>();
      for (int i = 0; i < 3000; i++) {
        before.put("m" + i, c.nodeFor("m" + i));
      }
      c.updateServers(ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6")).join();
      Node f = Node.of("f", 6);
      List<String> moved = before.keySet().stream().filter(k -> c.nodeFor(k).equals(f)).sorted().toList();
      String first = moved.get(0);
      memory.store(f).data.put(first, io.shardwise.client.CachedValue.of("stale".getBytes(java.nio.charset.StandardCharsets.UTF_8), 0));
      memory.store(f).refuseDeletes = new IllegalStateException("deletes refused");
      c.sync().set(first, "new", Duration.ZERO); // on its previous node; f's copy marked, the one mark f may hold
      assertThatThrownBy(() -> c.sync().set(moved.get(1), "new", Duration.ZERO))
          .hasMessageContaining("could not be deleted (")
          .hasMessageContaining("deletes refused")
          .hasMessageContaining("nor marked old");
      assertThat(c.topologyStatus().phase()).as("while the change settled").isEqualTo(TopologyStatus.Phase.SETTLING);

      until(() -> c.topologyStatus().phase() == TopologyStatus.Phase.WARMING);
      Node previous = before.get(moved.get(2));
      List<String> fromPrevious = moved.subList(2, moved.size()).stream().filter(k -> before.get(k).equals(previous)).toList();
      memory.store(previous).refuseDeletes = new IllegalStateException("deletes refused");
      c.sync().set(fromPrevious.get(0), "new", Duration.ZERO); // on f; the previous node's copy marked, its one mark
      memory.store(previous).failWith = new java.io.IOException("connection refused");
      for (int i = 0; i < 100 && c.nodeStates().get(previous) == io.shardwise.client.NodeState.HEALTHY; i++) {
        String stays = "s" + i;
        if (c.nodeFor(stays).equals(previous)) {
          assertThatThrownBy(() -> c.sync().get(stays)).hasMessageContaining("connection refused");
        }
      }
      assertThat(c.nodeStates().get(previous)).as("%s, out", previous).isNotEqualTo(io.shardwise.client.NodeState.HEALTHY);
      assertThatThrownBy(() -> c.sync().set(fromPrevious.get(1), "new", Duration.ZERO))
          .hasMessageContaining(previous + " is out")
          .hasMessageContaining("nor marked old");
      assertThat(c.topologyStatus().phase()).as("while the change warmed").isEqualTo(TopologyStatus.Phase.WARMING);
      assertThat(c.sync().get(first)).as("f's copy, marked, is not read").isEqualTo("new");
    }
  }

  @Test
  void aWriteWhileSettlingGoesToThePreviousNodeAndClearsTheNewOne() throws Exception {
    update("a:1,b:2,c:3,d:4,e:5,f:6");
    Node f = Node.of("f", 6);
    List<String> moved = new ArrayList<>();
    for (int i = 0; moved.size() < 20; i++) {
      if (client.nodeFor("m" + i).equals(f)) {
        moved.add("m" + i);
      }
    }
    backend.store(f).data.put(moved.get(0), io.shardwise.client.CachedValue.of("stale".getBytes(), 0));
    for (String key : moved) {
      client.sync().set(key, "new", Duration.ZERO);
    }
    assertThat(backend.store(f).data).isEmpty();
    Thread.sleep(SETTLE.toMillis() + 50);
    for (String key : moved) {
      assertThat(client.sync().get(key)).isEqualTo("new");
    }
    assertThat(client.sync().getMulti(moved).values()).hasSize(moved.size()).containsValue("new");
  }

  @Test
  void aRemovedNodeIsClosedOnceItsKeysAreTakenOverAndNothingUsesIt() throws Exception {
    for (int i = 0; i < 1000; i++) {
      client.sync().set("k" + i, "v" + i, Duration.ZERO);
    }
    Node e = Node.of("e", 5);
    TopologyChange change = update("a:1,b:2,c:3,d:4");
    assertThat(change.removed()).containsExactly(e);
    assertThat(backend.store(e).closed).isFalse();
    Thread.sleep(2 * SETTLE.toMillis() + 50); // warming, and copying
    for (int i = 0; i < 1000; i++) {
      assertThat(client.sync().get("k" + i)).isEqualTo("v" + i);
    }
    int before = backend.store(e).requests.get();
    until(() -> backend.store(e).closed);
    assertThat(client.nodes()).doesNotContain(e);
    for (int i = 0; i < 1000; i++) {
      assertThat(client.sync().get("k" + i)).isEqualTo("v" + i);
    }
    assertThat(backend.store(e).requests.get()).as("requests to the removed node after its drain").isEqualTo(before);
  }

  @Test
  void aServerKeptByAChangeIsNotClosedByTheDrainOfTheChangeBefore() throws Exception {
    InMemoryBackend own = new InMemoryBackend(KeyRules.MEMCACHED);
    try (AsyncCacheClient<String> quick =
        ShardwiseClient.builder()
            .backend(own)
            .servers("a:1,b:2,c:3,d:4,e:5,f:6")
            .topology(TopologyOptions.defaults().withSettle(Duration.ZERO).withWarmUp(Duration.ZERO))
            .codec(Codecs.utf8())
            .build()) {
      Node f = Node.of("f", 6);
      own.stores.computeIfAbsent(Node.of("g", 7), InMemoryBackend.Store::new).readyMillis = 300;
      // f leaves; the drain of that change runs while the next one, which keeps f, waits for g.
      quick.updateServers(ServerList.parse("a:1,b:2,c:3,d:4,e:5")).join();
      quick.updateServers(ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6,g:7")).join();
      assertThat(own.store(f).closed).as("f's connection").isFalse();
      for (int i = 0; i < 500; i++) {
        quick.sync().set("k" + i, "v", Duration.ZERO);
      }
      assertThat(own.store(f).data).isNotEmpty();
    }
  }

  @Test
  void aBadListIsRefusedAndTheOldOneStays() {
    List<Node> old = client.nodes();
    assertThatThrownBy(() -> client.updateServers(List.of()).join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the current list stays in force");
    assertThatThrownBy(() -> client.updateServers(List.of(Node.of("a", 1), Node.of("a", 1))).join())
        .hasCauseInstanceOf(IllegalArgumentException.class);
    assertThat(client.nodes()).isEqualTo(old);
    assertThat(changes.get()).isZero();
  }

  @Test
  void aListWithAHostThatDoesNotResolveIsNotAppliedForNowAndNothingIsConnected() {
    InMemoryBackend own = new InMemoryBackend(KeyRules.MEMCACHED);
    own.resolves = true;
    assertThatThrownBy(() -> ShardwiseClient.builder().backend(own).servers("127.0.0.1:1,nohost.invalid:2").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nohost.invalid does not");
    assertThat(own.stores).isEmpty();
    try (AsyncCacheClient<String> resolving =
        ShardwiseClient.builder().backend(own).servers("127.0.0.1:1,127.0.0.1:2").codec(Codecs.utf8()).build()) {
      List<Node> old = resolving.nodes();
      assertThatThrownBy(() -> resolving.updateServers(ServerList.parse("127.0.0.1:1,127.0.0.1:2,nohost.invalid:3")).join())
          .hasCauseInstanceOf(IllegalStateException.class)
          .hasMessageContaining("nohost.invalid does not resolve to an address")
          .hasMessageContaining("the current list stays in force");
      assertThat(resolving.nodes()).isEqualTo(old);
      assertThat(own.stores.keySet()).extracting(Node::host).doesNotContain("nohost.invalid");
    }
  }

  @Test
  void manySuccessiveChangesLeaveOnlyTheCurrentNodesOpen() throws Exception {
    InMemoryBackend own = new InMemoryBackend(KeyRules.MEMCACHED);
    try (AsyncCacheClient<String> quick =
        ShardwiseClient.builder()
            .backend(own)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .topology(TopologyOptions.defaults().withSettle(Duration.ZERO).withWarmUp(Duration.ofMillis(20)))
            .codec(Codecs.utf8())
            .build()) {
      for (int round = 0; round < 100; round++) {
        String servers = round % 2 == 0 ? "a:1,b:2,c:3,d:4,e:5,x" + round + ":9" : "a:1,b:2,c:3,d:4,e:5";
        quick.updateServers(ServerList.parse(servers)).join();
        quick.sync().set("k" + round, "v", Duration.ZERO);
      }
      until(() -> own.stores.values().stream().allMatch(s -> s.closed != quick.nodes().contains(s.node)));
      assertThat(quick.nodes()).hasSize(5);
      assertThat(own.stores).hasSize(55);
      assertThat(own.stores.values().stream().filter(s -> !s.closed).count()).isEqualTo(5);
      long topologyThreads =
          Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("shardwise-topology")).count();
      assertThat(topologyThreads).isLessThanOrEqualTo(1 + 1); // this client's, and another test's at most
    }
  }

  /** Waits up to 5 s for {@code condition}. */
  private static void until(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + 5_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        throw new AssertionError("not within 5 s");
      }
      Thread.sleep(10);
    }
  }
}
