package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Batches of tens of thousands of keys on one real server, with a 1 s timeout: they are sent in
 * parts of the batch size (1,000 keys), each with its own timeout, so that every key is stored,
 * read and deleted; and when the server stops in the middle of a batch, every key's outcome is
 * what happened to it: stored, timed out with its part, or not sent.
 */
@Timeout(180)
class BigBatchIT {

  private static final int KEYS = 50_000;
  private static final int BATCH_SIZE = 1000;
  private static final Duration TIMEOUT = Duration.ofSeconds(1);

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(1);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(1);

  private static Map<String, String> values() {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      values.put("batch:" + i, "value-" + i + "-" + "x".repeat(90));
    }
    return values;
  }

  private static AsyncCacheClient<String> client(CacheFleet fleet, CountingBackend backend) {
    return ready(
        ShardwiseClient.builder()
            .backend(backend)
            .servers(fleet.serverList(1))
            .timeout(TIMEOUT)
            .codec(Codecs.utf8())
            .build());
  }

  @Test
  void memcachedStoresReadsAndDeletesBigBatchesInParts() {
    storesReadsAndDeletesBigBatchesInParts(CacheFleet.memcached(MEMCACHED));
  }

  @Test
  void redisStoresReadsAndDeletesBigBatchesInParts() {
    storesReadsAndDeletesBigBatchesInParts(CacheFleet.redis(REDIS));
  }

  private void storesReadsAndDeletesBigBatchesInParts(CacheFleet fleet) {
    fleet.reset();
    CountingBackend backend = new CountingBackend(fleet.newBackend());
    try (AsyncCacheClient<String> client = client(fleet, backend)) {
      CacheClient<String> sync = client.sync();
      Map<String, String> values = values();
      backend.clear();

      MultiResult<Boolean> stored = sync.setMulti(values, Duration.ZERO);

      assertThat(stored.errors()).isEmpty();
      assertThat(stored.values()).hasSize(KEYS);
      assertThat(backend.setMultiCalls()).isEqualTo(KEYS / BATCH_SIZE);
      assertThat(fleet.rawGetAll(0, values.keySet())).hasSize(KEYS);

      List<String> asked = new ArrayList<>(values.keySet());
      for (int i = 0; i < KEYS; i++) {
        asked.add("absent:" + i);
      }
      MultiResult<String> read = sync.getMulti(asked);
      assertThat(read.errors()).isEmpty();
      assertThat(read.values()).isEqualTo(values);
      assertThat(read.misses()).hasSize(KEYS);
      assertThat(backend.getMultiCalls().values()).containsExactly(2 * KEYS / BATCH_SIZE);

      MultiResult<Boolean> deleted = sync.deleteMulti(values.keySet());
      assertThat(deleted.errors()).isEmpty();
      assertThat(deleted.values()).hasSize(KEYS).doesNotContainValue(false);
      assertThat(backend.deleteMultiCalls()).isEqualTo(KEYS / BATCH_SIZE);
      assertThat(fleet.rawGetAll(0, values.keySet())).isEmpty();
      assertThat(backend.largestBatch()).isEqualTo(BATCH_SIZE);
    }
  }

  @Test
  void memcachedStoppedInTheMiddleOfABatchLeavesEveryKeyWithItsOwnOutcome() {
    stoppedInTheMiddleOfABatchLeavesEveryKeyWithItsOwnOutcome(CacheFleet.memcached(MEMCACHED));
  }

  @Test
  void redisStoppedInTheMiddleOfABatchLeavesEveryKeyWithItsOwnOutcome() {
    stoppedInTheMiddleOfABatchLeavesEveryKeyWithItsOwnOutcome(CacheFleet.redis(REDIS));
  }

  /**
   * The server is stopped (SIGSTOP) just before the 11th part is sent: the first 10 parts are
   * stored, the 11th times out, and the other 39 are not sent; once the server runs again it holds
   * every key reported stored and none of the keys reported not sent.
   */
  private void stoppedInTheMiddleOfABatchLeavesEveryKeyWithItsOwnOutcome(CacheFleet fleet) {
    fleet.reset();
    CountingBackend backend = new CountingBackend(fleet.newBackend());
    try (AsyncCacheClient<String> client = client(fleet, backend)) {
      Map<String, String> values = values();
      List<String> keys = new ArrayList<>(values.keySet());
      backend.clear();
      backend.beforeSetMulti =
          n -> {
            if (n == 11) {
              fleet.server(0).pause();
            }
          };
      MultiResult<Boolean> result;
      try {
        result = client.sync().setMulti(values, Duration.ZERO);
      } finally {
        fleet.server(0).resume();
      }

      assertThat(backend.setMultiCalls()).as("parts sent").isEqualTo(11);
      assertThat(result.values().keySet()).containsExactlyElementsOf(keys.subList(0, 10 * BATCH_SIZE));
      for (String key : keys.subList(10 * BATCH_SIZE, 11 * BATCH_SIZE)) {
        assertThat(result.errors().get(key)).as(key).isInstanceOf(NodeTimeoutException.class);
      }
      List<String> notSent = keys.subList(11 * BATCH_SIZE, KEYS);
      for (String key : notSent) {
        ShardwiseException error = result.errors().get(key);
        assertThat(error)
            .as(key)
            .isInstanceOf(NodeUnavailableException.class)
            .hasMessageContaining("not sent: an earlier part of this batch failed on this node");
      }
      assertThat(fleet.rawGetAll(0, result.values().keySet())).hasSize(10 * BATCH_SIZE);
      assertThat(fleet.rawGetAll(0, notSent)).isEmpty();
    }
  }
}
