package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.redis.RedisBackend;
import io.shardwise.redis.RedisBackendOptions;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.Twemproxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A near-cache client pointed at a RESP2-only proxy: twemproxy ({@code nutcracker}, {@code redis:
 * true}) in front of a real Redis. twemproxy closes the connection, without a reply, on {@code
 * HELLO} and on {@code CLIENT}, so the near cache, which needs RESP3 and {@code CLIENT TRACKING},
 * cannot work through it: the build fails with a message that names the server, the near cache,
 * the rule and the fix, and a connection that meets the proxy later keeps its node out, saying why.
 * The same client without the near cache works through the proxy.
 *
 * <p>Every client here sends no {@code CLIENT SETINFO} (no library name or version): twemproxy
 * closes the connection on that too, and Lettuce sends it in every handshake.
 */
@Timeout(120)
class NearCacheRedisProxyIT {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(2);

  /** A Redis that answers HELLO with an error, as a server older than Redis 6 does. */
  @RegisterExtension
  static final ServerFleet<RedisServer> NO_HELLO =
      ServerFleet.redisBuilder().servers(1).extraArgs("--rename-command", "HELLO", "").build();

  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(30);

  private Twemproxy proxy;
  private AsyncCacheClient<String> client;

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
    if (proxy != null) {
      proxy.close();
    }
    FLEET.restoreAll();
  }

  private static ClientBuilder<String> builder(String servers) {
    RedisBackend backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .commandTimeout(CacheFleet.BACKEND_TIMEOUT)
                .reconnectDelay(Duration.ofMillis(100), Duration.ofSeconds(1))
                .uriCustomizer(uri -> uri.withLibraryName("").withLibraryVersion(""))
                .build());
    return ShardwiseClient.builder()
        .backend(backend)
        .servers(servers)
        .timeout(CacheFleet.CLIENT_TIMEOUT)
        .codec(Codecs.utf8());
  }

  /** The refusal's message, wherever it is said: the build, a request, the node's status. */
  private static void assertTheRefusal(String message, Twemproxy through) {
    assertTheRefusal(message, through.address(), "it closed the connection in reply to HELLO 3");
  }

  private static void assertTheRefusal(String message, String address, String how) {
    assertThat(message)
        .contains("redis " + address + ": ")
        .contains("the near cache is on")
        .contains("RESP3 and CLIENT TRACKING: Redis 6 or later, reached directly")
        .contains("the server refused: " + how)
        .contains("Turn the near cache off for this fleet");
  }

  @Test
  void aNearCacheClientThroughTwemproxyFailsItsBuildSayingWhyAndWhatToDo() {
    proxy = Twemproxy.builder(FLEET.servers().subList(0, 1)).start();
    long start = System.nanoTime();
    assertThatThrownBy(() -> builder(proxy.address()).nearCache(NearCacheOptions.defaults()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(e -> assertTheRefusal(e.getMessage(), proxy));
    System.out.printf(
        "[near cache, twemproxy] the build failed after %d ms%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  @Test
  void aNearCacheClientOfAServerThatRefusesHelloFailsItsBuildSayingWhy() {
    String address = NO_HELLO.server(0).address();
    assertThatThrownBy(() -> builder(address).nearCache(NearCacheOptions.defaults()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .satisfies(
            e ->
                assertTheRefusal(
                    e.getMessage(), address, "it answered HELLO 3 with ERR unknown command 'HELLO'"));
  }

  @Test
  void theSameClientWithoutTheNearCacheWorksThroughTwemproxy() {
    proxy = Twemproxy.builder(FLEET.servers().subList(0, 1)).start();
    client = CacheFleet.ready(builder(proxy.address()).build());
    CacheClient<String> sync = client.sync();
    sync.set("through-the-proxy", "v1", Duration.ZERO);
    assertThat(sync.get("through-the-proxy")).isEqualTo("v1");
    assertThat(FLEET.server(0).get("through-the-proxy"))
        .isEqualTo("v1".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aNodeDownAtStartDoesNotFailTheBuildOfANearCacheClient() {
    RedisServer down = FLEET.server(1);
    down.stop();
    client = builder(down.address()).nearCache(NearCacheOptions.defaults()).build();
    assertThat(client.nodeStatus().values())
        .singleElement()
        .satisfies(s -> assertThat(s.nearCache()).isEqualTo(NearCacheTracking.NOT_CONNECTED));
  }

  @Test
  void aTrackedNodeThatComesBackBehindTwemproxyStaysOutSayingWhy() {
    RedisServer direct = FLEET.server(0);
    client = CacheFleet.ready(builder(direct.address()).nearCache(NearCacheOptions.defaults()).build());
    client.sync().set("k", "v1", Duration.ZERO);
    assertThat(client.sync().get("k")).isEqualTo("v1");
    assertThat(client.nodeStatus().values())
        .singleElement()
        .satisfies(s -> assertThat(s.nearCache()).isEqualTo(NearCacheTracking.TRACKED));

    // The server goes, and a proxy in front of the other server takes its port.
    direct.stop();
    proxy = Twemproxy.builder(FLEET.servers().subList(1, 2)).listenPort(direct.port()).start();

    long start = System.nanoTime();
    String failure = "";
    String refused = "";
    NodeStatus status = client.nodeStatus().values().iterator().next();
    while (!(status.state() != NodeState.HEALTHY && status.detail().contains("near cache") && !refused.isEmpty())) {
      assertThat(System.nanoTime() - start)
          .as("the node still healthy or silent: %s; last request: %s", status, failure)
          .isLessThan(WAIT_NANOS);
      try {
        client.sync().get("k");
      } catch (RuntimeException e) {
        failure = messages(e);
        refused = failure.contains("near cache") ? failure : refused;
      }
      CacheFleet.sleep(50);
      status = client.nodeStatus().values().iterator().next();
    }
    assertTheRefusal(status.detail(), proxy);
    assertThat(status.nearCache()).isEqualTo(NearCacheTracking.NOT_CONNECTED);
    assertThat(refused).as("a request failed with the refusal").isNotEmpty();
    assertTheRefusal(refused, proxy);
    System.out.printf(
        "[near cache, twemproxy] a node back behind the proxy: %s after %d ms: %s%n",
        status.state(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), status.detail());
  }

  /** Every message of {@code e}'s cause chain, one a line. */
  private static String messages(Throwable e) {
    StringBuilder out = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      out.append(t.getMessage()).append('\n');
    }
    return out.toString();
  }
}
