package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeState;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The user-facing example of {@code test-servers/README.md}: three memcached servers, the client
 * configured from {@code fleet.addresses()}, one server killed in the test. In Docker mode
 * ({@code scripts/docker-slice.sh}) the servers are containers, otherwise local processes.
 */
@Timeout(90)
class KilledServerExampleIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  @Test
  void aKilledServersKeysBecomeMissesAndTheirRewritesGoToAnotherServer() throws Exception {
    try (AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(MemcachedBackend.create())
            .servers(String.join(",", FLEET.addresses()))
            .codec(Codecs.utf8())
            .build()) {
      CacheClient<String> cache = client.sync();
      MemcachedServer victim = FLEET.server(1);
      Node node = Node.of(victim.host(), victim.port());
      String key = keyOn(client, node);
      cache.set(key, "before", Duration.ofMinutes(5));
      assertThat(victim.get(key).valueUtf8()).isEqualTo("before");

      victim.kill(); // SIGKILL, or docker kill -s KILL in Docker mode
      while (client.nodeStates().get(node) == NodeState.HEALTHY) {
        try {
          cache.get(key); // fails until the client ejects the server
        } catch (RuntimeException expectedWhileTheServerIsStillIn) {
          Thread.sleep(10);
        }
      }

      assertThat(cache.get(key)).as("a miss, no error").isNull();
      cache.set(key, "after", Duration.ofMinutes(5));
      assertThat(cache.get(key)).isEqualTo("after");
      assertThat(
              FLEET.servers().stream()
                  .filter(server -> server != victim)
                  .map(server -> server.get(key))
                  .filter(Objects::nonNull)
                  .map(MemcachedItem::valueUtf8))
          .as("the rewrite, on exactly one live server")
          .containsExactly("after");
    }
  }

  private static String keyOn(AsyncCacheClient<?> client, Node node) {
    for (int i = 0; ; i++) {
      if (client.nodeFor("user:" + i).equals(node)) {
        return "user:" + i;
      }
    }
  }
}
