package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeState;
import io.shardwise.client.Secret;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.memcached.MemcachedProtocol;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two memcached nodes, one of which requires SASL credentials that the client does not have: no
 * credentials at all (both protocols), or a password that node refuses. Every request for a key of
 * that node fails with a {@link NodeAuthenticationException} naming it; however many there are,
 * the node stays healthy (it is not ejected) and none of its keys is written to the other node.
 */
@Timeout(120)
class SaslNodeKeepsItsKeysIT {

  private static final String USER = "app";
  private static final String PASSWORD = "Keys-pass-1Mz";
  private static final String OTHER_PASSWORD = "Keys-pass-2Nx";
  private static final int KEYS = 2000;

  @RegisterExtension static final ServerFleet<MemcachedServer> PLAIN = ServerFleet.memcached(1);

  @RegisterExtension
  static final ServerFleet<MemcachedServer> SASL =
      ServerFleet.memcachedBuilder().sasl(USER, PASSWORD).build();

  @RegisterExtension
  static final ServerFleet<MemcachedServer> OTHER_SASL =
      ServerFleet.memcachedBuilder().sasl(USER, OTHER_PASSWORD).build();

  private static AsyncCacheClient<String> client(
      MemcachedOptions options, String servers, ConcurrentLinkedQueue<NodeEvent> events) {
    return ShardwiseClient.builder()
        .backend(MemcachedBackend.create(options))
        .servers(servers)
        .timeout(CacheFleet.CLIENT_TIMEOUT)
        .listener(events::add)
        .codec(Codecs.utf8())
        .build();
  }

  private static MemcachedOptions.Builder options(MemcachedProtocol protocol) {
    return MemcachedOptions.builder()
        .protocol(protocol)
        .operationTimeout(CacheFleet.BACKEND_TIMEOUT)
        .maxReconnectDelay(Duration.ofSeconds(1));
  }

  private static Node nodeAt(AsyncCacheClient<?> client, MemcachedServer server) {
    return client.nodes().stream()
        .filter(n -> n.address().equals(server.address()))
        .findFirst()
        .orElseThrow();
  }

  /** A keyed request: the key it uses, from a base key, and how to send it. */
  private record Operation(String suffix, Function<String, CompletableFuture<?>> send) {}

  private static List<Operation> everyOperation(AsyncCacheClient<String> client) {
    return List.of(
        new Operation("", key -> client.set(key, "value of " + key, Duration.ZERO)),
        new Operation(":added", key -> client.add(key, "added", Duration.ZERO)),
        new Operation(":counter", key -> client.incr(key, 1, 10, Duration.ZERO)),
        new Operation("", client::get),
        new Operation("", key -> client.touch(key, Duration.ofMinutes(5))),
        new Operation(":deleted", key -> client.delete(key)));
  }

  /**
   * Sends every kind of keyed request for {@code KEYS} base keys; checks that those for keys of
   * {@code refusing} fail with a {@link NodeAuthenticationException} naming it and containing
   * {@code problem}, and that the others succeed; returns the keys used, refused or not.
   */
  private static Map<Boolean, List<String>> writeEverywhere(
      AsyncCacheClient<String> client, Node refusing, String problem) {
    Map<Boolean, Set<String>> used =
        Map.of(true, new LinkedHashSet<>(), false, new LinkedHashSet<>());
    for (int i = 0; i < KEYS; i++) {
      for (Operation operation : everyOperation(client)) {
        String key = "key:" + i + operation.suffix();
        boolean onRefusing = client.nodeFor(key).equals(refusing);
        CompletableFuture<?> request = operation.send().apply(key);
        if (onRefusing) {
          assertThat(Await.failure(request))
              .isInstanceOf(NodeAuthenticationException.class)
              .hasMessageContaining(refusing.address())
              .hasMessageContaining(problem);
        } else {
          Await.result(request);
        }
        if (!operation.suffix().equals(":deleted")) {
          used.get(onRefusing).add(key);
        }
      }
      if (i % 500 == 0) {
        assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
      }
    }
    return Map.of(
        true, new ArrayList<>(used.get(true)), false, new ArrayList<>(used.get(false)));
  }

  private static boolean isBaseKey(String key) {
    return key.matches("key:\\d+");
  }

  /** getMulti over keys of both nodes: values for one, errors for the other; all nodes healthy. */
  private static void assertKeysStayOff(
      AsyncCacheClient<String> client, Node refusing, Map<Boolean, List<String>> keys) {
    List<String> mixed = new ArrayList<>(keys.get(true).subList(0, 50));
    keys.get(false).stream()
        .filter(SaslNodeKeepsItsKeysIT::isBaseKey)
        .limit(50)
        .forEach(mixed::add);
    MultiResult<String> both = Await.result(client.getMulti(mixed));
    assertThat(both.errors()).hasSize(50).containsOnlyKeys(keys.get(true).subList(0, 50));
    assertThat(both.errors().values()).allMatch(e -> e instanceof NodeAuthenticationException);
    assertThat(both.values()).hasSize(50);
    assertThat(client.nodeStates()).containsEntry(refusing, NodeState.HEALTHY);
    assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void withoutCredentialsTheSaslNodeFailsItsKeysAndKeepsThem(MemcachedProtocol protocol) {
    PLAIN.flushAll();
    MemcachedServer sasl = SASL.server(0);
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    String servers = PLAIN.server(0).address() + "," + sasl.address();
    try (AsyncCacheClient<String> client = client(options(protocol).build(), servers, events)) {
      Node refusing = nodeAt(client, sasl);

      Map<Boolean, List<String>> keys =
          writeEverywhere(
              client,
              refusing,
              "the server requires SASL authentication and none is configured");

      int refused = keys.get(true).size();
      // three keys per base key (set/get/touch, add, incr), about half of them on each node
      assertThat(refused).isBetween(KEYS * 3 / 4, KEYS * 9 / 4);
      assertKeysStayOff(client, refusing, keys);
      assertThat(events).isEmpty();
      // None of the refused node's keys reached the other server; all of its own are there.
      CacheFleet plain = CacheFleet.memcached(PLAIN);
      assertThat(plain.rawGetAll(0, keys.get(true))).isEmpty();
      Map<String, byte[]> stored = plain.rawGetAll(0, keys.get(false));
      assertThat(stored).hasSize(keys.get(false).size());
      String first =
          keys.get(false).stream().filter(SaslNodeKeepsItsKeysIT::isBaseKey).findFirst().get();
      assertThat(new String(stored.get(first), StandardCharsets.UTF_8))
          .isEqualTo("value of " + first);
    }
  }

  @Test
  void withARefusedPasswordThatNodeFailsItsKeysAndKeepsThem() {
    MemcachedServer accepting = SASL.server(0);
    MemcachedServer refusingServer = OTHER_SASL.server(0);
    MemcachedOptions withPassword =
        options(MemcachedProtocol.BINARY).sasl(USER, Secret.of(PASSWORD)).build();
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    String servers = accepting.address() + "," + refusingServer.address();
    try (MemcachedBackend direct = MemcachedBackend.create(withPassword);
        NodeConnection acceptingNode =
            direct.connect(Node.of(accepting.host(), accepting.port()))) {
      Await.result(acceptingNode.flushAll());
      Map<Boolean, List<String>> keys;
      try (AsyncCacheClient<String> client = client(withPassword, servers, events)) {
        Node refusing = nodeAt(client, refusingServer);

        keys =
            writeEverywhere(
                client,
                refusing,
                "SASL authentication failed: the server refused user '" + USER + "'");

        assertThat(keys.get(true).size()).isBetween(KEYS * 3 / 4, KEYS * 9 / 4);
        assertKeysStayOff(client, refusing, keys);
        assertThat(events).isEmpty();
      }
      // Read the accepting server with the right credentials: none of the refused node's keys is
      // there, all of its own are.
      assertThat(Await.result(acceptingNode.getMulti(keys.get(true))).values()).isEmpty();
      assertThat(Await.result(acceptingNode.getMulti(keys.get(false))).values())
          .hasSize(keys.get(false).size());
    }
  }
}
