package io.shardwise.it;

import static io.shardwise.it.CacheFleet.ready;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeState;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.FailureMode;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A server killed with {@code kill -9}: with the {@code fail-fast} failure mode, requests for its
 * keys fail within the timeout with a {@link NodeException} naming it, the other servers' keys keep
 * working, and after the server is restarted the same client serves its keys again by itself.
 */
@Timeout(90)
class ServerFailureIT {

  private static final int SERVERS = 3;
  private static final int KEYS = 300;

  /** Fail-fast is far below this; the client timeout plus scheduling slack is the bound. */
  private static final Duration FAILS_WITHIN = CacheFleet.CLIENT_TIMEOUT.plusMillis(500);

  /** Reconnection (1 s) and probing (backoff up to 5 s) after the restart, with slack. */
  private static final Duration RECOVERS_WITHIN = Duration.ofSeconds(20);

  @RegisterExtension
  static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(SERVERS);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(SERVERS);

  static Stream<CacheFleet> fleets() {
    return Stream.of(CacheFleet.memcached(MEMCACHED), CacheFleet.redis(REDIS));
  }

  @AfterEach
  void restore() {
    MEMCACHED.restoreAll();
    REDIS.restoreAll();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void killedServerFailsItsKeysFastOthersKeepWorkingAndTheClientRecoversAfterRestart(
      CacheFleet fleet) {
    fleet.reset();
    ConcurrentLinkedQueue<NodeEvent> events = new ConcurrentLinkedQueue<>();
    try (AsyncCacheClient<String> client =
        ready(
            ShardwiseClient.builder()
                .backend(fleet.newBackend())
                .servers(fleet.serverList(SERVERS))
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .failover(FailoverOptions.builder().failureMode(FailureMode.FAIL_FAST).build())
                .listener(events::add)
                .codec(Codecs.utf8())
                .build())) {
      Map<String, String> written = new LinkedHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        written.put("failure:" + i, "value " + i);
      }
      assertThat(Await.result(client.setMulti(written, Duration.ZERO)).errors()).isEmpty();
      int victimIndex = 1;
      ServerHandle victim = fleet.server(victimIndex);
      Node dead = client.nodes().get(victimIndex);
      List<String> deadKeys = new ArrayList<>();
      List<String> liveKeys = new ArrayList<>();
      for (String key : written.keySet()) {
        (client.nodeFor(key).equals(dead) ? deadKeys : liveKeys).add(key);
      }
      assertThat(deadKeys).isNotEmpty();

      victim.kill();

      // Every request for the dead server's keys fails, fast, naming the server.
      Duration slowest = Duration.ZERO;
      for (String key : deadKeys.subList(0, Math.min(10, deadKeys.size()))) {
        for (CompletableFuture<?> request :
            List.of(client.get(key), client.set(key, "new", Duration.ZERO), client.delete(key))) {
          long start = System.nanoTime();
          Throwable failure = Await.failure(request);
          Duration took = Duration.ofNanos(System.nanoTime() - start);
          slowest = took.compareTo(slowest) > 0 ? took : slowest;
          assertThat(failure)
              .isInstanceOf(NodeException.class)
              .hasMessageContaining(victim.address());
          assertThat(((NodeException) failure).node()).isEqualTo(dead);
        }
      }
      assertThat(slowest).as("slowest failed request").isLessThan(FAILS_WITHIN);

      // The other servers' keys keep working, one by one and in a multi-key read.
      for (String key : liveKeys.subList(0, 20)) {
        client.sync().set(key, "updated " + key, Duration.ZERO);
        assertThat(client.sync().get(key)).isEqualTo("updated " + key);
      }
      MultiResult<String> all = Await.result(client.getMulti(written.keySet()));
      assertThat(all.errors().keySet()).containsExactlyInAnyOrderElementsOf(deadKeys);
      assertThat(all.errors().values())
          .allSatisfy(e -> assertThat(e).hasMessageContaining(victim.address()));
      assertThat(all.values()).hasSize(liveKeys.size());
      assertThat(all.misses()).isEmpty();
      assertThat(client.nodeStates().get(dead)).isNotEqualTo(NodeState.HEALTHY);

      victim.restart();

      // The same client serves the restarted server's keys again, without help.
      String probeKey = deadKeys.get(0);
      long deadline = System.nanoTime() + RECOVERS_WITHIN.toNanos();
      long restarted = System.nanoTime();
      Throwable last = null;
      while (true) {
        try {
          client.sync().set(probeKey, "after restart", Duration.ZERO);
          assertThat(client.sync().get(probeKey)).isEqualTo("after restart");
          break;
        } catch (NodeException e) {
          last = e;
        }
        assertThat(System.nanoTime())
            .as("recovered within %s; last failure: %s", RECOVERS_WITHIN, last)
            .isLessThan(deadline);
        CacheFleet.sleep(100);
      }
      Duration recovery = Duration.ofNanos(System.nanoTime() - restarted);
      assertThat(client.nodeStates().values()).containsOnly(NodeState.HEALTHY);
      MultiResult<String> after = Await.result(client.getMulti(written.keySet()));
      assertThat(after.errors()).isEmpty();
      assertThat(after.values()).hasSize(liveKeys.size() + 1);
      assertThat(events)
          .as("node events")
          .allSatisfy(e -> assertThat(e.node()).isEqualTo(dead))
          .anySatisfy(e -> assertThat(e.isEjection()).isTrue())
          .anySatisfy(e -> assertThat(e.isReadmission()).isTrue());
      System.out.printf(
          "%s: slowest failed request %d ms, recovered %d ms after the restart%n",
          fleet, slowest.toMillis(), recovery.toMillis());
    }
  }
}
