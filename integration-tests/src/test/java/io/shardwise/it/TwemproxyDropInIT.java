package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import io.shardwise.testing.Twemproxy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Drop-in for a twemproxy fleet: data written through a real {@code nutcracker} ({@code hash: md5},
 * {@code distribution: ketama}) is read back by Shardwise talking to the same servers directly in
 * {@code twemproxy} mode, with every key a hit: memcached with unnamed and named servers, Redis,
 * and Redis with a {@code {}} hash tag.
 */
@Timeout(90)
class TwemproxyDropInIT {

  private static final int KEYS = 5_000;
  private static final RouterSpec TWEMPROXY =
      RouterSpec.of("ketama").withKetamaCompatibility("twemproxy");

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(5);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  private static Map<String, byte[]> values(String prefix) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String key = prefix + ":" + i;
      values.put(key, ("through the proxy: " + key).getBytes(StandardCharsets.UTF_8));
    }
    return values;
  }

  private static AsyncCacheClient<String> shardwise(Backend backend, String servers) {
    return ready(
        ShardwiseClient.builder()
            .backend(backend)
            .servers(servers)
            .timeout(CacheFleet.CLIENT_TIMEOUT)
            .router(TWEMPROXY)
            .codec(Codecs.utf8())
            .build());
  }

  /** Every key the proxy stored is a hit through Shardwise, with the bytes the proxy was sent. */
  private static void assertAllHits(AsyncCacheClient<String> client, Map<String, byte[]> written) {
    MultiResult<String> read = Await.result(client.getMulti(written.keySet()));
    assertThat(read.errors()).isEmpty();
    assertThat(read.misses()).as("keys Shardwise looks for on another server").isEmpty();
    Map<String, String> expected = new HashMap<>();
    written.forEach((k, v) -> expected.put(k, new String(v, StandardCharsets.UTF_8)));
    assertThat(read.values()).isEqualTo(expected);
  }

  /** Sanity check that the proxy really spread the keys: every server holds some. */
  private static void assertSpreadOverEveryServer(CacheFleet fleet, Map<String, byte[]> written) {
    for (int i = 0; i < fleet.size(); i++) {
      assertThat(fleet.rawGetAll(i, written.keySet()))
          .as("keys on %s", fleet.server(i).address())
          .isNotEmpty();
    }
  }

  /**
   * twemproxy closes a client's connection on a command it does not proxy: the check of a
   * memcached server's run ({@code stats}, sent every few seconds with replicas) must not be sent
   * through it. Through the proxy the run is unknown (null) and the connection keeps serving; the
   * server asked directly tells its run. (The Redis backend does not connect through twemproxy:
   * the proxy closes the connection at Lettuce's handshake. Its {@code INFO} is asked on a
   * connection of its own first all the same.)
   */
  @Test
  void theCheckOfAServersRunIsNotSentThroughTwemproxy() throws Exception {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    ServerHandle server = MEMCACHED.servers().get(0);
    try (Twemproxy proxy = Twemproxy.builder(MEMCACHED.servers()).hash("md5").distribution("ketama").start();
        Backend backend = fleet.newBackend()) {
      NodeConnection direct = backend.connect(Node.of(server.host(), server.port()), CacheFleet.CLIENT_TIMEOUT);
      NodeConnection through = backend.connect(Node.of(proxy.host(), proxy.listenPort()), CacheFleet.CLIENT_TIMEOUT);
      for (NodeConnection c : List.of(direct, through)) {
        c.ready().get(10, TimeUnit.SECONDS);
        backend.limitsRead(c).get(10, TimeUnit.SECONDS);
      }
      assertThat(direct.serverRun().get(10, TimeUnit.SECONDS)).isNotNull();
      for (int i = 0; i < 3; i++) {
        assertThat(through.serverRun().get(10, TimeUnit.SECONDS)).as("the run through the proxy").isNull();
        CachedValue v = CachedValue.of(new byte[] {(byte) i}, 0);
        through.set("run-check", v, Duration.ZERO).get(10, TimeUnit.SECONDS);
        assertThat(through.get("run-check").get(10, TimeUnit.SECONDS)).isEqualTo(v);
      }
    }
  }

  @Test
  void memcachedDataWrittenThroughTwemproxyIsReadBackInTwemproxyMode() {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    Map<String, byte[]> written = values("proxy");
    try (Twemproxy proxy =
            Twemproxy.builder(MEMCACHED.servers()).hash("md5").distribution("ketama").start();
        RawMemcached raw = RawMemcached.through(proxy)) {
      raw.setAll(written, 0);
    }
    assertSpreadOverEveryServer(fleet, written);

    try (AsyncCacheClient<String> client = shardwise(fleet.newBackend(), fleet.serverList(5))) {
      assertAllHits(client, written);
    }
  }

  @Test
  void memcachedDataWrittenThroughTwemproxyWithNamedServersIsReadBackWithTheSameNames() {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    List<String> names = List.of("cache-a", "cache-b", "cache-c", "cache-d", "cache-e");
    Map<String, byte[]> written = values("named");
    try (Twemproxy proxy =
            Twemproxy.builder(MEMCACHED.servers())
                .hash("md5")
                .distribution("ketama")
                .serverNames(names)
                .start();
        RawMemcached raw = RawMemcached.through(proxy)) {
      raw.setAll(written, 0);
    }
    assertSpreadOverEveryServer(fleet, written);

    try (AsyncCacheClient<String> client =
        shardwise(fleet.newBackend(), namedServerList(MEMCACHED.servers(), names))) {
      assertThat(client.nodes().get(2).name()).isEqualTo("cache-c");
      assertAllHits(client, written);
    }
  }

  @Test
  void redisDataWrittenThroughTwemproxyIsReadBackInTwemproxyMode() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    Map<String, byte[]> written = values("redis-proxy");
    try (Twemproxy proxy =
            Twemproxy.builder(REDIS.servers())
                .redis(true)
                .hash("md5")
                .distribution("ketama")
                .start();
        RawRedis raw = RawRedis.through(proxy)) {
      raw.setAll(written);
    }
    assertSpreadOverEveryServer(fleet, written);

    try (AsyncCacheClient<String> client = shardwise(fleet.newBackend(), fleet.serverList(3))) {
      assertAllHits(client, written);
    }
  }

  @Test
  void redisDataWrittenThroughTwemproxyWithAHashTagIsReadBackWithTheSameHashTag() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    Map<String, byte[]> written = new LinkedHashMap<>();
    for (int user = 0; user < 1_000; user++) {
      for (String field : List.of("name", "email", "cart")) {
        String key = "{user:" + user + "}:" + field;
        written.put(key, (field + " of user " + user).getBytes(StandardCharsets.UTF_8));
      }
      written.put("plain:" + user, ("untagged " + user).getBytes(StandardCharsets.UTF_8));
      written.put("{}:empty-tag:" + user, ("empty tag " + user).getBytes(StandardCharsets.UTF_8));
    }
    try (Twemproxy proxy =
            Twemproxy.builder(REDIS.servers())
                .redis(true)
                .hash("md5")
                .distribution("ketama")
                .hashTag("{}")
                .start();
        RawRedis raw = RawRedis.through(proxy)) {
      raw.setAll(written);
    }
    assertSpreadOverEveryServer(fleet, written);

    try (AsyncCacheClient<String> client =
        ready(
            ShardwiseClient.builder()
                .backend(fleet.newBackend())
                .servers(fleet.serverList(3))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .router(TWEMPROXY)
                .hashTag(HashTag.of("{}"))
                .codec(Codecs.utf8())
                .build())) {
      assertAllHits(client, written);
      for (int user = 0; user < 1_000; user++) {
        Set<String> servers = new HashSet<>();
        for (String field : List.of("name", "email", "cart")) {
          servers.add(client.nodeFor("{user:" + user + "}:" + field).address());
        }
        assertThat(servers).as("servers of user %d's keys", user).hasSize(1);
      }
    }
  }

  private static String namedServerList(List<? extends ServerHandle> servers, List<String> names) {
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < servers.size(); i++) {
      entries.add(names.get(i) + "=" + servers.get(i).address());
    }
    return String.join(",", entries);
  }
}
