package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.LoadReport;
import io.shardwise.client.MultiResult;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Bounded loads with keys on two replicas, over in-memory nodes and a clock that stands still (one
 * window bucket): a hot key's reads spread over its replicas before any spills, and spill past
 * them, with a copy, only when both are over their caps.
 */
class BoundedReplicasTest {

  private static final String SERVERS = "a:1,b:2,c:3,d:4,e:5";

  private InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private final AtomicLong clock = new AtomicLong(1_000_000_000L);
  private AsyncCacheClient<String> client;
  private CacheClient<String> sync;

  private void build(int replicas, BoundedOptions.Builder bounded) {
    client =
        new ClientBuilder<>(Codecs.utf8())
            .backend(backend)
            .servers(SERVERS)
            .replicas(replicas)
            .bounded(bounded.enabled(true).build())
            .nanoClock(clock::get)
            .build();
    sync = client.sync();
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  private long holders(String key) {
    return client.nodes().stream().filter(n -> backend.store(n).data.containsKey(key)).count();
  }

  private static long spilled(LoadReport report) {
    return report.nodes().stream().mapToLong(LoadReport.NodeLoad::spilledFrom).sum();
  }

  /** 400 keys whose primary is each server: cold reads that load every server alike. */
  private static List<String> balancedColdKeys() {
    Router router = RouterSpec.DEFAULT.build(io.shardwise.routing.ServerList.parse(SERVERS));
    int[] perNode = new int[router.size()];
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < 400 * router.size(); i++) {
      String k = "cold:" + i;
      int node = router.primary(router.hasher().hash(k));
      if (perNode[node] < 400) {
        perNode[node]++;
        keys.add(k);
      }
    }
    return keys;
  }

  /**
   * One read in five is of one hot key, the others of cold keys spread evenly; caps at 1.5 times a
   * server's share. On one server the hot key's primary carries 0.2 + 0.8 / 5 = 36% of the reads,
   * over its cap of 30%, and spills; on two replicas each carries about 0.1 + 0.16 = 26%, under it.
   */
  private long hotKeyStream(int replicas) {
    backend = new InMemoryBackend(KeyRules.MEMCACHED); // its own servers: no copy or count of another run
    build(replicas, BoundedOptions.builder().scope(BoundedOptions.Scope.HOT).hotThreshold(8).epsilon(0.5));
    List<String> cold = balancedColdKeys();
    Map<String, String> values = new LinkedHashMap<>();
    for (String k : cold) {
      values.put(k, "c");
    }
    values.put("hot", "h");
    sync.setMulti(values, Duration.ZERO);
    for (int i = 0; i < cold.size(); i++) {
      assertThat(sync.get(cold.get(i))).isEqualTo("c");
      if (i % 4 == 3) {
        assertThat(sync.get("hot")).isEqualTo("h");
      }
    }
    return spilled(client.loadReport());
  }

  @Test
  void aHotKeysReadsSpreadOverItsReplicasBeforeAnySpill() {
    long spilledWithOne = hotKeyStream(1);
    assertThat(spilledWithOne).as("reads spilled with one copy per key").isPositive();
    assertThat(holders("hot")).as("servers holding the hot key with one copy: its primary and copies").isGreaterThan(1);
    close();

    long spilledWithTwo = hotKeyStream(2);
    assertThat(spilledWithTwo).as("reads spilled with two replicas").isZero();
    assertThat(holders("hot")).as("servers holding the hot key: its two replicas, no copy").isEqualTo(2);
    // 2,500 reads, a fifth of them of the hot key: every server takes about its fifth (500), the
    // hot key's two included, whose other keys went to their other replicas.
    List<Integer> gets = new ArrayList<>();
    for (Node n : client.nodes()) {
      gets.add(backend.store(n).gets.get());
    }
    assertThat(gets.stream().mapToInt(Integer::intValue).sum()).isEqualTo(2_500);
    assertThat(gets).as("gets per server").allSatisfy(g -> assertThat(g).isBetween(450, 550));
  }

  @Test
  void aKeyHotterThanItsReplicasCanCarrySpillsPastThemAndAWriteRemovesTheCopies() {
    build(2, BoundedOptions.builder().scope(BoundedOptions.Scope.ALL).epsilon(0.25));
    sync.set("k", "old", Duration.ZERO);
    for (int i = 0; i < 400; i++) {
      assertThat(sync.get("k")).isEqualTo("old");
    }
    assertThat(spilled(client.loadReport())).isPositive();
    assertThat(holders("k")).as("its two replicas and the copies left where reads spilled").isGreaterThan(2);
    MultiResult<String> multi = client.getMulti(List.of("k", "other")).join();
    assertThat(multi.values()).containsEntry("k", "old");

    sync.set("k", "new", Duration.ZERO);
    assertThat(holders("k")).as("the set removed every copy before it completed").isEqualTo(2);
    for (int i = 0; i < 400; i++) {
      assertThat(sync.get("k")).isEqualTo("new");
      assertThat(client.getMulti(List.of("k")).join().values()).containsEntry("k", "new");
    }
    sync.delete("k");
    assertThat(holders("k")).isZero();
    for (int i = 0; i < 100; i++) {
      assertThat(sync.get("k")).isNull();
      assertThat(client.getMulti(List.of("k")).join().values()).doesNotContainKey("k");
    }
  }

  @Test
  void concurrentReadersNeverSeeAValueOlderThanTheLastConfirmedWrite() throws Exception {
    build(2, BoundedOptions.builder().scope(BoundedOptions.Scope.ALL).epsilon(0.1));
    String key = "contended";
    AtomicLong confirmed = new AtomicLong();
    sync.set(key, "0", Duration.ZERO);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicReference<String> problem = new AtomicReference<>();
    Set<Long> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      boolean multi = t % 2 == 1;
      Thread r =
          new Thread(
              () -> {
                while (running.get()) {
                  long min = confirmed.get();
                  String v = multi ? client.getMulti(List.of(key)).join().values().get(key) : sync.get(key);
                  if (v != null) {
                    seen.add(Long.parseLong(v));
                    if (Long.parseLong(v) < min) {
                      problem.compareAndSet(null, "read " + v + " after " + min + " was confirmed");
                    }
                  }
                }
              });
      readers.add(r);
      r.start();
    }
    // At least 2,000 versions, and on until the readers have seen more than 10 of them (a loaded
    // machine can starve the readers while the writer runs; at most 30 s more).
    long until = System.nanoTime() + 30_000_000_000L;
    for (long version = 1; version <= 2000 || (seen.size() <= 10 && System.nanoTime() < until); version++) {
      sync.set(key, Long.toString(version), Duration.ZERO);
      confirmed.set(version);
      if (version % 7 == 0) {
        sync.delete(key);
        sync.set(key, Long.toString(version), Duration.ZERO);
      }
    }
    running.set(false);
    for (Thread r : readers) {
      r.join();
    }
    assertThat(problem.get()).isNull();
    assertThat(new HashSet<>(seen)).as("values read").hasSizeGreaterThan(10);
    assertThat(spilled(client.loadReport())).as("reads that spilled past both replicas").isPositive();
  }
}
