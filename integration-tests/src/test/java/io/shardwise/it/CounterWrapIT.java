package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeState;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.memcached.MemcachedProtocol;
import io.shardwise.memcached.MemcachedProtocolException;
import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * memcached counters are unsigned 64-bit. Through the routing client, on both protocols, a counter
 * crosses 2^63 and 2^64 and goes down to 0 with the same unsigned results, while 3,000 other keys
 * of its node are read in flight on the same connection: no request fails, the connection is not
 * reopened, every node stays healthy and every key is still there. And a reply the client cannot
 * parse (from a scripted server, since memcached sends none) fails only its own request.
 */
@Timeout(180)
class CounterWrapIT {

  private static final int NEIGHBOURS = 3000;

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  /** What each step of {@link #countAcrossTheLimits} returns, as unsigned decimals. */
  private static final List<String> EXPECTED =
      List.of(
          // counter:wrap created at 2^63 - 3, then +1 five times across 2^63
          "9223372036854775805",
          "9223372036854775806",
          "9223372036854775807",
          "9223372036854775808",
          "9223372036854775809",
          "9223372036854775810",
          // + (2^63 - 3) = 2^64 - 1, then across 2^64, then decr past 0
          "18446744073709551615",
          "0",
          "7",
          "0",
          // counter:high created at 2^64 - 6, + 10 wraps, - 5 stops at 0
          "18446744073709551610",
          "4",
          "0",
          // counter:down created at 2^63 + 5, - (2^63 - 1), - 100
          "9223372036854775813",
          "6",
          "0");

  private static AsyncCacheClient<String> client(
      MemcachedProtocol protocol, String servers, ConcurrentLinkedQueue<NodeEvent> events) {
    return ShardwiseClient.builder()
        .backend(
            MemcachedBackend.create(
                MemcachedOptions.builder()
                    .protocol(protocol)
                    .operationTimeout(CacheFleet.BACKEND_TIMEOUT)
                    .maxReconnectDelay(Duration.ofSeconds(1))
                    .build()))
        .servers(servers)
        .timeout(CacheFleet.CLIENT_TIMEOUT)
        .listener(events::add)
        .codec(Codecs.utf8())
        .build();
  }

  /** {@code count} keys starting with {@code prefix} that the client routes to {@code node}. */
  private static List<String> keysOn(
      AsyncCacheClient<?> client, Node node, String prefix, int count) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < count; i++) {
      if (client.nodeFor(prefix + i).equals(node)) {
        keys.add(prefix + i);
      }
    }
    return keys;
  }

  private static long connectionsOpened(MemcachedServer server) {
    return Long.parseLong(server.stats().get("total_connections"));
  }

  private static String unsigned(CompletableFuture<Long> counter) {
    return Long.toUnsignedString(Await.result(counter));
  }

  @Test
  void countersCrossTwoToThe63AndTwoToThe64WithTheSameResultsOnBothProtocols() {
    List<String> text = countAcrossTheLimits(MemcachedProtocol.TEXT);
    List<String> binary = countAcrossTheLimits(MemcachedProtocol.BINARY);

    assertThat(text).isEqualTo(EXPECTED);
    assertThat(binary).isEqualTo(text);
  }

  private List<String> countAcrossTheLimits(MemcachedProtocol protocol) {
    FLEET.restoreAll();
    FLEET.flushAll();
    CacheFleet fleet = CacheFleet.memcached(FLEET);
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    List<String> results = new ArrayList<>();
    try (AsyncCacheClient<String> client = client(protocol, fleet.serverList(3), events)) {
      String counter = "counter:wrap";
      Node node = client.nodeFor(counter);
      int index = fleet.indexOf(node);
      MemcachedServer server = FLEET.server(index);
      List<String> counters = keysOn(client, node, "counter:other:", 2);
      List<String> neighbours = keysOn(client, node, "neighbour:", NEIGHBOURS);
      Map<String, String> values = new LinkedHashMap<>();
      for (String key : neighbours) {
        values.put(key, "value of " + key);
      }
      assertThat(Await.result(client.setMulti(values, Duration.ZERO)).hasErrors()).isFalse();
      long opened = connectionsOpened(server);

      results.add(unsigned(client.incr(counter, 1, Long.MAX_VALUE - 2, Duration.ZERO)));
      // Reads of every neighbour in flight on the counter's connection while it crosses 2^63.
      List<CompletableFuture<String>> reads = new ArrayList<>();
      List<CompletableFuture<Long>> increments = new ArrayList<>();
      for (int i = 0; i < NEIGHBOURS; i++) {
        reads.add(client.get(neighbours.get(i)));
        if (i % 600 == 300) {
          increments.add(client.incr(counter, 1, 0, Duration.ZERO));
        }
      }
      increments.forEach(increment -> results.add(unsigned(increment)));
      for (int i = 0; i < NEIGHBOURS; i++) {
        assertThat(Await.result(reads.get(i))).isEqualTo(values.get(neighbours.get(i)));
      }
      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);

      results.add(unsigned(client.incr(counter, Long.MAX_VALUE - 2, 0, Duration.ZERO)));
      assertThat(server.get(counter).valueUtf8().trim()).isEqualTo("18446744073709551615");
      results.add(unsigned(client.incr(counter, 1, 0, Duration.ZERO)));
      results.add(unsigned(client.incr(counter, 7, 0, Duration.ZERO)));
      results.add(unsigned(client.decr(counter, 10, 0, Duration.ZERO)));

      String high = counters.get(0);
      results.add(unsigned(client.incr(high, 1, -6L, Duration.ZERO)));
      assertThat(server.get(high).valueUtf8()).isEqualTo("18446744073709551610");
      results.add(unsigned(client.incr(high, 10, 0, Duration.ZERO)));
      results.add(unsigned(client.decr(high, 5, 0, Duration.ZERO)));

      String down = counters.get(1);
      results.add(unsigned(client.decr(down, 1, Long.MIN_VALUE + 5, Duration.ZERO)));
      results.add(unsigned(client.decr(down, Long.MAX_VALUE, 0, Duration.ZERO)));
      results.add(unsigned(client.decr(down, 100, 0, Duration.ZERO)));

      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
      assertThat(events).isEmpty();
      // +3: the two raw gets above and the raw stats connection; the client's connection to the
      // node was never reopened.
      assertThat(connectionsOpened(server)).isEqualTo(opened + 3);
      MultiResult<String> all = Await.result(client.getMulti(neighbours));
      assertThat(all.hasErrors()).isFalse();
      assertThat(all.values()).isEqualTo(values);
      Map<String, byte[]> raw = fleet.rawGetAll(index, neighbours);
      assertThat(raw).hasSize(NEIGHBOURS);
      for (String key : neighbours) {
        assertThat(new String(raw.get(key), StandardCharsets.UTF_8)).isEqualTo(values.get(key));
      }
    }
    return results;
  }

  @Test
  void aReplyTheClientCannotParseFailsOnlyItsRequest() throws Exception {
    try (ScriptedMemcached scripted = new ScriptedMemcached()) {
      ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
      String servers = FLEET.server(0).address() + "," + scripted.address();
      try (AsyncCacheClient<String> client = client(MemcachedProtocol.TEXT, servers, events)) {
        Node node =
            client.nodes().stream()
                .filter(n -> n.address().equals(scripted.address()))
                .findFirst()
                .orElseThrow();
        String counter = keysOn(client, node, "counter:garbled:", 1).get(0);
        List<String> neighbours = keysOn(client, node, "neighbour:", 200);
        for (String key : neighbours) {
          client.sync().set(key, "value of " + key, Duration.ZERO);
        }
        client.sync().set(counter, "5", Duration.ZERO);
        scripted.answerCounter(counter, "12abc");
        int connections = scripted.textConnections();

        for (int round = 0; round < 10; round++) {
          List<CompletableFuture<String>> reads = new ArrayList<>();
          neighbours.forEach(key -> reads.add(client.get(key)));
          Throwable failure = Await.failure(client.incr(counter, 1, 0, Duration.ZERO));
          neighbours.forEach(key -> reads.add(client.get(key)));

          assertThat(failure)
              .isInstanceOf(NodeException.class)
              .hasMessageContaining(scripted.address())
              .hasMessageContaining("incr '" + counter + "'")
              .hasMessageContaining("cannot parse the reply '12abc'");
          assertThat(failure.getCause()).isInstanceOf(MemcachedProtocolException.class);
          assertThat(((MemcachedProtocolException) failure.getCause()).reply()).isEqualTo("12abc");
          for (int i = 0; i < reads.size(); i++) {
            String key = neighbours.get(i % neighbours.size());
            assertThat(Await.result(reads.get(i))).isEqualTo("value of " + key);
          }
        }
        scripted.answerVersion("OK");
        Throwable ping = Await.failure(client.ping(node));
        assertThat(ping.getCause()).isInstanceOf(MemcachedProtocolException.class);
        assertThat(ping).hasMessageContaining("cannot parse the reply 'OK'");

        assertThat(client.sync().get(neighbours.get(0))).isEqualTo("value of " + neighbours.get(0));
        assertThat(scripted.value(counter)).isEqualTo("5");
        assertThat(scripted.textConnections()).isEqualTo(connections);
        assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
        assertThat(events).isEmpty();
      }
    }
  }
}
