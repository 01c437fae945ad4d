package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeState;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedServerErrorException;
import io.shardwise.redis.RedisErrorReplyException;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An error reply fails only its own request: the future completes with a {@link NodeException}
 * whose cause is the backend's error-reply exception, requests in flight on the same connection and
 * the next ones succeed at once, the connection is not re-opened, and the node is not ejected
 * however many error replies it sends.
 */
@Timeout(60)
class ErrorReplyIT {

  /** memcached's default item limit ({@code -I 1m}): what the backend README computes. */
  private static final int ITEM_LIMIT = 1024 * 1024;

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(3);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  private static byte[] incompressible(int length) {
    byte[] b = new byte[length];
    new Random(length).nextBytes(b);
    return b;
  }

  /** {@code count} keys that the client routes to {@code node}. */
  private static List<String> keysOn(AsyncCacheClient<?> client, Node node, int count) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; keys.size() < count; i++) {
      if (client.nodeFor("neighbour:" + i).equals(node)) {
        keys.add("neighbour:" + i);
      }
    }
    return keys;
  }

  /**
   * {@code backend} without the client's item size check, which refuses these values before they
   * reach the server: the server's error reply is what is tested here.
   */
  private static Backend withoutItemSizeCheck(Backend backend) {
    return new ForwardingBackend(backend) {
      @Override
      public void checkValue(String key, CachedValue value) {}
    };
  }

  private static long memcachedConnectionsOpened(MemcachedServer server) {
    return Long.parseLong(server.stats().get("total_connections"));
  }

  private static long redisConnectionsOpened(RedisServer server) {
    return Long.parseLong(server.info("stats").get("total_connections_received"));
  }

  @Test
  void memcachedValueJustOverTheServerItemLimitFailsOnlyThatRequest() {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    try (AsyncCacheClient<byte[]> client =
        ready(
            ShardwiseClient.builder()
                .backend(withoutItemSizeCheck(fleet.newBackend()))
                .servers(fleet.serverList(3))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .listener(events::add)
                .codec(Codecs.bytes())
                .build())) {
      String key = "big:item";
      Node node = client.nodeFor(key);
      MemcachedServer server = MEMCACHED.server(fleet.indexOf(node));
      // header 48 + key + 1 + value + 2 + CAS 8 + 4 for non-zero flags <= 1 MiB (backend README)
      int largestStored = ITEM_LIMIT - 48 - key.length() - 1 - 2 - 8 - 4;
      assertThat(largestStored).isEqualTo(1048505);
      byte[] fits = incompressible(largestStored);
      client.sync().set(key, fits, Duration.ZERO);
      assertThat(server.get(key).value()).isEqualTo(fits);
      List<String> neighbours = keysOn(client, node, 20);
      for (String neighbour : neighbours) {
        client.sync().set(neighbour, neighbour.getBytes(StandardCharsets.UTF_8), Duration.ZERO);
      }
      long connectionsBefore = memcachedConnectionsOpened(server);

      // One byte more, sent while reads of other keys are in flight on the same connection.
      List<CompletableFuture<byte[]>> inFlight = new ArrayList<>();
      for (String neighbour : neighbours) {
        inFlight.add(client.get(neighbour));
      }
      Throwable failure =
          Await.failure(client.set(key, incompressible(largestStored + 1), Duration.ZERO));
      for (String neighbour : neighbours) {
        inFlight.add(client.get(neighbour));
      }

      assertThat(failure)
          .isInstanceOf(NodeException.class)
          .hasMessageStartingWith(node.address() + ": ");
      assertThat(((NodeException) failure).node()).isEqualTo(node);
      assertThat(failure.getCause()).isInstanceOf(MemcachedServerErrorException.class);
      assertThat(((MemcachedServerErrorException) failure.getCause()).reply())
          .isEqualTo("SERVER_ERROR object too large for cache");
      for (int i = 0; i < inFlight.size(); i++) {
        String neighbour = neighbours.get(i % neighbours.size());
        assertThat(Await.result(inFlight.get(i)))
            .isEqualTo(neighbour.getBytes(StandardCharsets.UTF_8));
      }
      long start = System.nanoTime();
      client.sync().set("after:error", new byte[] {1}, Duration.ZERO);
      assertThat(client.sync().get(neighbours.get(0))).isNotNull();
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(CacheFleet.CLIENT_TIMEOUT);
      // memcached removes the old value of a key whose set failed.
      assertThat(client.sync().get(key)).isNull();

      // Many error replies in a row: still not a node failure.
      for (int i = 0; i < 5; i++) {
        assertThat(Await.failure(client.set(key, incompressible(ITEM_LIMIT), Duration.ZERO)))
            .hasCauseInstanceOf(MemcachedServerErrorException.class);
      }
      assertThat(client.sync().get(neighbours.get(1))).isNotNull();
      assertThat(memcachedConnectionsOpened(server))
          .as("connections opened on the server (+1: the raw stats connection)")
          .isEqualTo(connectionsBefore + 1);
      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
      assertThat(events).isEmpty();
    }
  }

  @Test
  void memcachedIncrOfANonNumericValueFailsOnlyThatRequest() {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    try (AsyncCacheClient<String> client = ready(fleet.builder(3).codec(Codecs.utf8()).build())) {
      Node node = client.nodeFor("counter:text");
      MemcachedServer server = MEMCACHED.server(fleet.indexOf(node));
      client.sync().set("counter:text", "not a number", Duration.ZERO);
      long connectionsBefore = memcachedConnectionsOpened(server);

      for (int i = 0; i < 5; i++) {
        Throwable failure = Await.failure(client.incr("counter:text", 1, 0, Duration.ZERO));
        assertThat(failure).isInstanceOf(NodeException.class).hasMessageContaining(node.address());
        assertThat(failure.getCause()).isInstanceOf(MemcachedServerErrorException.class);
        assertThat(((MemcachedServerErrorException) failure.getCause()).reply())
            .isEqualTo("CLIENT_ERROR cannot increment or decrement non-numeric value");
      }

      assertThat(client.sync().get("counter:text")).isEqualTo("not a number");
      assertThat(client.sync().incr(keysOn(client, node, 1).get(0), 1, 7, Duration.ZERO))
          .isEqualTo(7);
      assertThat(memcachedConnectionsOpened(server)).isEqualTo(connectionsBefore + 1);
      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
    }
  }

  @Test
  void redisErrorRepliesFailOnlyTheirRequest() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    try (AsyncCacheClient<String> client =
        ready(
            ShardwiseClient.builder()
                .backend(fleet.newBackend())
                .servers(fleet.serverList(3))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .listener(events::add)
                .codec(Codecs.utf8())
                .build())) {
      Node node = client.nodeFor("counter:text");
      RedisServer server = REDIS.server(fleet.indexOf(node));
      client.sync().set("counter:text", "not a number", Duration.ZERO);
      String list = keysOn(client, node, 1).get(0);
      server.command("RPUSH", list, "a", "b");
      List<String> neighbours = keysOn(client, node, 20).subList(1, 20);
      for (String neighbour : neighbours) {
        client.sync().set(neighbour, "value of " + neighbour, Duration.ZERO);
      }
      long connectionsBefore = redisConnectionsOpened(server);

      for (int i = 0; i < 5; i++) {
        List<CompletableFuture<String>> inFlight = new ArrayList<>();
        for (String neighbour : neighbours) {
          inFlight.add(client.get(neighbour));
        }
        Throwable notANumber = Await.failure(client.incr("counter:text", 1, 0, Duration.ZERO));
        Throwable wrongType = Await.failure(client.get(list));

        assertThat(notANumber)
            .isInstanceOf(NodeException.class)
            .hasMessageStartingWith(node.address() + ": ");
        assertThat(notANumber.getCause()).isInstanceOf(RedisErrorReplyException.class);
        RedisErrorReplyException reply = (RedisErrorReplyException) notANumber.getCause();
        assertThat(reply.errorCode()).isEqualTo("ERR");
        assertThat(reply.reply()).contains("value is not an integer");
        assertThat(wrongType).isInstanceOf(NodeException.class);
        assertThat(((RedisErrorReplyException) wrongType.getCause()).errorCode())
            .isEqualTo("WRONGTYPE");
        for (int k = 0; k < neighbours.size(); k++) {
          assertThat(Await.result(inFlight.get(k))).isEqualTo("value of " + neighbours.get(k));
        }
      }

      assertThat(client.sync().get("counter:text")).isEqualTo("not a number");
      assertThat(client.sync().incr("counter:fine", 1, 7, Duration.ZERO)).isEqualTo(7);
      assertThat(redisConnectionsOpened(server))
          .as("connections the server accepted (+1: the raw INFO connection)")
          .isEqualTo(connectionsBefore + 1);
      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
      assertThat(events).isEmpty();
    }
  }
}
