package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys a server cannot store, values over the size limit, TTLs over the limit and null collections
 * are refused by the client with an {@link IllegalArgumentException} whose message names the rule
 * and the value or a shortened key, before any
 * request is sent: no request reaches a node connection, and every server's counters, items and
 * known values are the same afterwards. A multi-key write with one bad entry writes nothing.
 */
@Timeout(60)
class BadInputIT {

  private static final int SERVERS = 3;
  private static final int MAX_VALUE_BYTES = 1024 * 1024;
  private static final String LONE_SURROGATE =
      "keys must be well-formed UTF-16 but have a lone surrogate U+D800 at index 1: x\\uD800";
  private static final String LONG_KEY = "oversized:value:with:a:rather:long:key:name:0001";

  @RegisterExtension
  static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(SERVERS);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(SERVERS);

  private CountingBackend backend;
  private AsyncCacheClient<byte[]> client;
  private final Map<String, byte[]> known = new LinkedHashMap<>();

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  static Stream<Arguments> badKeys() {
    CacheFleet memcached = CacheFleet.memcached(MEMCACHED);
    return Stream.of(
        Arguments.of(
            memcached,
            "user 42",
            "memcached keys must not contain a space, CR, LF or NUL (text protocol); got a space"
                + " at index 4: user 42"),
        Arguments.of(
            memcached,
            "user\n42",
            "memcached keys must not contain a space, CR, LF or NUL (text protocol); got a"
                + " newline at index 4: user\\x0a42"),
        Arguments.of(
            memcached,
            "user\r\nset evil 0 0 1",
            "memcached keys must not contain a space, CR, LF or NUL (text protocol); got a"
                + " carriage return at index 4: user\\x0d\\x0aset evil 0 0 1"),
        Arguments.of(
            memcached,
            "session:" + "0123456789".repeat(24) + "abc",
            "memcached keys are at most 250 bytes; got 251:"
                + " session:012345678901234567890123...789abc"),
        Arguments.of(
            memcached,
            "é".repeat(126),
            "memcached keys are at most 250 bytes; got 252: "
                + "é".repeat(32)
                + "..."
                + "é".repeat(6)),
        Arguments.of(
            memcached,
            "user\u000042",
            "memcached keys must not contain a space, CR, LF or NUL (text protocol); got a NUL"
                + " at index 4: user\\x0042"),
        Arguments.of(memcached, "", "memcached keys must not be empty"),
        Arguments.of(memcached, "x\ud800", LONE_SURROGATE),
        Arguments.of(CacheFleet.redis(REDIS), "x\ud800", LONE_SURROGATE));
  }

  static Stream<CacheFleet> fleets() {
    return Stream.of(CacheFleet.memcached(MEMCACHED), CacheFleet.redis(REDIS));
  }

  /** A client over a freshly emptied fleet holding 30 known keys. */
  private AsyncCacheClient<byte[]> open(CacheFleet fleet) {
    fleet.reset();
    backend = new CountingBackend(fleet.newBackend());
    client =
        ready(
            ShardwiseClient.builder()
                .backend(backend)
                .servers(fleet.serverList(SERVERS))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .maxValueBytes(MAX_VALUE_BYTES)
                .codec(Codecs.bytes())
                .build());
    for (int i = 0; i < 30; i++) {
      known.put("known:" + i, ("known value " + i).getBytes(StandardCharsets.UTF_8));
    }
    assertThat(Await.result(client.setMulti(known, Duration.ZERO)).errors()).isEmpty();
    backend.clear();
    return client;
  }

  private static List<Map<String, String>> activity(CacheFleet fleet) {
    List<Map<String, String>> all = new ArrayList<>();
    for (int i = 0; i < SERVERS; i++) {
      all.add(fleet.rawActivity(i));
    }
    return all;
  }

  /** Runs {@code refusals}, then checks that nothing reached a connection or a server. */
  private void assertNothingSent(CacheFleet fleet, Runnable refusals) {
    List<Map<String, String>> before = activity(fleet);
    refusals.run();
    assertThat(backend.getMultiCalls()).as("getMulti requests sent").isEmpty();
    assertThat(backend.otherCalls()).as("requests sent").isEmpty();
    assertThat(activity(fleet)).as("server statistics and items").isEqualTo(before);
    for (Map.Entry<String, byte[]> e : known.entrySet()) {
      byte[] stored =
          fleet
              .rawGetAll(fleet.indexOf(client.nodeFor(e.getKey())), List.of(e.getKey()))
              .get(e.getKey());
      assertThat(stored).as("known key %s", e.getKey()).isEqualTo(e.getValue());
    }
  }

  private static void assertRefused(Runnable call, String message) {
    assertThatThrownBy(call::run).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("badKeys")
  void badKeyIsRefusedByEveryOperationBeforeAnythingIsSent(
      CacheFleet fleet, String key, String message) {
    AsyncCacheClient<byte[]> cache = open(fleet);
    byte[] value = {1, 2, 3};
    Duration ttl = Duration.ZERO;
    List<Consumer<String>> operations =
        List.of(
            k -> cache.get(k),
            k -> cache.set(k, value, ttl),
            k -> cache.add(k, value, ttl),
            k -> cache.delete(k),
            k -> cache.touch(k, Duration.ofSeconds(10)),
            k -> cache.incr(k, 1, 0, ttl),
            k -> cache.decr(k, 1, 0, ttl),
            k -> cache.nodeFor(k),
            k -> cache.getMulti(List.of("known:1", k, "known:2")),
            k -> cache.deleteMulti(List.of("known:1", k)),
            k -> cache.setMulti(orderedMap("known:1", value, k, value), ttl),
            k -> cache.sync().get(k),
            k -> cache.sync().set(k, value, ttl));

    assertNothingSent(
        fleet,
        () -> {
          for (Consumer<String> operation : operations) {
            assertRefused(() -> operation.accept(key), message);
          }
        });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void oversizedValueIsRefusedNamingTheLimitAndTheShortenedKey(CacheFleet fleet) {
    AsyncCacheClient<byte[]> cache = open(fleet);
    byte[] tooLarge = incompressible(MAX_VALUE_BYTES + 1);
    String message =
        "values are at most 1048576 bytes after encoding; got 1048577 for"
            + " oversized:value:with:a:rather:lo...e:0001";

    assertNothingSent(
        fleet,
        () -> {
          assertRefused(() -> cache.set(LONG_KEY, tooLarge, Duration.ZERO), message);
          assertRefused(() -> cache.add(LONG_KEY, tooLarge, Duration.ZERO), message);
          assertRefused(
              () -> cache.set("known:3", tooLarge, Duration.ZERO),
              "values are at most 1048576 bytes after encoding; got 1048577 for known:3");
          assertRefused(
              () ->
                  cache.setMulti(
                      orderedMap("known:4", new byte[1], LONG_KEY, tooLarge), Duration.ZERO),
              message);
        });
    assertThat(fleet.rawGetAll(fleet.indexOf(cache.nodeFor(LONG_KEY)), List.of(LONG_KEY)))
        .isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void setMultiWithOneBadEntryAmongAHundredWritesNothing(CacheFleet fleet) {
    AsyncCacheClient<byte[]> cache = open(fleet);
    Map<String, byte[]> batch = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      batch.put("batch:" + i, ("new value " + i).getBytes(StandardCharsets.UTF_8));
    }
    batch.put("known:5", "overwritten".getBytes(StandardCharsets.UTF_8));
    Map<String, byte[]> withBadKey = new LinkedHashMap<>(batch);
    withBadKey.put("x\ud800", new byte[1]);
    Map<String, byte[]> withBadValue = new LinkedHashMap<>(batch);
    withBadValue.put("batch:too-large", incompressible(MAX_VALUE_BYTES + 1));

    assertNothingSent(
        fleet,
        () -> {
          assertRefused(() -> cache.setMulti(withBadKey, Duration.ZERO), LONE_SURROGATE);
          assertRefused(
              () -> cache.setMulti(withBadValue, Duration.ZERO),
              "values are at most 1048576 bytes after encoding; got 1048577 for batch:too-large");
        });
    Map<String, byte[]> found = new HashMap<>();
    for (int i = 0; i < SERVERS; i++) {
      found.putAll(fleet.rawGetAll(i, withBadValue.keySet()));
    }
    assertThat(found).containsOnlyKeys("known:5");
    assertThat(found.get("known:5")).isEqualTo(known.get("known:5"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void nullCollectionsAndTtlsOverTheLimitAreRefusedAtTheCall(CacheFleet fleet) {
    AsyncCacheClient<byte[]> cache = open(fleet);
    Duration tooLong = Duration.ofDays(106_752);
    String ttlRule = "ttl must be at most 106751 days (PT2562024H) but was PT2562048H";

    assertNothingSent(
        fleet,
        () -> {
          assertRefused(
              () -> cache.getMulti(null),
              "the collection of keys must not be null; pass an empty one for none");
          assertRefused(
              () -> cache.deleteMulti(null),
              "the collection of keys must not be null; pass an empty one for none");
          assertRefused(
              () -> cache.getMulti(java.util.Arrays.asList("known:1", null)),
              "the collection of keys must not hold null; got null at position 1");
          assertRefused(
              () -> cache.setMulti(null, Duration.ZERO),
              "the map of values must not be null; pass an empty map for none");
          Map<String, byte[]> nullKey = new HashMap<>();
          nullKey.put(null, new byte[1]);
          assertRefused(
              () -> cache.setMulti(nullKey, Duration.ZERO),
              "the map of values must not hold a null key");
          assertRefused(() -> cache.set("known:1", new byte[1], tooLong), ttlRule);
          assertRefused(() -> cache.add("fresh", new byte[1], tooLong), ttlRule);
          assertRefused(() -> cache.touch("known:1", tooLong), ttlRule);
          assertRefused(() -> cache.incr("counter", 1, 0, tooLong), ttlRule);
          assertRefused(
              () -> cache.setMulti(Map.of("known:2", new byte[1]), Duration.ofSeconds(Long.MAX_VALUE)),
              "ttl must be at most 106751 days (PT2562024H) but was PT2562047788015215H30M7S");
        });
    // The longest TTL accepted is stored, and readable, on both backends.
    cache.sync().set("known:1", new byte[] {7}, Duration.ofDays(106_751));
    assertThat(cache.sync().get("known:1")).isEqualTo(new byte[] {7});
  }

  @Test
  void redisStoresKeysThatMemcachedRefuses() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    AsyncCacheClient<byte[]> cache = open(fleet);
    List<String> keys =
        List.of(
            "user 42", "user\n42", "session:" + "0123456789".repeat(24) + "abc", "é".repeat(126));
    for (String key : keys) {
      byte[] value = key.getBytes(StandardCharsets.UTF_8);
      cache.sync().set(key, value, Duration.ZERO);
      assertThat(cache.sync().get(key)).isEqualTo(value);
      assertThat(fleet.rawGetAll(fleet.indexOf(cache.nodeFor(key)), List.of(key)).get(key))
          .isEqualTo(value);
    }
  }

  /** Random bytes: the codecs gzip values over 16 KiB when that makes them smaller. */
  private static byte[] incompressible(int length) {
    byte[] b = new byte[length];
    new Random(length).nextBytes(b);
    return b;
  }

  private static Map<String, byte[]> orderedMap(String k1, byte[] v1, String k2, byte[] v2) {
    Map<String, byte[]> map = new LinkedHashMap<>();
    map.put(k1, v1);
    map.put(k2, v2);
    return map;
  }
}
