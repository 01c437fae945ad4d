package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NearCacheStats;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The near cache on real Redis servers, which track the keys the client read (RESP3 {@code CLIENT
 * TRACKING}): another client's write, an expiry and a flush reach it as the server's notices, and
 * a tracked connection killed by the server drops everything read before it. Every entry may live a
 * minute here (the Redis default), so only the notices and the drops make these tests pass.
 */
@Timeout(120)
class NearCacheRedisIT {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(3);

  /** Far above the notice delay on loopback (well under a millisecond); ends a broken run. */
  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);

  private final CacheFleet fleet = CacheFleet.redis(FLEET);
  private CountingBackend counted;
  private AsyncCacheClient<String> near;
  private AsyncCacheClient<String> other;

  @BeforeEach
  void open() {
    fleet.reset();
    counted = new CountingBackend(fleet.newBackend());
    near =
        ShardwiseClient.builder()
            .backend(counted)
            .servers(fleet.serverList(3))
            .timeout(CacheFleet.CLIENT_TIMEOUT)
            .codec(Codecs.utf8())
            .nearCache(NearCacheOptions.defaults().withHotOnly(false))
            .build();
    other = fleet.builder(3).codec(Codecs.utf8()).build();
  }

  @AfterEach
  void close() {
    if (near != null) {
      near.close();
    }
    if (other != null) {
      other.close();
    }
  }

  /** Requests other than batches that {@code near} sent to {@code node} so far. */
  private int requestsTo(Node node) {
    return counted.otherCalls().getOrDefault(node, 0);
  }

  /** Reads {@code key} through the near cache until {@code expected} (null: a miss); returns the ms it took. */
  private long readUntil(String key, String expected) {
    long start = System.nanoTime();
    while (!java.util.Objects.equals(near.sync().get(key), expected)) {
      assertThat(System.nanoTime() - start).as("%s still not %s", key, expected).isLessThan(WAIT_NANOS);
      Thread.onSpinWait();
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  private static void await(BooleanSupplier condition, String what) {
    long start = System.nanoTime();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - start).as(what).isLessThan(WAIT_NANOS);
      CacheFleet.sleep(10);
    }
  }

  @Test
  void anotherClientsWriteDeleteAndExpiryReachTheNearCache() {
    CacheClient<String> sync = near.sync();
    Node node = near.nodeFor("k");
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1"); // read on the server, kept
    int before = requestsTo(node);
    assertThat(sync.get("k")).isEqualTo("v1");
    assertThat(requestsTo(node)).as("a second read served here").isEqualTo(before);

    other.sync().set("k", "v2", Duration.ZERO);
    long setMillis = readUntil("k", "v2");
    assertThat(sync.get("k")).isEqualTo("v2");

    other.sync().delete("k");
    long deleteMillis = readUntil("k", null);

    other.sync().set("k", "v3", Duration.ofSeconds(1));
    readUntil("k", "v3");
    assertThat(sync.get("k")).isEqualTo("v3");
    // The server's expiry (its active expiry finds the key within about a second) sends the notice.
    long expiryMillis = readUntil("k", null);
    System.out.printf(
        "[near cache, redis] another client's set seen after %d ms, its delete after %d ms; an expiry seen %d ms after the value was read%n",
        setMillis, deleteMillis, expiryMillis);
  }

  @Test
  void aTrackedConnectionKilledByTheServerDropsEverythingReadBeforeIt() {
    CacheClient<String> sync = near.sync();
    Node node = near.nodeFor("k");
    RedisServer server = FLEET.server(fleet.indexOf(node));
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    int before = requestsTo(node);
    assertThat(sync.get("k")).isEqualTo("v1");
    assertThat(requestsTo(node)).as("kept").isEqualTo(before);
    assertThat(near.nodeStatus().values())
        .as("every node's connection tracks the reads")
        .allSatisfy(s -> assertThat(s.nearCache()).isEqualTo(NearCacheTracking.TRACKED));

    // Every client connection of that server is closed, then the key is written there: no notice
    // can reach the near cache, whose connection is gone.
    server.command("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes");
    try (RawRedis raw = RawRedis.to(server)) {
      raw.command("SET", "k", "v2");
    }
    // The client connects again by itself (a tracked connection: flag t in CLIENT LIST).
    await(() -> clientList(server).contains(" flags=t "), "a tracked connection again");

    assertThat(sync.get("k")).as("the entry read before the loss is not served").isEqualTo("v2");
    await(() -> near.nodeStatus().get(node).nearCache() == NearCacheTracking.TRACKED, "the node tracked again");
    NearCacheStats stats = near.nearCacheStats();
    assertThat(stats.dropAlls().get("tracking")).as("the loss, and the new connection").isGreaterThanOrEqualTo(1);
    assertThat(stats.invalidations("tracking")).as("k's entry, dropped by the loss").isGreaterThanOrEqualTo(1);
  }

  @Test
  void aFlushOfTheServersDropsEverything() {
    CacheClient<String> sync = near.sync();
    for (int i = 0; i < 20; i++) {
      sync.set("f" + i, "v" + i, Duration.ZERO);
      assertThat(sync.get("f" + i)).isEqualTo("v" + i);
    }
    for (int i = 0; i < FLEET.size(); i++) {
      FLEET.server(i).command("FLUSHALL");
    }
    long millis = 0;
    for (int i = 0; i < 20; i++) {
      millis = Math.max(millis, readUntil("f" + i, null));
    }
    System.out.printf("[near cache, redis] a flush seen after at most %d ms%n", millis);
  }

  private static String clientList(RedisServer server) {
    Object list = server.command("CLIENT", "LIST");
    return " " + (list instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(list)).replace("\n", " \n ");
  }
}
