package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeEvent;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.redis.RedisBackend;
import io.shardwise.routing.Node;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How soon the routing client readmits a Redis server that was killed and restarted, after
 * outages of 1 and 5 s (and 30 s with {@code -Dreadmission.long=true}): two clients watch the same
 * fleet, one probing the ejected node with the default backoff (200 ms doubling to 2 s), one with
 * the backoff capped at 1 s. Times run from the moment the restarted server accepts TCP
 * connections again to the readmission event; the first probe after that moment must succeed, so
 * readmission takes at most one probe interval plus the rejoin. Prints one row per outage.
 */
@Timeout(120)
class RedisReadmissionIT {

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  /** An event with the nanoTime it was received. */
  private record Seen(long atNanos, NodeEvent event) {}

  private final List<AsyncCacheClient<String>> clients = new ArrayList<>();

  @AfterEach
  void closeClients() {
    clients.forEach(AsyncCacheClient::close);
    clients.clear();
    REDIS.restoreAll();
  }

  private AsyncCacheClient<String> client(FailoverOptions failover, List<Seen> events) {
    AsyncCacheClient<String> client =
        ready(
            ShardwiseClient.builder()
                .backend(RedisBackend.create())
                .servers(String.join(",", REDIS.addresses()))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .failover(failover)
                .listener(e -> events.add(new Seen(System.nanoTime(), e)))
                .codec(Codecs.utf8())
                .build());
    clients.add(client);
    return client;
  }

  /** Outages of 1 and 5 s; {@code -Dreadmission.long=true} adds 30 s (what the docs report). */
  static IntStream outages() {
    return Boolean.getBoolean("readmission.long") ? IntStream.of(1, 5, 30) : IntStream.of(1, 5);
  }

  @ParameterizedTest(name = "outage of {0} s")
  @MethodSource("outages")
  void aRestartedRedisIsReadmittedWithinOneProbeInterval(int outageSeconds) throws Exception {
    REDIS.restoreAll();
    REDIS.flushAll();
    List<Seen> defaultEvents = new CopyOnWriteArrayList<>();
    List<Seen> fastEvents = new CopyOnWriteArrayList<>();
    AsyncCacheClient<String> defaultProbes = client(FailoverOptions.defaults(), defaultEvents);
    AsyncCacheClient<String> fastProbes =
        client(
            FailoverOptions.builder().maxProbeInterval(Duration.ofSeconds(1)).build(), fastEvents);
    RedisServer victim = REDIS.server(1);
    Node node =
        defaultProbes.nodes().stream()
            .filter(n -> n.port() == victim.port())
            .findFirst()
            .orElseThrow();
    String key = keyOn(defaultProbes, node);
    assertThat(fastProbes.nodeFor(key)).isEqualTo(node);

    long killedAt = System.nanoTime();
    victim.kill();
    // Requests for its key fail until each client ejects it.
    long deadline = killedAt + TimeUnit.SECONDS.toNanos(10);
    while (!(has(defaultEvents, node, NodeEvent::isEjection)
        && has(fastEvents, node, NodeEvent::isEjection))) {
      assertThat(System.nanoTime()).as("both clients ejected the node").isLessThan(deadline);
      for (AsyncCacheClient<String> c : List.of(defaultProbes, fastProbes)) {
        c.get(key).exceptionally(t -> null).get(5, TimeUnit.SECONDS);
      }
      Thread.sleep(10);
    }

    TimeUnit.NANOSECONDS.sleep(
        Math.max(0, killedAt + TimeUnit.SECONDS.toNanos(outageSeconds) - System.nanoTime()));
    CompletableFuture<Long> accepting =
        CompletableFuture.supplyAsync(() -> victim.awaitAccepting(Duration.ofSeconds(30)));
    long restartedAt = System.nanoTime();
    victim.restart();
    long acceptedAt = accepting.get(5, TimeUnit.SECONDS);

    Duration within = Duration.ofSeconds(20);
    long slow = readmittedAfter(defaultEvents, node, restartedAt, acceptedAt, within);
    long fast = readmittedAfter(fastEvents, node, restartedAt, acceptedAt, within);
    System.out.printf(
        "[readmission] | redis, outage %2d s | probes up to every %d ms (default): readmitted %d ms"
            + " after the restart | probes up to every 1 s: %d ms |%n",
        outageSeconds,
        FailoverOptions.DEFAULT_MAX_PROBE_INTERVAL.toMillis(),
        TimeUnit.NANOSECONDS.toMillis(slow),
        TimeUnit.NANOSECONDS.toMillis(fast));
    // One probe interval (at most the default, or 1 s) and the rejoin, with margin for a loaded
    // machine.
    assertThat(Duration.ofNanos(slow))
        .isLessThan(FailoverOptions.DEFAULT_MAX_PROBE_INTERVAL.plusMillis(1500));
    assertThat(Duration.ofNanos(fast)).isLessThan(Duration.ofMillis(2000));
  }

  private static String keyOn(AsyncCacheClient<String> client, Node node) {
    for (int i = 0; ; i++) {
      String key = "readmission:" + i;
      if (client.nodeFor(key).equals(node)) {
        return key;
      }
    }
  }

  private static boolean has(List<Seen> events, Node node, Predicate<NodeEvent> kind) {
    return events.stream().anyMatch(s -> s.event().node().equals(node) && kind.test(s.event()));
  }

  /**
   * Nanoseconds from {@code acceptedAt} to the node's first readmission after {@code restartedAt}.
   * The watcher sees the port accept up to one of its polls (a sleep and a connect, longer on a
   * loaded machine) after it does, so a probe can readmit the node a little before {@code
   * acceptedAt}: the result is then negative (a CI run readmitted it before the watcher saw the
   * port, and an earlier version of this method, which looked only after {@code acceptedAt}, never
   * found the readmission).
   */
  private static long readmittedAfter(
      List<Seen> events, Node node, long restartedAt, long acceptedAt, Duration within)
      throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      for (Seen s : events) {
        if (s.atNanos() >= restartedAt
            && s.event().node().equals(node)
            && s.event().isReadmission()) {
          return s.atNanos() - acceptedAt;
        }
      }
      Thread.sleep(5);
    }
    throw new AssertionError(
        node.name() + " was not readmitted within " + within + "; events: " + events);
  }

}
