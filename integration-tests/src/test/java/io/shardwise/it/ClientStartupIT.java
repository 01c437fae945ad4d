package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeState;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A new client used at once, with the backend as it is and the default failover options, over
 * servers that take 300 ms to answer a new connection (each behind a {@link TcpRelay}): its
 * first requests must be answered, and above all must not get healthy servers ejected (which,
 * with the {@code flush} rejoin policy, would empty them and wipe a shared cache whenever an
 * application instance starts); no key that other applications stored may be lost.
 *
 * <p>Both backends connect in the background ({@code connect} does not wait for the network), and
 * {@code build()} waits up to the connect wait (2 s by default) for every server's first connection
 * attempt, so a new client's first requests find open connections instead of failing with "not
 * connected yet", which the client would count as node failures. Both backends pass.
 */
@Timeout(60)
class ClientStartupIT {

  private static final Duration CONNECTION_DELAY = Duration.ofMillis(300);

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(3);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  private final List<TcpRelay> proxies = new ArrayList<>();
  private final Map<String, byte[]> existing = new LinkedHashMap<>();

  static Stream<Arguments> fleets() {
    Supplier<Backend> memcached = () -> CacheFleet.memcached(MEMCACHED).newBackend();
    return Stream.of(
        Arguments.of(CacheFleet.memcached(MEMCACHED), memcached),
        Arguments.of(CacheFleet.redis(REDIS), (Supplier<Backend>) CacheFleet::plainRedisBackend));
  }

  @AfterEach
  void closeProxies() {
    proxies.forEach(TcpRelay::close);
  }

  /** Fills every server as another application would, and puts a slow relay in front of it. */
  private String prepare(CacheFleet fleet) {
    fleet.reset();
    List<String> addresses = new ArrayList<>();
    for (int server = 0; server < fleet.size(); server++) {
      Map<String, byte[]> values = new LinkedHashMap<>();
      for (int i = 0; i < 10; i++) {
        values.put("existing:" + server + ":" + i, ("value " + i).getBytes(StandardCharsets.UTF_8));
      }
      fleet.rawSetAll(server, values);
      existing.putAll(values);
      TcpRelay proxy =
          new TcpRelay(
              fleet.server(server).host(), fleet.server(server).port(), CONNECTION_DELAY);
      proxies.add(proxy);
      addresses.add(proxy.address());
    }
    return String.join(",", addresses);
  }

  private static AsyncCacheClient<String> newClient(
      Backend backend, String servers, ConcurrentLinkedQueue<NodeEvent> events) {
    return ShardwiseClient.builder()
        .backend(backend)
        .servers(servers)
        .timeout(CacheFleet.CLIENT_TIMEOUT)
        .listener(events::add)
        .codec(Codecs.utf8())
        .build();
  }

  /** Three keys per node, found by asking the client where keys go. */
  private static List<String> threeKeysPerNode(AsyncCacheClient<String> client) {
    Map<Node, List<String>> byNode = new LinkedHashMap<>();
    int found = 0;
    for (int i = 0; found < 3 * client.nodes().size(); i++) {
      List<String> keys = byNode.computeIfAbsent(client.nodeFor("k" + i), n -> new ArrayList<>());
      if (keys.size() < 3) {
        keys.add("k" + i);
        found++;
      }
    }
    List<String> keys = new ArrayList<>();
    byNode.values().forEach(keys::addAll);
    return keys;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void firstRequestsOfANewClientAreAnswered(CacheFleet fleet, Supplier<Backend> backend) {
    String servers = prepare(fleet);
    try (AsyncCacheClient<String> client =
        newClient(backend.get(), servers, new ConcurrentLinkedQueue<>())) {
      List<CompletableFuture<String>> first = new ArrayList<>();
      for (String key : threeKeysPerNode(client)) {
        first.add(client.get(key));
      }

      for (CompletableFuture<String> request : first) {
        assertThat(Await.result(request)).isNull(); // a miss, not an error
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void requestsSentRightAfterBuildNeitherEjectNorFlushHealthyServers(
      CacheFleet fleet, Supplier<Backend> backend) {
    String servers = prepare(fleet);
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    try (AsyncCacheClient<String> client = newClient(backend.get(), servers, events)) {
      List<CompletableFuture<String>> burst = new ArrayList<>();
      for (String key : threeKeysPerNode(client)) {
        burst.add(client.get(key));
      }
      CompletableFuture.allOf(burst.toArray(new CompletableFuture<?>[0]))
          .handle((x, t) -> null)
          .join();
      CacheFleet.sleep(3_000); // time for probes and the rejoin step, if nodes were ejected

      Map<String, byte[]> left = new LinkedHashMap<>();
      for (int server = 0; server < fleet.size(); server++) {
        left.putAll(fleet.rawGetAll(server, existing.keySet()));
      }
      SoftAssertions.assertSoftly(
          soft -> {
            soft.assertThat(left.keySet())
                .as("keys other applications stored")
                .isEqualTo(existing.keySet());
            soft.assertThat(events).as("node events").isEmpty();
            soft.assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
          });
    }
  }
}
