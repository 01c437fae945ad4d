package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeEvent;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The near cache on real memcached servers, which cannot tell a client that a value it read
 * changed: another client's write is seen once the entry is older than {@code maxStaleness}, and a
 * server restart (its connection lost) drops everything read before it, without an ejection.
 */
@Timeout(120)
class NearCacheMemcachedIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  /** Ends a broken run; far above a reconnection on loopback. */
  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);

  private final CacheFleet fleet = CacheFleet.memcached(FLEET);
  private final List<NodeEvent> events = new CopyOnWriteArrayList<>();
  private CountingBackend counted;
  private AsyncCacheClient<String> near;
  private AsyncCacheClient<String> other;

  private void open(Duration staleness) {
    fleet.reset();
    counted = new CountingBackend(fleet.newBackend());
    near =
        ShardwiseClient.builder()
            .backend(counted)
            .servers(fleet.serverList(3))
            .timeout(CacheFleet.CLIENT_TIMEOUT)
            .codec(Codecs.utf8())
            // No ejection in these tests: what drops the entries is the lost connection itself.
            .failover(FailoverOptions.builder().failureThreshold(10_000).build())
            .listener(events::add)
            .nearCache(NearCacheOptions.defaults().withHotOnly(false).withMaxStaleness(staleness))
            .build();
    // Nor for the other client: an ejection would send its write of the restarted server's key to
    // another server, where this test would never read it.
    other = fleet.builder(3).codec(Codecs.utf8()).failover(FailoverOptions.builder().failureThreshold(10_000).build()).build();
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

  @Test
  void anotherClientsWriteIsSeenOnceTheEntryIsOlderThanMaxStaleness() {
    Duration staleness = Duration.ofMillis(500);
    open(staleness);
    CacheClient<String> sync = near.sync();
    Node node = near.nodeFor("k");
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    // The entry was put before this get returned: from here on it lives at most the bound.
    long keptBy = System.nanoTime();
    int before = requestsTo(node);
    assertThat(sync.get("k")).isEqualTo("v1");
    assertThat(requestsTo(node)).as("a second read served here").isEqualTo(before);

    other.sync().set("k", "v2", Duration.ZERO);
    long written = System.nanoTime();
    long oldReads = 0;
    long lastOldStart = keptBy;
    while (true) {
      long start = System.nanoTime();
      String read = sync.get("k");
      if ("v2".equals(read)) {
        break;
      }
      assertThat(read).isEqualTo("v1");
      // Caffeine checks the entry's age when it is read: a read that began after the bound never
      // finds it, however slowly this machine runs.
      assertThat(start - keptBy).as("an old value read %d ms after it was kept", TimeUnit.NANOSECONDS.toMillis(start - keptBy))
          .isLessThan(staleness.toNanos());
      oldReads++;
      lastOldStart = start;
      assertThat(start - written).isLessThan(WAIT_NANOS);
    }
    System.out.printf(
        "[near cache, memcached] another client's set seen %d ms after it was confirmed; %d reads of the older value, the last %d ms after it was kept (bound %d ms)%n",
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - written),
        oldReads,
        TimeUnit.NANOSECONDS.toMillis(lastOldStart - keptBy),
        staleness.toMillis());
  }

  @Test
  void aServerRestartDropsEverythingReadBeforeIt() {
    open(Duration.ofMinutes(1));
    CacheClient<String> sync = near.sync();
    Node node = near.nodeFor("k");
    MemcachedServer server = FLEET.server(fleet.indexOf(node));
    sync.set("k", "v1", Duration.ZERO);
    assertThat(sync.get("k")).isEqualTo("v1");
    int before = requestsTo(node);
    assertThat(sync.get("k")).isEqualTo("v1");
    assertThat(requestsTo(node)).as("kept").isEqualTo(before);

    // The server restarts empty, and another client writes the key there: memcached sends no
    // notice, and the entry would live a minute.
    server.kill();
    server.restore();
    long start = System.nanoTime();
    while (!answered(() -> other.sync().set("k", "v2", Duration.ZERO))) {
      assertThat(System.nanoTime() - start).as("the other client's write").isLessThan(WAIT_NANOS);
      CacheFleet.sleep(20);
    }
    // spymemcached sees that a connection was closed when it next uses it: a request of another
    // key on that server (any traffic of the application does) reveals the restart.
    String neighbour = keyOn(node);
    while (!answered(() -> sync.get(neighbour))) {
      assertThat(System.nanoTime() - start).as("a request to the restarted server").isLessThan(WAIT_NANOS);
      CacheFleet.sleep(10);
    }
    String read;
    while (!"v2".equals(read = readOrNull(sync, "k"))) {
      assertThat(read).as("the entry read before the restart is not served").isNotEqualTo("v1");
      assertThat(System.nanoTime() - start).as("k still not v2").isLessThan(WAIT_NANOS);
      CacheFleet.sleep(10);
    }
    assertThat(events).as("no ejection: the lost connection dropped the entry").noneMatch(NodeEvent::isEjection);
  }

  /** A key, other than {@code k}, that {@code near} keeps on {@code node}. */
  private String keyOn(Node node) {
    for (int i = 0; ; i++) {
      String key = "n" + i;
      if (near.nodeFor(key).equals(node)) {
        return key;
      }
    }
  }

  /** Whether {@code request} was answered (it fails while the client connects again). */
  private static boolean answered(Runnable request) {
    try {
      request.run();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** A read that fails while the client connects again is "not yet". */
  private static String readOrNull(CacheClient<String> sync, String key) {
    try {
      return sync.get(key);
    } catch (RuntimeException e) {
      return null;
    }
  }
}
