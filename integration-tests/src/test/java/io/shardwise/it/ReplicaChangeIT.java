package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyChange;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.core.TopologyOptions;
import io.shardwise.routing.ServerList;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Server-list and placement changes of a client whose keys live on two replicas ({@code
 * shardwise.replicas=2}), on 5 real memcached and 5 real Redis servers, under 8 threads of
 * cache-aside load on 20,000 keys: the replica sets settle and warm as one owner does. The figures
 * ({@code REPLICA CHANGE ...} lines on standard output) are the ones in docs/replicas.md.
 */
@Timeout(300)
class ReplicaChangeIT {

  private static final int KEYS = 20_000;
  private static final int THREADS = 8;
  private static final long WINDOW_READS = 20_000;

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(5);
  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(5);

  static Stream<CacheFleet> fleets() {
    return Stream.of(CacheFleet.memcached(MEMCACHED), CacheFleet.redis(REDIS));
  }

  private static AsyncCacheClient<String> client(CacheFleet fleet, RouterSpec router, Duration settle, Duration warmUp) {
    return client(fleet, router, settle, warmUp, 2);
  }

  private static AsyncCacheClient<String> client(
      CacheFleet fleet, RouterSpec router, Duration settle, Duration warmUp, int replicas) {
    return CacheFleet.ready(
        ShardwiseClient.builder()
            .backend(fleet.newBackend())
            .servers(fleet.serverList(5))
            .router(router)
            .timeout(CacheFleet.CLIENT_TIMEOUT)
            .topology(TopologyOptions.defaults().withSettle(settle).withWarmUp(warmUp))
            .codec(Codecs.utf8())
            .replicas(replicas)
            .build());
  }

  /** Items the servers hold: memcached's curr_items, Redis' DBSIZE, summed. */
  private static long items(CacheFleet fleet) {
    long items = 0;
    for (int i = 0; i < fleet.size(); i++) {
      if (fleet.server(i) instanceof MemcachedServer m) {
        items += Long.parseLong(m.stats().get("curr_items"));
      } else {
        items += ((Number) ((RedisServer) fleet.server(i)).command("DBSIZE")).longValue();
      }
    }
    return items;
  }

  /**
   * {@code shardwise.replicas} changed live, 1 to 2 and back, under load: the keys read during the
   * warm-up are copied to the replica that arrived; when the replicas go back to 1, writes delete
   * the key on the replica that left. No error, no old value, and the hit rate holds.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void theReplicasGrowAndShrinkLiveWithNothingStale(CacheFleet fleet) {
    fleet.reset();
    try (AsyncCacheClient<String> client =
            client(fleet, RouterSpec.of("ketama"), Duration.ZERO, Duration.ofSeconds(30), 1);
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      CacheAsideLoad.Counts before = load.over(WINDOW_READS);
      long itemsBefore = items(fleet);
      TopologyChange grow = client.updatePlacement(Map.of("shardwise.replicas", "2")).join();
      CacheAsideLoad.Counts first = load.over(WINDOW_READS);
      load.over(4 * WINDOW_READS);
      long itemsGrown = items(fleet);
      TopologyChange shrink = client.updatePlacement(Map.of("shardwise.replicas", "1")).join();
      CacheAsideLoad.Counts afterShrink = load.over(WINDOW_READS);
      load.over(WINDOW_READS);
      load.stop();
      System.out.printf(
          "REPLICA CHANGE %s replicas 1 -> 2 (%s) -> 1 (%s): hit rate before %.4f, first %d reads after the"
              + " growth %.4f, first %d after the shrink %.4f; items %d before, %d after %d more reads;"
              + " errors %d, stale %d, wrong %d%n",
          fleet, grow.placementAfter(), shrink.placementAfter(), before.hitRate(), first.reads(),
          first.hitRate(), afterShrink.reads(), afterShrink.hitRate(), itemsBefore, itemsGrown,
          5 * WINDOW_READS, load.counts().errors(), load.counts().stale(), load.counts().wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
      assertThat(first.hitRate()).as("hit rate after the growth").isGreaterThanOrEqualTo(0.99);
      assertThat(afterShrink.hitRate()).as("hit rate after the shrink").isGreaterThanOrEqualTo(0.99);
      assertThat(itemsGrown).as("keys copied to their second replica").isGreaterThan(itemsBefore + KEYS / 2);
    }
  }

  /**
   * A server leaves the list, and comes back once the warm-up has ended: its keys' replica sets
   * change twice, and the second time they come back to a server that still holds their values from
   * before the first change. No old value is read, and the first reads after the first change hit.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void aServerRemovedAndAddedBackAfterTheWarmUpReadsNothingStale(CacheFleet fleet) {
    fleet.reset();
    try (AsyncCacheClient<String> client = client(fleet, RouterSpec.of("ketama"), Duration.ZERO, Duration.ofSeconds(3));
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      CacheAsideLoad.Counts before = load.over(WINDOW_READS);
      CacheAsideLoad.Counts start = load.counts();
      TopologyChange removed = client.updateServers(ServerList.parse(fleet.serverList(4))).join();
      CacheAsideLoad.Counts first = load.over(WINDOW_READS);
      CacheFleet.sleep(3_500); // past the warm-up: the keys are written on their new replicas only
      load.over(WINDOW_READS);
      TopologyChange back = client.updateServers(ServerList.parse(fleet.serverList(5))).join();
      CacheAsideLoad.Counts afterBack = load.over(WINDOW_READS);
      load.over(2 * WINDOW_READS);
      CacheAsideLoad.Counts run = load.counts().minus(start);
      load.stop();
      System.out.printf(
          "REPLICA CHANGE %s replicas 2, a server removed (%s) and added back after the warm-up (%s):"
              + " hit rate before %.4f, first %d reads after the removal %.4f, first %d after the return %.4f;"
              + " %d reads in all, errors %d, stale %d, wrong %d%n",
          fleet, removed, back, before.hitRate(), first.reads(), first.hitRate(), afterBack.reads(),
          afterBack.hitRate(), run.reads(), run.errors(), run.stale(), run.wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
      assertThat(first.hitRate()).as("hit rate over the first reads after the removal").isGreaterThanOrEqualTo(0.99);
    }
  }

  /** Two clients apply the same list change 2 s apart, within the settle phase: nothing stale. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("fleets")
  void twoClientsChangingTheListWithinTheSettlePhaseReadNothingStale(CacheFleet fleet) {
    fleet.reset();
    Duration settle = Duration.ofSeconds(4);
    try (AsyncCacheClient<String> a = client(fleet, RouterSpec.of("ketama"), settle, Duration.ofSeconds(60));
        AsyncCacheClient<String> b = client(fleet, RouterSpec.of("ketama"), settle, Duration.ofSeconds(60));
        CacheAsideLoad load = new CacheAsideLoad(List.of(a, b), KEYS, THREADS).preload().start()) {
      load.over(WINDOW_READS);
      CacheAsideLoad.Counts start = load.counts();
      TopologyChange change = a.updateServers(ServerList.parse(fleet.serverList(4))).join();
      CacheFleet.sleep(2_000); // b still stores keys on the five servers
      b.updateServers(ServerList.parse(fleet.serverList(4))).join();
      CacheFleet.sleep(settle.toMillis()); // a leaves its settle phase, then b
      load.over(3 * WINDOW_READS);
      CacheAsideLoad.Counts run = load.counts().minus(start);
      load.stop();
      System.out.printf(
          "REPLICA CHANGE %s replicas 2, two clients 2 s apart, settle %d s: %s; %d reads, hit rate %.4f,"
              + " errors %d, stale %d, wrong %d%n",
          fleet, settle.toSeconds(), change, run.reads(), run.hitRate(), run.errors(), run.stale(), run.wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
    }
  }

  /** A change of router with two replicas (ketama to Maglev) on Redis keeps the hit rate. */
  @Test
  void aRouterChangeWithTwoReplicasKeepsTheHitRate() {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    try (AsyncCacheClient<String> client = client(fleet, RouterSpec.of("ketama"), Duration.ZERO, Duration.ofSeconds(60));
        CacheAsideLoad load = new CacheAsideLoad(List.of(client), KEYS, THREADS).preload().start()) {
      CacheAsideLoad.Counts before = load.over(WINDOW_READS);
      TopologyChange change = client.updatePlacement(Map.of("shardwise.router", "maglev")).join();
      CacheAsideLoad.Counts window = load.over(WINDOW_READS);
      CacheAsideLoad.Counts next = load.over(WINDOW_READS);
      load.stop();
      System.out.printf(
          "REPLICA CHANGE %s replicas 2, ketama -> maglev: %s; hit rate before %.4f, first %d reads after %.4f,"
              + " next %d %.4f; errors %d, stale %d, wrong %d%n",
          fleet, change, before.hitRate(), window.reads(), window.hitRate(), next.reads(), next.hitRate(),
          load.counts().errors(), load.counts().stale(), load.counts().wrong());
      assertThat(load.firstProblems).as("errors, stale and wrong values").isEmpty();
      assertThat(window.hitRate()).as("hit rate over the first reads after the change").isGreaterThanOrEqualTo(0.99);
    }
  }
}
