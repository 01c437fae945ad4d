package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PersistentRedisTest {

  @RegisterExtension
  static final ServerFleet<RedisServer> fleet = ServerFleet.redisBuilder().persistent().build();

  @Test
  void dataSurvivesKillNineAndRestart() {
    RedisServer server = fleet.server(0);
    server.set("durable", "v1".getBytes(StandardCharsets.UTF_8));
    server.command("HSET", "h", "f", "x");

    server.kill();
    server.restart();

    assertThat(server.get("durable")).isEqualTo("v1".getBytes(StandardCharsets.UTF_8));
    assertThat((byte[]) server.command("HGET", "h", "f")).isEqualTo(new byte[] {'x'});
  }

  @Test
  void dataSurvivesGracefulRestart() {
    RedisServer server = fleet.server(0);
    server.set("graceful", new byte[] {1, 2, 3});

    server.restart();

    assertThat(server.get("graceful")).containsExactly(1, 2, 3);
    assertThat(server.info("persistence")).containsEntry("aof_enabled", "1");
  }

  @Test
  void persistentIsRejectedForMemcached() {
    assertThatThrownBy(() -> ServerFleet.memcachedBuilder().persistent())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("persistent() applies to Redis only, not MEMCACHED");
  }
}
