package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TwemproxyTest {

  @RegisterExtension static final ServerFleet<MemcachedServer> memcached = ServerFleet.memcached(2);

  @RegisterExtension static final ServerFleet<RedisServer> redis = ServerFleet.redis(2);

  @BeforeEach
  void empty() {
    memcached.flushAll();
    redis.flushAll();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void memcachedProxyStoresEachKeyOnExactlyOneServer() {
    try (Twemproxy proxy = Twemproxy.builder(memcached.servers()).start()) {
      MemcachedTextClient client = proxy.memcachedClient();
      client.set("through-proxy", 42, utf8("v"));

      assertThat(client.get("through-proxy")).isEqualTo(new MemcachedItem(42, utf8("v")));
      long holders =
          memcached.servers().stream()
              .filter(server -> server.get("through-proxy") != null)
              .count();
      assertThat(holders).isEqualTo(1);
    }
  }

  @Test
  void keysSpreadOverBothServers() {
    try (Twemproxy proxy =
        Twemproxy.builder(memcached.servers())
            .hash("md5")
            .distribution("ketama")
            .serverNames(List.of("shard-a", "shard-b"))
            .start()) {
      for (int i = 0; i < 100; i++) {
        proxy.memcachedClient().set("key:" + i, 0, utf8("v"));
      }
      for (MemcachedServer server : memcached.servers()) {
        assertThat(Integer.parseInt(server.stats().get("curr_items"))).isBetween(1, 99);
      }
      assertThat(proxy.config())
          .contains("hash: md5", "distribution: ketama", "redis: false")
          .contains("    - " + memcached.server(0).address() + ":1 shard-a");
      assertThat(proxy.stats()).contains("\"shard-a\"");
    }
  }

  @Test
  void redisProxyForwardsCommands() {
    try (Twemproxy proxy = Twemproxy.builder(redis.servers()).hashTag("{}").start()) {
      RespClient client = proxy.redisClient();
      assertThat(client.command("SET", "{user:1}:name", "ada")).isEqualTo("OK");
      assertThat((byte[]) client.command("GET", "{user:1}:name")).isEqualTo(utf8("ada"));
      assertThat(proxy.config()).contains("redis: true", "hash_tag: \"{}\"");
    }
  }

  @Test
  void closeStopsTheProxyAndRemovesItsDirectory() {
    Twemproxy proxy = Twemproxy.builder(memcached.servers()).start();
    Path config = proxy.configFile();
    long pid = proxy.pid();
    assertThat(Files.exists(config)).isTrue();
    assertThat(proxy.listenPort()).isNotEqualTo(proxy.statsPort());

    proxy.close();

    assertThat(proxy.isRunning()).isFalse();
    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
        .isNotEqualTo(java.util.Optional.of(true));
    assertThat(Files.exists(config.getParent())).isFalse();
  }

  @Test
  void rejectsMixedServerKindsAndUnknownHashes() {
    List<ServerHandle> mixed = List.of(memcached.server(0), redis.server(0));
    assertThatThrownBy(() -> Twemproxy.builder(mixed))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("servers must be all memcached or all Redis");
    assertThatThrownBy(() -> Twemproxy.builder(memcached.servers()).hash("sha1"))
        .hasMessageContaining("but was sha1");
  }
}
