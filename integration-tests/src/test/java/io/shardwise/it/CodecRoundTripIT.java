package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The built-in codecs round-trip through real servers: {@code Codecs.spymemcached()} on memcached
 * (with the flags spymemcached's {@code SerializingTranscoder} uses, as stored on the server), and
 * {@code java()}, {@code utf8()} and {@code bytes()} on Redis.
 */
@Timeout(60)
class CodecRoundTripIT {

  /** A user type, Java-serialized by the codecs. */
  record Profile(String name, int age, List<String> tags, LocalDate since)
      implements Serializable {}

  /** A classic serializable class with mutable state, compared by its fields. */
  static final class Basket implements Serializable {
    private static final long serialVersionUID = 1L;
    final Map<String, Integer> items = new LinkedHashMap<>();

    @Override
    public boolean equals(Object o) {
      return o instanceof Basket b && b.items.equals(items);
    }

    @Override
    public int hashCode() {
      return items.hashCode();
    }
  }

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(3);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  @BeforeEach
  void reset() {
    CacheFleet.memcached(MEMCACHED).reset();
    CacheFleet.redis(REDIS).reset();
  }

  private static Basket basket() {
    Basket basket = new Basket();
    basket.items.put("apple", 3);
    basket.items.put("pear", 1);
    return basket;
  }

  private static MemcachedItem rawItem(AsyncCacheClient<?> client, CacheFleet fleet, String key) {
    MemcachedServer server = MEMCACHED.server(fleet.indexOf(client.nodeFor(key)));
    return server.get(key);
  }

  @Test
  void spymemcachedCodecRoundTripsEveryTypeThroughMemcachedWithSpymemcachedsFlags() {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    try (AsyncCacheClient<Object> client =
        ready(fleet.builder(3).codec(Codecs.spymemcached()).build())) {
      CacheClient<Object> cache = client.sync();
      Profile profile = new Profile("Ada", 36, List.of("admin", "ops"), LocalDate.of(2020, 2, 29));
      String large = "line of a long text that compresses well\n".repeat(1_000);
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("codec:string", "héllo wörld ☃");
      values.put("codec:empty-string", "");
      values.put("codec:bytes", new byte[] {0, 1, 2, (byte) 0xff, '\r', '\n'});
      values.put("codec:long", 1234567890123L);
      values.put("codec:negative-long", -42L);
      values.put("codec:int", 7);
      values.put("codec:boolean", true);
      values.put("codec:double", 2.5d);
      values.put("codec:date", new Date(1_700_000_000_000L));
      values.put("codec:record", profile);
      values.put("codec:class", basket());
      values.put("codec:large-string", large);
      for (Map.Entry<String, Object> e : values.entrySet()) {
        cache.set(e.getKey(), e.getValue(), Duration.ZERO);
      }

      for (Map.Entry<String, Object> e : values.entrySet()) {
        assertThat(cache.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
      assertThat(cache.getMulti(values.keySet()).values())
          .usingRecursiveComparison()
          .isEqualTo(values);

      // The flags on the server are spymemcached's: 0 string, 8<<8 byte[], 3<<8 long, 1 serialized,
      // 2 compressed.
      assertThat(rawItem(client, fleet, "codec:string").flags()).isZero();
      assertThat(rawItem(client, fleet, "codec:string").valueUtf8()).isEqualTo("héllo wörld ☃");
      assertThat(rawItem(client, fleet, "codec:bytes").flags()).isEqualTo(8 << 8);
      assertThat(rawItem(client, fleet, "codec:long").flags()).isEqualTo(3 << 8);
      assertThat(rawItem(client, fleet, "codec:record").flags()).isEqualTo(Codecs.FLAG_SERIALIZED);
      assertThat(rawItem(client, fleet, "codec:class").flags()).isEqualTo(Codecs.FLAG_SERIALIZED);
      MemcachedItem compressed = rawItem(client, fleet, "codec:large-string");
      assertThat(compressed.flags()).isEqualTo(Codecs.FLAG_COMPRESSED);
      assertThat(compressed.value().length).isLessThan(large.length() / 10);
    }
  }

  @Test
  void javaCodecRoundTripsSerializableValuesThroughRedis() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    try (AsyncCacheClient<Object> client = ready(fleet.builder(3).codec(Codecs.java()).build())) {
      CacheClient<Object> cache = client.sync();
      Profile profile = new Profile("Grace", 45, List.of("navy"), LocalDate.of(1952, 5, 1));
      Map<String, Object> values = new LinkedHashMap<>();
      values.put("java:record", profile);
      values.put("java:class", basket());
      values.put("java:string", "plain");
      values.put("java:long", Long.MIN_VALUE);
      values.put("java:list", List.of(1, "two", 3.0));
      for (Map.Entry<String, Object> e : values.entrySet()) {
        cache.set(e.getKey(), e.getValue(), Duration.ZERO);
      }

      for (Map.Entry<String, Object> e : values.entrySet()) {
        assertThat(cache.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
      }
      assertThat(cache.getMulti(values.keySet()).values()).isEqualTo(values);
    }
  }

  @Test
  void utf8AndBytesCodecsStoreTheBareBytesInRedis() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    try (AsyncCacheClient<String> strings = ready(fleet.builder(3).codec(Codecs.utf8()).build());
        AsyncCacheClient<byte[]> bytes = ready(fleet.builder(3).codec(Codecs.bytes()).build())) {
      String text = "Grüße, 世界, emoji 🎉, and a newline\n";
      byte[] binary = new byte[256];
      for (int i = 0; i < binary.length; i++) {
        binary[i] = (byte) i;
      }
      strings.sync().set("utf8:text", text, Duration.ZERO);
      bytes.sync().set("bytes:binary", binary, Duration.ZERO);

      assertThat(strings.sync().get("utf8:text")).isEqualTo(text);
      assertThat(bytes.sync().get("bytes:binary")).isEqualTo(binary);
      RedisServer textServer = REDIS.server(fleet.indexOf(strings.nodeFor("utf8:text")));
      RedisServer binaryServer = REDIS.server(fleet.indexOf(bytes.nodeFor("bytes:binary")));
      assertThat(textServer.get("utf8:text")).isEqualTo(text.getBytes(StandardCharsets.UTF_8));
      assertThat(binaryServer.get("bytes:binary")).isEqualTo(binary);

      // A value another Redis client wrote is read as it is.
      REDIS
          .server(fleet.indexOf(strings.nodeFor("utf8:foreign")))
          .set("utf8:foreign", "written by redis-cli".getBytes(StandardCharsets.UTF_8));
      assertThat(strings.sync().get("utf8:foreign")).isEqualTo("written by redis-cli");
    }
  }

  /**
   * The codecs gzip values over {@value Codecs#COMPRESSION_THRESHOLD} bytes and mark them with the
   * compressed flag, which Redis does not keep; on a backend without flags the client uses a
   * codec's {@code withoutFlags()} form, which never compresses, so the values come back as
   * written.
   */
  @Test
  void valuesOverTheCompressionThresholdRoundTripThroughRedis() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    String text = "a line of text that compresses well\n".repeat(1_000);
    byte[] binary = text.getBytes(StandardCharsets.UTF_8);
    List<String> list = Collections.nCopies(5_000, "element");
    try (AsyncCacheClient<String> strings = ready(fleet.builder(3).codec(Codecs.utf8()).build());
        AsyncCacheClient<byte[]> bytes = ready(fleet.builder(3).codec(Codecs.bytes()).build());
        AsyncCacheClient<Object> objects = ready(fleet.builder(3).codec(Codecs.java()).build())) {
      strings.sync().set("large:text", text, Duration.ZERO);
      bytes.sync().set("large:bytes", binary, Duration.ZERO);
      objects.sync().set("large:list", new ArrayList<>(list), Duration.ZERO);

      SoftAssertions.assertSoftly(
          soft -> {
            soft.assertThat(summary(bytes.sync().get("large:bytes")))
                .as("bytes codec")
                .isEqualTo(summary(binary));
            soft.assertThat(
                    summary(strings.sync().get("large:text").getBytes(StandardCharsets.UTF_8)))
                .as("utf8 codec")
                .isEqualTo(summary(binary));
            soft.assertThatCode(() -> objects.sync().get("large:list"))
                .as("java codec")
                .doesNotThrowAnyException();
          });
      assertThat(objects.sync().get("large:list")).isEqualTo(list);
    }
  }

  /** Length and first bytes, for a short failure message. */
  private static String summary(byte[] b) {
    return b.length + " bytes starting " + HexFormat.of().formatHex(Arrays.copyOf(b, 8));
  }

  @Test
  void codecThatNeedsFlagsIsRefusedForRedisWhenTheClientIsBuilt() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    assertThatThrownBy(() -> fleet.builder(3).codec(Codecs.spymemcached()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "codec 'spymemcached' needs the flags memcached stores beside a value, but redis keeps"
                + " no flags; use utf8, bytes, java or a codec of your own");
  }
}
