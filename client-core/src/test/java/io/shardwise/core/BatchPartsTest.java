package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.spi.KeyRules;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Batches larger than the batch size go to a server in parts, each judged on its own. */
class BatchPartsTest {

  private final InMemoryBackend backend = new InMemoryBackend(KeyRules.MEMCACHED);
  private AsyncCacheClient<String> client;

  private CacheClient<String> client(int batchSize, Duration timeout) {
    client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1")
            .timeout(timeout)
            .batchSize(batchSize)
            .codec(Codecs.utf8())
            .build();
    return client.sync();
  }

  private InMemoryBackend.Store store() {
    return backend.store(client.nodes().get(0));
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  private static Map<String, String> values(int n) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      values.put("k" + i, "v" + i);
    }
    return values;
  }

  @Test
  void aBatchOverTheBatchSizeIsSentInPartsOfThatSize() {
    CacheClient<String> sync = client(100, Duration.ofSeconds(1));
    Map<String, String> values = values(1050);

    int before = store().requests.get();
    MultiResult<Boolean> stored = sync.setMulti(values, Duration.ZERO);
    assertThat(store().requests.get() - before).as("setMulti requests").isEqualTo(11);
    assertThat(stored.values()).hasSize(1050);
    assertThat(stored.errors()).isEmpty();

    before = store().multiGets.get();
    MultiResult<String> read = sync.getMulti(values.keySet());
    assertThat(store().multiGets.get() - before).as("getMulti requests").isEqualTo(11);
    assertThat(read.values()).isEqualTo(values);

    before = store().requests.get();
    MultiResult<Boolean> deleted = sync.deleteMulti(values.keySet());
    assertThat(store().requests.get() - before).as("deleteMulti requests").isEqualTo(11);
    assertThat(deleted.values()).hasSize(1050).doesNotContainValue(false);
    assertThat(store().data).isEmpty();

    before = store().multiGets.get();
    sync.getMulti(values(100).keySet());
    assertThat(store().multiGets.get() - before).as("a batch of exactly the batch size").isEqualTo(1);
  }

  @Test
  void aSetMultiIsAlsoCutByTheBytesOfItsValues() {
    try (AsyncCacheClient<byte[]> bytes =
        ShardwiseClient.builder()
            .backend(backend)
            .servers("a:1")
            .maxValueBytes(1 << 20)
            .codec(Codecs.bytes())
            .build()) {
      InMemoryBackend.Store store = backend.store(bytes.nodes().get(0));
      java.util.Random random = new java.util.Random(7);
      Map<String, byte[]> values = new LinkedHashMap<>();
      for (int i = 0; i < 10; i++) {
        byte[] value = new byte[300 * 1024];
        random.nextBytes(value);
        values.put("big" + i, value);
      }
      int before = store.requests.get();
      assertThat(bytes.sync().setMulti(values, Duration.ZERO).values()).hasSize(10);
      // 3 values of 300 KiB fit in 1 MiB, a fourth does not: parts of 3, 3, 3 and 1.
      assertThat(store.requests.get() - before).isEqualTo(4);
      assertThat(bytes.sync().getMulti(values.keySet()).values()).containsOnlyKeys(values.keySet());
    }
  }

  @Test
  void aPartThatFailsOnAServerThatAnswersAPingIsSentAgainAndTheRestFollow() {
    CacheClient<String> sync = client(100, Duration.ofSeconds(1));
    Map<String, String> values = values(500);
    int before = store().requests.get();
    store().failRequestWith = new IOException("connection reset");
    store().failRequest = before + 2;

    MultiResult<Boolean> result = sync.setMulti(values, Duration.ZERO);

    assertThat(result.errors()).isEmpty();
    assertThat(result.values()).containsOnlyKeys(values.keySet());
    assertThat(store().data.keySet()).containsExactlyInAnyOrderElementsOf(values.keySet());
    assertThat(store().requests.get() - before)
        .as("5 parts, a ping, the failed part again in 10 pieces")
        .isEqualTo(16);
  }

  @Test
  void aGetMultiPartSentAgainReportsItsMissesAsMisses() {
    CacheClient<String> sync = client(100, Duration.ofSeconds(1));
    Map<String, String> values = values(300);
    sync.setMulti(values, Duration.ZERO);
    List<String> asked = new ArrayList<>(values.keySet());
    for (int i = 0; i < 100; i++) {
      asked.add(100, "absent" + i); // the second part is 100 absent keys
    }
    store().failRequestWith = new IOException("connection reset");
    store().failRequest = store().requests.get() + 2;

    MultiResult<String> read = sync.getMulti(asked);

    assertThat(read.errors()).isEmpty();
    assertThat(read.values()).isEqualTo(values);
    assertThat(read.misses()).hasSize(100);
  }

  @Test
  void aDeletePartThatFailsOnAServerThatAnswersIsNotSentAgainButTheRestFollow() {
    CacheClient<String> sync = client(100, Duration.ofSeconds(1));
    Map<String, String> values = values(500);
    sync.setMulti(values, Duration.ZERO);
    int before = store().requests.get();
    store().failRequestWith = new IOException("connection reset");
    store().failRequest = before + 2;

    MultiResult<Boolean> result = sync.deleteMulti(values.keySet());

    List<String> keys = new ArrayList<>(values.keySet());
    assertThat(result.errors().keySet()).containsExactlyInAnyOrderElementsOf(keys.subList(100, 200));
    for (String key : keys.subList(100, 200)) {
      assertThat(result.errors().get(key)).as(key).hasMessageContaining("connection reset");
    }
    assertThat(result.values()).hasSize(400).doesNotContainValue(false);
    assertThat(store().data.keySet()).containsExactlyInAnyOrderElementsOf(keys.subList(100, 200));
    assertThat(store().requests.get() - before).as("5 parts and a ping").isEqualTo(6);
  }

  @Test
  void aPartThatFailsOnAServerThatDoesNotAnswerEndsTheBatchAndEveryKeySaysWhatHappenedToIt() {
    CacheClient<String> sync = client(100, Duration.ofSeconds(1));
    Map<String, String> values = values(500);
    store().failRequestWith = new IOException("connection reset");
    store().failRequest = store().requests.get() + 2;
    store().failRequests = 4; // the second part, and the three pings after it

    MultiResult<Boolean> result = sync.setMulti(values, Duration.ZERO);

    List<String> keys = new ArrayList<>(values.keySet());
    assertThat(result.values().keySet()).containsExactlyElementsOf(keys.subList(0, 100));
    assertThat(store().data.keySet()).containsExactlyInAnyOrderElementsOf(keys.subList(0, 100));
    for (String key : keys.subList(100, 200)) {
      assertThat(result.errors().get(key)).as(key).hasMessageContaining("connection reset");
      assertThat(result.errors().get(key)).isNotInstanceOf(NodeUnavailableException.class);
    }
    for (String key : keys.subList(200, 500)) {
      assertThat(result.errors().get(key))
          .as(key)
          .isInstanceOf(NodeUnavailableException.class)
          .hasMessageContaining("not sent: an earlier part of this batch failed on this node")
          .hasMessageContaining("connection reset")
          .hasMessageContaining("did not answer a ping");
    }
    assertThat(store().requests.get())
        .as("the parts after the failed one and its pings were not sent")
        .isEqualTo(store().failRequest + 3);
  }

  @Test
  void aPartRefusedForAReasonOfItsOwnDoesNotStopTheOthers() {
    CacheClient<String> sync = client(100, Duration.ofSeconds(1));
    Map<String, String> values = values(300);
    sync.setMulti(values, Duration.ZERO);
    store().failRequestWith = new IllegalStateException("refused");
    store().failRequest = store().requests.get() + 2;

    MultiResult<String> read = sync.getMulti(values.keySet());

    List<String> keys = new ArrayList<>(values.keySet());
    assertThat(read.errors().keySet()).containsExactlyElementsOf(keys.subList(100, 200));
    assertThat(read.values()).hasSize(200).containsKeys(keys.get(0), keys.get(299));
  }

  @Test
  void eachPartHasItsOwnTimeoutSoABatchMayTakeLongerThanOne() {
    Duration timeout = Duration.ofMillis(500);
    CacheClient<String> sync = client(10, timeout);
    // 36 parts, each answered 100 ms after it is sent: 3.6 s in all, longer than the timeout
    // and than the blocking view's wait for one request (4 timeouts and 1 s).
    Map<String, String> values = values(360);
    store().delayMillis = 100;

    long start = System.nanoTime();
    MultiResult<Boolean> stored = sync.setMulti(values, Duration.ZERO);
    long took = System.nanoTime() - start;

    assertThat(stored.errors()).isEmpty();
    assertThat(stored.values()).hasSize(360);
    assertThat(Duration.ofNanos(took)).isGreaterThan(timeout.multipliedBy(4).plusSeconds(1));
    assertThat(sync.getMulti(values.keySet()).values()).isEqualTo(values);
  }
}
