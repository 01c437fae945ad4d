package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.memcached.MemcachedProtocol;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.MemcachedClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Keys as the protocol defines them, not stricter: every key memcached's text protocol stores
 * (control characters and Unicode spaces included), every key up to 250 bytes on the binary
 * protocol, and any well-formed key on Redis round-trips through the client (set, get, getMulti,
 * delete), and spymemcached reads what the client wrote and the client reads and deletes what
 * spymemcached wrote. A lone surrogate is refused before any I/O, never stored as {@code ?}.
 */
@Timeout(60)
class KeyRulesIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(2);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(2);

  /** Stored by memcached 1.6.18 over the text protocol, refused by the client until now. */
  private static final List<String> TEXT_KEYS =
      List.of(
          "tab\tkey",
          "u0001\u0001key",
          "u000b\u000bkey",
          "del\u007fkey",
          "nel\u0085key",
          "nbsp\u00a0key",
          "ls\u2028key",
          "ideographic\u3000space",
          "é".repeat(124) + "kk");

  /** Only the binary protocol carries these. */
  private static final List<String> BINARY_ONLY_KEYS =
      List.of("a space", "a\nnewline", "a\rreturn", "a\u0000nul", "\r\n", " ");

  private static List<String> keys(MemcachedProtocol protocol) {
    List<String> keys = new ArrayList<>(TEXT_KEYS);
    if (protocol == MemcachedProtocol.BINARY) {
      keys.addAll(BINARY_ONLY_KEYS);
    }
    return keys;
  }

  private static AsyncCacheClient<String> memcachedClient(MemcachedProtocol protocol) {
    return ShardwiseClient.builder()
        .backend(
            MemcachedBackend.create(
                MemcachedOptions.builder()
                    .protocol(protocol)
                    .operationTimeout(CacheFleet.BACKEND_TIMEOUT)
                    .build()))
        .servers(CacheFleet.memcached(MEMCACHED).serverList(2))
        .timeout(CacheFleet.CLIENT_TIMEOUT)
        .codec(Codecs.utf8())
        .build();
  }

  /** spymemcached on the server the client routes {@code key} to. */
  private static MemcachedClient spymemcachedOn(
      AsyncCacheClient<?> client, String key, MemcachedProtocol protocol) throws Exception {
    return new MemcachedClient(
        new ConnectionFactoryBuilder()
            .setProtocol(
                protocol == MemcachedProtocol.BINARY
                    ? ConnectionFactoryBuilder.Protocol.BINARY
                    : ConnectionFactoryBuilder.Protocol.TEXT)
            .setOpTimeout(2000)
            .build(),
        List.of(new InetSocketAddress(client.nodeFor(key).host(), client.nodeFor(key).port())));
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void everyKeyTheProtocolCarriesRoundTripsAndSpymemcachedReadsIt(MemcachedProtocol protocol)
      throws Exception {
    MEMCACHED.flushAll();
    try (AsyncCacheClient<String> async = memcachedClient(protocol)) {
      CacheClient<String> client = async.sync();
      Map<String, String> values = new LinkedHashMap<>();
      for (String key : keys(protocol)) {
        values.put(key, "value of " + key.length() + " chars");
      }
      for (Map.Entry<String, String> e : values.entrySet()) {
        client.set(e.getKey(), e.getValue(), Duration.ZERO);
        assertThat(client.get(e.getKey())).as(KeyRules.shorten(e.getKey())).isEqualTo(e.getValue());
      }
      assertThat(client.getMulti(values.keySet()).values()).isEqualTo(values);

      for (Map.Entry<String, String> e : values.entrySet()) {
        MemcachedClient spymemcached = spymemcachedOn(async, e.getKey(), protocol);
        try {
          // The client writes UTF-8 with flags 0, which spymemcached reads as a String.
          assertThat(spymemcached.get(e.getKey()))
              .as("spymemcached reads " + KeyRules.shorten(e.getKey()))
              .isEqualTo(e.getValue());
          assertThat(
                  spymemcached
                      .set(e.getKey(), 0, "written by spymemcached")
                      .get(2, TimeUnit.SECONDS))
              .isTrue();
        } finally {
          spymemcached.shutdown(1, TimeUnit.SECONDS);
        }
        assertThat(client.get(e.getKey())).isEqualTo("written by spymemcached");
        assertThat(client.delete(e.getKey())).isTrue();
        assertThat(client.get(e.getKey())).isNull();
        assertThat(client.delete(e.getKey())).isFalse();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void aLoneSurrogateIsRefusedAndNotStoredAsAQuestionMark(MemcachedProtocol protocol) {
    MEMCACHED.flushAll();
    try (AsyncCacheClient<String> async = memcachedClient(protocol)) {
      async.sync().set("x?", "question mark", Duration.ZERO);
      long sets = sets(async.nodeFor("x?"));
      assertThatThrownBy(() -> async.set("x\ud800", "lone surrogate", Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "keys must be well-formed UTF-16 but have a lone surrogate U+D800 at index 1:"
                  + " x\\uD800");
      assertThatThrownBy(() -> async.get("x\ud800")).isInstanceOf(IllegalArgumentException.class);
      assertThat(sets(async.nodeFor("x?"))).isEqualTo(sets);
      assertThat(async.sync().get("x?")).isEqualTo("question mark");
    }
  }

  private static long sets(Node node) {
    for (int i = 0; i < 2; i++) {
      MemcachedServer server = MEMCACHED.server(i);
      if (server.address().equals(node.address())) {
        return Long.parseLong(server.stats().get("cmd_set"));
      }
    }
    throw new IllegalStateException(node + " is not a server of the fleet");
  }

  @Test
  void redisKeysMayHoldAnyCharacterAndBeEmpty() {
    REDIS.flushAll();
    try (AsyncCacheClient<String> async =
        CacheFleet.ready(
            ShardwiseClient.builder()
                .backend(CacheFleet.redis(REDIS).newBackend())
                .servers(CacheFleet.redis(REDIS).serverList(2))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .codec(Codecs.utf8())
                .build())) {
      CacheClient<String> client = async.sync();
      List<String> keys = new ArrayList<>(TEXT_KEYS);
      keys.addAll(BINARY_ONLY_KEYS);
      keys.add("");
      keys.add("k".repeat(1000));
      Map<String, String> values = new LinkedHashMap<>();
      for (String key : keys) {
        values.put(key, "value of " + key.length() + " chars");
        client.set(key, values.get(key), Duration.ZERO);
      }
      assertThat(client.getMulti(keys).values()).isEqualTo(values);
      for (String key : keys) {
        assertThat(client.get(key)).as(KeyRules.shorten(key)).isEqualTo(values.get(key));
        assertThat(client.delete(key)).isTrue();
        assertThat(client.get(key)).isNull();
      }
      client.set("x?", "question mark", Duration.ZERO);
      assertThatThrownBy(() -> client.set("x\ud800", "lone surrogate", Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("keys must be well-formed UTF-16 but have a lone surrogate");
      assertThat(client.get("x?")).isEqualTo("question mark");
    }
  }
}
