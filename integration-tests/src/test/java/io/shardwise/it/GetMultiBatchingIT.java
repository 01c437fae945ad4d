package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code getMulti} of 1,000 keys over 5 servers accounts for every hit and miss, and sends exactly
 * one batched request per server: counted on the client side by a decorator around the backend's
 * node connections, and on the server side by the servers' own statistics.
 */
@Timeout(60)
class GetMultiBatchingIT {

  private static final int KEYS = 1_000;

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(5);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(5);

  /** The keys asked for: every even one was written, every odd one is a miss. */
  private static List<String> keys() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      keys.add("multi:" + i);
    }
    return keys;
  }

  private static Map<String, String> evenValues(List<String> keys) {
    Map<String, String> values = new LinkedHashMap<>();
    for (int i = 0; i < keys.size(); i += 2) {
      values.put(keys.get(i), "value-" + i);
    }
    return values;
  }

  /** What getMulti must return: every written key with its value, every other key a miss. */
  private static void assertHitsAndMisses(
      MultiResult<String> result, List<String> keys, Map<String, String> written) {
    Set<String> misses = new LinkedHashSet<>(keys);
    misses.removeAll(written.keySet());
    assertThat(result.errors()).isEmpty();
    assertThat(result.values()).isEqualTo(written);
    assertThat(result.misses()).isEqualTo(misses);
    assertThat(result.keyCount()).isEqualTo(KEYS);
  }

  private static Map<Integer, Integer> countPerServer(
      CacheFleet fleet, AsyncCacheClient<?> client, Iterable<String> keys) {
    Map<Integer, Integer> counts = new HashMap<>();
    for (String key : keys) {
      counts.merge(fleet.indexOf(client.nodeFor(key)), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void memcachedGetMultiSendsOneMultiGetPerServerAndReportsEveryHitAndMiss() {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    CountingBackend backend = new CountingBackend(fleet.newBackend());
    try (AsyncCacheClient<String> client =
        ready(
            ShardwiseClient.builder()
                .backend(backend)
                .servers(fleet.serverList(5))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .codec(Codecs.utf8())
                .build())) {
      List<String> keys = keys();
      Map<String, String> written = evenValues(keys);
      assertThat(Await.result(client.setMulti(written, Duration.ZERO)).errors()).isEmpty();
      Map<Integer, Integer> keysPerServer = countPerServer(fleet, client, keys);
      Map<Integer, Integer> hitsPerServer = countPerServer(fleet, client, written.keySet());
      assertThat(keysPerServer).hasSize(5);
      List<Map<String, String>> before = memcachedStats();
      backend.clear();

      MultiResult<String> result = Await.result(client.getMulti(keys));

      assertHitsAndMisses(result, keys, written);
      Map<Node, Integer> expectedCalls = new HashMap<>();
      Map<Node, Integer> expectedKeys = new HashMap<>();
      for (Node node : client.nodes()) {
        expectedCalls.put(node, 1);
        expectedKeys.put(node, keysPerServer.get(fleet.indexOf(node)));
      }
      assertThat(backend.getMultiCalls()).isEqualTo(expectedCalls);
      assertThat(backend.getMultiKeys()).isEqualTo(expectedKeys);
      assertThat(backend.otherCalls()).isEmpty();

      List<Map<String, String>> after = memcachedStats();
      for (int server = 0; server < 5; server++) {
        int routed = keysPerServer.get(server);
        int hits = hitsPerServer.getOrDefault(server, 0);
        assertThat(delta(before, after, server, "cmd_get"))
            .as("cmd_get of server %d", server)
            .isEqualTo(routed);
        assertThat(delta(before, after, server, "get_hits")).isEqualTo(hits);
        assertThat(delta(before, after, server, "get_misses")).isEqualTo(routed - hits);
      }
    }
  }

  @Test
  void redisGetMultiSendsOneMgetPerServerAndReportsEveryHitAndMiss() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    CountingBackend backend = new CountingBackend(fleet.newBackend());
    try (AsyncCacheClient<String> client =
        ready(
            ShardwiseClient.builder()
                .backend(backend)
                .servers(fleet.serverList(5))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .codec(Codecs.utf8())
                .build())) {
      List<String> keys = keys();
      Map<String, String> written = evenValues(keys);
      assertThat(Await.result(client.setMulti(written, Duration.ZERO)).errors()).isEmpty();
      Map<Integer, Integer> keysPerServer = countPerServer(fleet, client, keys);
      Map<Integer, Integer> hitsPerServer = countPerServer(fleet, client, written.keySet());
      assertThat(keysPerServer).hasSize(5);
      for (RedisServer server : REDIS.servers()) {
        server.command("CONFIG", "RESETSTAT");
      }
      backend.clear();

      MultiResult<String> result = Await.result(client.getMulti(keys));

      assertHitsAndMisses(result, keys, written);
      Map<Node, Integer> expectedCalls = new HashMap<>();
      for (Node node : client.nodes()) {
        expectedCalls.put(node, 1);
      }
      assertThat(backend.getMultiCalls()).isEqualTo(expectedCalls);
      assertThat(backend.otherCalls()).isEmpty();

      for (int server = 0; server < 5; server++) {
        Map<String, String> commands = REDIS.server(server).info("commandstats");
        assertThat(commands.get("cmdstat_mget"))
            .as("MGET statistics of server %d", server)
            .startsWith("calls=1,");
        assertThat(commands).doesNotContainKeys("cmdstat_get", "cmdstat_exists");
        Map<String, String> stats = REDIS.server(server).info("stats");
        int routed = keysPerServer.get(server);
        int hits = hitsPerServer.getOrDefault(server, 0);
        assertThat(Long.parseLong(stats.get("keyspace_hits"))).isEqualTo(hits);
        assertThat(Long.parseLong(stats.get("keyspace_misses"))).isEqualTo(routed - hits);
      }
    }
  }

  private static List<Map<String, String>> memcachedStats() {
    List<Map<String, String>> stats = new ArrayList<>();
    for (MemcachedServer server : MEMCACHED.servers()) {
      stats.add(server.stats());
    }
    return stats;
  }

  private static long delta(
      List<Map<String, String>> before, List<Map<String, String>> after, int server, String stat) {
    return Long.parseLong(after.get(server).get(stat))
        - Long.parseLong(before.get(server).get(stat));
  }
}
