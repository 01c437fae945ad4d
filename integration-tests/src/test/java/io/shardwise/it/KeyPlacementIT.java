package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.RouterSpec;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every key written through Shardwise is stored on exactly the server that {@code nodeFor(key)}
 * names, and on no other, for 3 and 5 servers, three routers and both backends: checked by asking
 * every server of the fleet directly, bypassing the client.
 */
@Timeout(120)
class KeyPlacementIT {

  private static final int KEYS = 10_000;

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(5);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(5);

  static Stream<Arguments> fleetsSizesAndRouters() {
    List<Arguments> cases = new ArrayList<>();
    for (CacheFleet fleet : List.of(CacheFleet.memcached(MEMCACHED), CacheFleet.redis(REDIS))) {
      for (int servers : new int[] {3, 5}) {
        for (RouterSpec router :
            List.of(RouterSpec.of("ketama"), RouterSpec.of("maglev"), RouterSpec.of("jump"))) {
          cases.add(Arguments.of(fleet, servers, router));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0}, {1} servers, {2}")
  @MethodSource("fleetsSizesAndRouters")
  void everyKeyLivesOnExactlyTheServerTheRouterNames(
      CacheFleet fleet, int servers, RouterSpec router) {
    fleet.reset();
    try (AsyncCacheClient<String> client =
        ready(fleet.builder(servers).router(router).codec(Codecs.utf8()).build())) {
      Map<String, String> written = new LinkedHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        String key = "placement:" + router.type().id() + ":" + i;
        written.put(key, "value of " + key);
      }

      MultiResult<Boolean> stored = Await.result(client.setMulti(written, Duration.ZERO));
      assertThat(stored.errors()).isEmpty();
      assertThat(stored.values()).hasSize(KEYS).doesNotContainValue(false);

      MultiResult<String> read = Await.result(client.getMulti(written.keySet()));
      assertThat(read.errors()).isEmpty();
      assertThat(read.misses()).isEmpty();
      assertThat(read.values()).isEqualTo(written);

      Map<Integer, Set<String>> expected = new HashMap<>();
      for (String key : written.keySet()) {
        expected.computeIfAbsent(fleet.indexOf(client.nodeFor(key)), i -> new HashSet<>()).add(key);
      }
      assertThat(expected.keySet())
          .as("every one of the %d servers gets a share of the keys", servers)
          .hasSize(servers);

      for (int server = 0; server < fleet.size(); server++) {
        Map<String, byte[]> onServer = fleet.rawGetAll(server, written.keySet());
        assertThat(onServer.keySet())
            .as("keys found on %s (server %d)", fleet.server(server).address(), server)
            .isEqualTo(expected.getOrDefault(server, Set.of()));
        for (Map.Entry<String, byte[]> e : onServer.entrySet()) {
          assertThat(new String(e.getValue(), StandardCharsets.UTF_8))
              .isEqualTo(written.get(e.getKey()));
        }
      }
    }
  }
}
