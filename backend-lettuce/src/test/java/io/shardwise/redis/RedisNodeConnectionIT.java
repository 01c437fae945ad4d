package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.CachedValue;
import io.shardwise.client.NodePermissionException;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every operation against a real Redis. */
class RedisNodeConnectionIT {

  @RegisterExtension static final ServerFleet<RedisServer> fleet = ServerFleet.redis(1);

  private static RedisBackend backend;
  private static NodeConnection connection;

  private RedisServer server;

  @BeforeAll
  static void connect() {
    backend = RedisBackend.create();
    RedisServer server = fleet.server(0);
    connection = backend.connect(Node.of(server.host(), server.port()));
    Await.connected(connection);
  }

  @AfterAll
  static void closeBackend() {
    backend.close();
  }

  @BeforeEach
  void emptyServer() {
    fleet.flushAll();
    server = fleet.server(0);
  }

  private static CachedValue value(String text) {
    return CachedValue.of(text.getBytes(StandardCharsets.UTF_8), 0);
  }

  private static <T> T await(CompletableFuture<T> future) {
    return future.orTimeout(5, TimeUnit.SECONDS).join();
  }

  private long pttl(String key) {
    return (Long) server.command("PTTL", key);
  }

  @Test
  void getIsNullOnMissAndTheStoredBytesAfterSet() {
    assertThat(await(connection.get("user:42"))).isNull();
    await(connection.set("user:42", value("alice"), Duration.ZERO));
    assertThat(await(connection.get("user:42"))).isEqualTo(value("alice"));
    assertThat(server.get("user:42")).isEqualTo("alice".getBytes(StandardCharsets.UTF_8));
    assertThat(pttl("user:42")).isEqualTo(-1L);
  }

  @Test
  void flagsAreNotStoredSoValuesReadBackHaveFlagsZero() {
    await(connection.set("k", CachedValue.of(new byte[] {1, 2}, 0x0800), Duration.ZERO));
    assertThat(await(connection.get("k"))).isEqualTo(CachedValue.of(new byte[] {1, 2}, 0));
  }

  @Test
  void keysAreTheUtf8BytesOfTheString() {
    String key = "ключ:é:{🙂}";
    await(connection.set(key, value("v"), Duration.ZERO));
    assertThat(
            (byte[])
                server
                    .client()
                    .commandBytes(
                        "GET".getBytes(StandardCharsets.US_ASCII),
                        key.getBytes(StandardCharsets.UTF_8)))
        .isEqualTo("v".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void emptyAndOneMebibyteValuesRoundTrip() {
    byte[] big = new byte[1 << 20];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) (i * 31 + (i >>> 8));
    }
    await(connection.set("empty", CachedValue.of(new byte[0], 0), Duration.ZERO));
    await(connection.set("big", CachedValue.of(big, 0), Duration.ofMinutes(1)));

    assertThat(await(connection.get("empty")).bytes()).isEmpty();
    assertThat(await(connection.get("big")).bytes()).isEqualTo(big);
    Map<String, CachedValue> both = await(connection.getMulti(List.of("empty", "big", "none"))).values();
    assertThat(both.get("empty").bytes()).isEmpty();
    assertThat(both.get("big").bytes()).isEqualTo(big);
    assertThat(both).doesNotContainKey("none");
    // A key named twice is one entry of the map, with its value.
    Map<String, CachedValue> twice = await(connection.getMulti(List.of("big", "none", "big"))).values();
    assertThat(twice).containsOnlyKeys("big");
    assertThat(twice.get("big").bytes()).isEqualTo(big);
  }

  @Test
  void getMultiOverFiveHundredKeysIsOneMget() {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      keys.add("k" + i);
      if (i % 2 == 0) {
        server.set("k" + i, ("v" + i).getBytes(StandardCharsets.UTF_8));
      }
    }
    server.command("CONFIG", "RESETSTAT");

    Map<String, CachedValue> hits = await(connection.getMulti(keys)).values();

    assertThat(hits).hasSize(250);
    for (int i = 0; i < 500; i++) {
      if (i % 2 == 0) {
        assertThat(hits.get("k" + i)).isEqualTo(value("v" + i));
      } else {
        assertThat(hits).doesNotContainKey("k" + i);
      }
    }
    Map<String, String> stats = server.info("commandstats");
    assertThat(stats.get("cmdstat_mget")).startsWith("calls=1,");
    assertThat(stats).doesNotContainKey("cmdstat_get");
  }

  @Test
  void getMultiOfNoKeysSendsNothing() {
    assertThat(await(connection.getMulti(List.of())).values()).isEmpty();
  }

  @Test
  void setMultiStoresEveryEntryWithTheTtl() {
    Map<String, CachedValue> values = new LinkedHashMap<>();
    for (int i = 0; i < 100; i++) {
      values.put("m" + i, value("v" + i));
    }
    Map<String, Throwable> failed = await(connection.setMulti(values, Duration.ofMinutes(5))).failures();

    assertThat(failed).isEmpty();
    assertThat(await(connection.getMulti(new ArrayList<>(values.keySet()))).values()).isEqualTo(values);
    assertThat(pttl("m7")).isBetween(1L, 300_000L);
  }

  @Test
  void setMultiReportsPerKeyErrorRepliesWithoutFailingTheBatch() {
    // An ACL that allows only keys m:* makes the SET of any other key fail alone.
    server.command("ACL", "SETUSER", "default", "resetkeys", "~m:*");
    try {
      Map<String, CachedValue> values = new LinkedHashMap<>();
      values.put("m:1", value("a"));
      values.put("forbidden", value("b"));
      values.put("m:2", value("c"));

      Map<String, Throwable> failed = await(connection.setMulti(values, Duration.ZERO)).failures();

      assertThat(failed).containsOnlyKeys("forbidden");
      // An ACL refusal is a NodePermissionException (a security error, no node failure) whose
      // cause is Lettuce's error reply.
      assertThat(failed.get("forbidden"))
          .isInstanceOf(NodePermissionException.class)
          .hasMessageContaining("SET failed: permission denied for the default user (NOPERM");
      assertThat(server.get("m:1")).isNotNull();
      assertThat(server.get("m:2")).isNotNull();
    } finally {
      server.command("ACL", "SETUSER", "default", "allkeys");
    }
    assertThat(server.get("forbidden")).isNull();
  }

  @Test
  void outOfMemoryIsAnErrorReply() {
    server.command("CONFIG", "SET", "maxmemory", "1");
    try {
      assertThatThrownBy(() -> await(connection.set("k", value("v"), Duration.ZERO)))
          .cause()
          .isInstanceOfSatisfying(
              RedisErrorReplyException.class, e -> assertThat(e.errorCode()).isEqualTo("OOM"));
      // Reads still work: OOM refuses only commands that may grow memory.
      assertThat(await(connection.get("k"))).isNull();
    } finally {
      server.command("CONFIG", "SET", "maxmemory", "64mb");
    }
  }

  @Test
  void addStoresOnlyWhenAbsent() {
    assertThat(await(connection.add("a", value("first"), Duration.ofMinutes(1)))).isTrue();
    assertThat(await(connection.add("a", value("second"), Duration.ZERO))).isFalse();
    assertThat(await(connection.get("a"))).isEqualTo(value("first"));
    assertThat(pttl("a")).isBetween(1L, 60_000L);

    assertThat(await(connection.add("b", value("x"), Duration.ZERO))).isTrue();
    assertThat(pttl("b")).isEqualTo(-1L);
  }

  @Test
  void deleteSaysWhetherTheKeyExisted() {
    server.set("d", new byte[] {1});
    assertThat(await(connection.delete("d"))).isTrue();
    assertThat(await(connection.delete("d"))).isFalse();
    assertThat(server.get("d")).isNull();
  }

  @Test
  void deleteMultiSaysPerKeyWhetherItExisted() {
    server.set("a", new byte[] {1});
    server.set("b", new byte[] {2});

    Map<String, Boolean> existed = await(connection.deleteMulti(List.of("a", "missing", "b", "a"))).values();

    assertThat(existed)
        .containsExactlyInAnyOrderEntriesOf(Map.of("a", true, "b", true, "missing", false));
    assertThat(server.client().dbSize()).isZero();
    assertThat(await(connection.deleteMulti(List.of())).values()).isEmpty();
  }

  @Test
  void ttlExpiresTheValue() throws InterruptedException {
    await(connection.set("short", value("v"), Duration.ofMillis(150)));
    assertThat(pttl("short")).isBetween(1L, 150L);
    Thread.sleep(300);
    assertThat(await(connection.get("short"))).isNull();
  }

  @Test
  void touchSetsOrRemovesTheExpiryAndSaysWhetherTheKeyExists() {
    await(connection.set("t", value("v"), Duration.ZERO));

    assertThat(await(connection.touch("t", Duration.ofSeconds(30)))).isTrue();
    assertThat(pttl("t")).isBetween(1L, 30_000L);

    assertThat(await(connection.touch("t", Duration.ZERO))).isTrue();
    assertThat(pttl("t")).isEqualTo(-1L);
    // Already without expiry: PERSIST replies 0, yet the key exists.
    assertThat(await(connection.touch("t", Duration.ZERO))).isTrue();

    assertThat(await(connection.touch("absent", Duration.ofSeconds(1)))).isFalse();
    assertThat(await(connection.touch("absent", Duration.ZERO))).isFalse();
    assertThat(server.get("absent")).isNull();
  }

  @Test
  void touchedTtlExpiresTheValue() throws InterruptedException {
    await(connection.set("t", value("v"), Duration.ZERO));
    assertThat(await(connection.touch("t", Duration.ofMillis(100)))).isTrue();
    Thread.sleep(250);
    assertThat(await(connection.get("t"))).isNull();
  }

  @Test
  void incrCreatesWithTheInitialValueThenAdds() {
    assertThat(await(connection.incr("n", 5, 10, Duration.ofMinutes(1)))).isEqualTo(10L);
    assertThat(pttl("n")).isBetween(1L, 60_000L);
    assertThat(await(connection.incr("n", 5, 10, Duration.ZERO))).isEqualTo(15L);
    assertThat(await(connection.incr("n", -20, 10, Duration.ZERO))).isEqualTo(-5L);
    // Adding keeps the expiry set at creation.
    assertThat(pttl("n")).isBetween(1L, 60_000L);
    assertThat(server.get("n")).isEqualTo("-5".getBytes(StandardCharsets.US_ASCII));

    assertThat(await(connection.incr("neg", 1, -7, Duration.ZERO))).isEqualTo(-7L);
    assertThat(pttl("neg")).isEqualTo(-1L);
  }

  @Test
  void incrIfPresentAddsToACounterThatExistsAndCreatesNothing() {
    assertThat(await(connection.incrIfPresent("p", 5))).isNull();
    assertThat(server.get("p")).as("nothing created").isNull();
    await(connection.incr("p", 1, 10, Duration.ofMinutes(1)));
    assertThat(await(connection.incrIfPresent("p", 5))).isEqualTo(15L);
    assertThat(await(connection.incrIfPresent("p", -20))).isEqualTo(-5L);
    assertThat(pttl("p")).as("the expiry set at creation stays").isBetween(1L, 60_000L);
  }

  @Test
  void incrIsExactBeyondTwoToTheFiftyThree() {
    long initial = (1L << 53) + 1;
    assertThat(await(connection.incr("big", 1, initial, Duration.ZERO))).isEqualTo(initial);
    assertThat(await(connection.incr("big", 1, 0, Duration.ZERO))).isEqualTo(initial + 1);
    assertThat(await(connection.incr("min", 0, Long.MIN_VALUE, Duration.ZERO)))
        .isEqualTo(Long.MIN_VALUE);
    assertThat(await(connection.incr("max", 1, Long.MAX_VALUE - 1, Duration.ZERO)))
        .isEqualTo(Long.MAX_VALUE - 1);
    assertThat(await(connection.incr("max", 1, 0, Duration.ZERO))).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> await(connection.incr("max", 1, 0, Duration.ZERO)))
        .cause()
        .isInstanceOf(RedisErrorReplyException.class)
        .hasMessageContaining("overflow");
  }

  @Test
  void incrOnAnExistingNumberAddsTheDelta() {
    server.set("counter", "41".getBytes(StandardCharsets.US_ASCII));
    assertThat(await(connection.incr("counter", 1, 0, Duration.ofSeconds(10)))).isEqualTo(42L);
    assertThat(pttl("counter")).isEqualTo(-1L);
  }

  @Test
  void incrLoadsItsScriptAgainAfterScriptFlush() {
    assertThat(await(connection.incr("s", 1, 1, Duration.ZERO))).isEqualTo(1L);
    server.command("SCRIPT", "FLUSH");
    assertThat(await(connection.incr("s", 1, 1, Duration.ZERO))).isEqualTo(2L);
    assertThat(
            new String(
                (byte[]) server.command("SCRIPT", "LOAD", IncrScript.SOURCE),
                StandardCharsets.US_ASCII))
        .isEqualTo(IncrScript.SHA1);
  }

  @Test
  void errorRepliesFailWithRedisErrorReplyException() {
    server.command("RPUSH", "list", "a");
    server.set("text", "abc".getBytes(StandardCharsets.US_ASCII));

    assertThatThrownBy(() -> await(connection.get("list")))
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOf(RedisErrorReplyException.class)
        .hasMessageContaining("GET failed with error reply: WRONGTYPE");
    assertThatThrownBy(() -> await(connection.incr("text", 1, 0, Duration.ZERO)))
        .cause()
        .isInstanceOf(RedisErrorReplyException.class)
        .hasMessageContaining("not an integer");
    // MGET answers nil for keys of other types: a miss, not an error.
    assertThat(await(connection.getMulti(List.of("list", "text"))).values()).containsOnlyKeys("text");
  }

  @Test
  void thousandsOfConcurrentRequestsShareOneConnection() {
    List<CompletableFuture<?>> writes = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      writes.add(connection.set("c" + i, value("v" + i), Duration.ZERO));
    }
    CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).join();
    List<CompletableFuture<CachedValue>> reads = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      reads.add(connection.get("c" + i));
    }
    for (int i = 0; i < 2000; i++) {
      assertThat(await(reads.get(i))).isEqualTo(value("v" + i));
    }
    // Ours plus the raw helper's own connection that asks.
    Await.until(
        () -> server.info("clients").get("connected_clients").equals("2"), Duration.ofSeconds(2));
  }

  @Test
  void pingMeasuresARoundTrip() {
    Duration rtt = await(connection.ping());
    assertThat(rtt).isPositive().isLessThan(Duration.ofSeconds(1));
  }

  @Test
  void theServerRunCountsKeysAndChangesWithAFlush() {
    io.shardwise.spi.ServerRun before = await(connection.serverRun());
    assertThat(before.id()).startsWith(server.info("server").get("run_id"));
    await(connection.set("run-1", value("x"), Duration.ZERO));
    await(connection.set("run-2", value("x"), Duration.ZERO));
    io.shardwise.spi.ServerRun written = await(connection.serverRun());
    assertThat(written.id()).as("writes are the same run").isEqualTo(before.id());
    assertThat(written.items()).isEqualTo(before.items() + 2);

    await(connection.flushAll());

    io.shardwise.spi.ServerRun flushed = await(connection.serverRun());
    assertThat(flushed.id()).isNotEqualTo(before.id());
    assertThat(flushed.items()).isZero();
  }

  @Test
  void flushAllEmptiesOnlyTheDatabaseOfTheBackend() {
    server.set("in-db0", new byte[] {1});
    RedisBackend other = RedisBackend.create(RedisBackendOptions.builder().database(3).build());
    try {
      NodeConnection db3 = other.connect(Node.of(server.host(), server.port()));
      Await.connected(db3);
      await(db3.set("in-db3", value("x"), Duration.ZERO));
      assertThat(server.info("keyspace")).containsKeys("db0", "db3");

      await(db3.flushAll());

      assertThat(server.info("keyspace")).containsKey("db0").doesNotContainKey("db3");
      assertThat(await(connection.get("in-db0"))).isNotNull();
    } finally {
      other.close();
    }
  }

  @Test
  void databaseIndexAndClientNameAreHonouredAcrossReconnects() {
    RedisBackend other =
        RedisBackend.create(
            RedisBackendOptions.builder().database(2).clientName("shardwise-it").build());
    try {
      NodeConnection db2 = other.connect(Node.of(server.host(), server.port()));
      Await.connected(db2);
      await(db2.set("where", value("db2"), Duration.ZERO));
      assertThat(server.info("keyspace").get("db2")).startsWith("keys=1,");
      assertThat(server.get("where")).isNull(); // the raw helper reads db0

      String clients =
          new String((byte[]) server.command("CLIENT", "LIST"), StandardCharsets.UTF_8);
      String ours =
          Arrays.stream(clients.split("\n"))
              .filter(line -> line.contains(" name=shardwise-it "))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no client named shardwise-it in " + clients));
      assertThat(ours).contains(" db=2 ");

      // Lettuce applies SELECT and CLIENT SETNAME again when it reconnects.
      server.command("CLIENT", "KILL", "SKIPME", "no", "ID", field(ours, "id"));
      Await.until(
          () -> await(db2.get("where").exceptionally(t -> null)) != null, Duration.ofSeconds(5));
      assertThat(await(db2.get("where"))).isEqualTo(value("db2"));
      String after = new String((byte[]) server.command("CLIENT", "LIST"), StandardCharsets.UTF_8);
      assertThat(after)
          .contains(" name=shardwise-it ")
          .doesNotContain("id=" + field(ours, "id") + " ");
    } finally {
      other.close();
    }
  }

  private static String field(String clientLine, String name) {
    for (String part : clientLine.split(" ")) {
      if (part.startsWith(name + "=")) {
        return part.substring(name.length() + 1);
      }
    }
    throw new AssertionError("no " + name + " in " + clientLine);
  }
}
