package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Server-list changes under concurrency: 8 threads read, write, delete and fill (cache-aside
 * {@code add}) versioned values while the list changes every few tens of milliseconds between
 * lists that add, remove, replace, restore and rename servers, so that changes are reversed while
 * settling, while warming and after their warm-up, and changes follow each other within each
 * other's windows; meanwhile servers stop and continue, die and come back with their data, and 2%
 * of all requests are lost unapplied. No read may return a value older than one confirmed written
 * (or deleted) by this client before the read started, nor a count behind one an update confirmed.
 *
 * <p>{@link #theCheckerFindsOldValuesOnServersThatKeepDeletedValues} runs the same load on servers
 * that acknowledge deletes without applying them: the old values then stay, and the check finds
 * them.
 */
class TopologyModelTest {

  private static final int KEYS = 2000;
  private static final int THREADS = 8;
  /**
   * With replicas, fewer keys and {@link HealingModelTest#MIX}'s many deletes, so that writes and
   * deletes of a key race its repair copies: without the copy protocol's generation check these runs
   * read old values (docs/replicas.md).
   */
  private static final int REPAIR_KEYS = 500;
  private static final long RUN_MILLIS = 3000;
  /** A run goes on past {@link #RUN_MILLIS} until more changes than this were applied. */
  private static final int MIN_CHANGES = 15;
  /** With the router changing, a run goes on until more router changes than this were applied. */
  private static final int MIN_ROUTER_CHANGES = 4;
  private static final List<String> ROUTERS = List.of("ketama", "hrw", "maglev");
  /** Reads 48%, writes 44%, cache-aside fills 8%. */
  private static final VersionedLoad.Mix MIX = new VersionedLoad.Mix(40, 8, 30, 8, 6, 4, 4);

  /** Lists over the servers a..h: grow, shrink, a replacement (h for e), a rename (e as "z"). */
  private static final List<String> LISTS =
      List.of(
          "a:1,b:2,c:3,d:4,e:5",
          "a:1,b:2,c:3,d:4,e:5,f:6",
          "a:1,b:2,c:3,d:4,e:5,f:6,g:7",
          "a:1,b:2,c:3,d:4,h:8",
          "a:1,b:2,c:3,d:4,z=e:5",
          "a:1,b:2,c:3,e:5,f:6",
          "a:1,c:3,d:4,e:5,g:7,h:8");

  record Outcome(
      int replicas,
      long reads,
      long hits,
      long nearHits,
      long writes,
      long changes,
      long repairs,
      long routerChanges,
      long stale,
      long staleCounts,
      long wrong,
      VersionedLoad.Outcome load,
      List<String> examples) {}

  /** Seeds 1, 2, 3 per router (see {@link #routerSeeds}). */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> runs() {
    return routerSeeds(3);
  }

  /**
   * Seeds 1..{@code seeds} per router; {@code -Dtopology.model.seeds=N} runs N seeds instead, and
   * {@code -Dtopology.model.first-seed=F} starts them at F, so that test JVMs run side by side can
   * each take other seeds.
   */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> routerSeeds(long seeds) {
    long first = Long.getLong("topology.model.first-seed", 1);
    long last = first + Long.getLong("topology.model.seeds", seeds) - 1;
    List<org.junit.jupiter.params.provider.Arguments> out = new ArrayList<>();
    for (String router : List.of("ketama", "hrw", "maglev")) {
      for (long seed = first; seed <= last; seed++) {
        out.add(org.junit.jupiter.params.provider.Arguments.of(router, seed));
      }
    }
    return out.stream();
  }

  /** Seeds 1, 2 per router (see {@link #routerSeeds}). */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> replicaRuns() {
    return routerSeeds(2);
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("runs")
  void noReadReturnsAnOlderValueThanOneConfirmedWhileTheListChangesAndChangesBack(String router, long seed)
      throws Exception {
    assertNoOldValue(run(router, seed, false, 1, false));
  }

  /** The same with every key on two replicas: replica sets settle and warm as single owners do. */
  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("replicaRuns")
  void withTwoReplicasNoReadReturnsAnOlderValueWhileTheListChangesAndChangesBack(String router, long seed)
      throws Exception {
    Outcome outcome = run(router, seed, false, 2, false);
    assertNoOldValue(outcome);
    FailbackModelTest.assertRepaired(outcome.repairs());
  }

  /**
   * The same, with one change in three a change of the number of replicas (1 to 2 and back) instead
   * of the list: replica sets grow and shrink, settle and warm as a list change moves them.
   */
  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("replicaRuns")
  void whenTheReplicasChangeTooNoReadReturnsAnOlderValue(String router, long seed) throws Exception {
    assertNoOldValue(run(router, seed, false, 1, true));
  }

  /** Seed 1 per router (see {@link #routerSeeds}). */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> repairRuns() {
    return routerSeeds(1);
  }

  /**
   * The same with repair on and never fewer than two replicas: one change in three a change of the
   * number of replicas (2 to 3 and back), so that reads miss on the replicas a change adds and the
   * servers the chaos empties, hit on another replica and copy the value back, while writes race
   * those copies. Repairs must happen, and none may outlive a write.
   */
  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("repairRuns")
  void whenTwoOrThreeReplicasChangeWithRepairNoReadReturnsAnOlderValue(String router, long seed) throws Exception {
    Outcome outcome = run(router, seed, false, 2, true);
    assertNoOldValue(outcome);
    FailbackModelTest.assertRepaired(outcome.repairs());
  }

  /**
   * With a near cache on every key, whose entries live a minute, so that only the drops keep it
   * fresh: the list and the replica count change (1 to 2 and back, then 2 to 3 and back) under the
   * chaos, and 10% of the reads are getMultis (docs/near-cache.md).
   *
   * <p>Old values of the versioned keys and counts read behind a confirmed one fail the run. The
   * counts found the copies that a write of a moved key could not delete where reads look (a lost
   * request): left readable, an incr there added to the count they held, behind the updates counted
   * elsewhere since (docs/topology.md).
   */
  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("repairRuns")
  void withANearCacheNoReadReturnsAnOlderValueWhileTheListAndTheReplicasChange(String router, long seed) throws Exception {
    NearCacheOptions near = NearCacheOptions.defaults().withHotOnly(false).withMaxStaleness(Duration.ofMinutes(1));
    for (int replicas : List.of(1, 2)) {
      Outcome outcome = run(router, seed, false, replicas, true, false, near);
      assertNoOldValue(outcome);
      assertThat(outcome.nearHits()).as("reads answered by the near cache").isGreaterThan(FailbackModelTest.MIN_NEAR_HITS);
      FailbackModelTest.assertNearLoad(outcome.load());
    }
  }

  /**
   * The same with the router changing too: one change in three a change of the router (to the next
   * of ketama, HRW and Maglev and back), which moves most keys, one in three a change of the replica
   * count, and the others between two lists (the first and one of the others, by seed), so that the
   * placements stay within the eight a client remembers.
   */
  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("repairRuns")
  void withANearCacheNoReadReturnsAnOlderValueWhileTheRouterChangesToo(String router, long seed) throws Exception {
    NearCacheOptions near = NearCacheOptions.defaults().withHotOnly(false).withMaxStaleness(Duration.ofMinutes(1));
    for (int replicas : List.of(1, 2)) {
      Outcome outcome = run(router, seed, false, replicas, true, true, near);
      assertNoOldValue(outcome);
      assertThat(outcome.routerChanges()).as("router changes applied").isGreaterThan(MIN_ROUTER_CHANGES);
      assertThat(outcome.nearHits()).as("reads answered by the near cache").isGreaterThan(FailbackModelTest.MIN_NEAR_HITS);
      FailbackModelTest.assertNearLoad(outcome.load());
    }
  }

  private static void assertNoOldValue(Outcome outcome) {
    assertThat(outcome.changes()).as("list changes applied").isGreaterThan(MIN_CHANGES);
    assertThat(outcome.hits()).as("reads found values").isGreaterThan(FailbackModelTest.minHits(outcome.replicas()));
    assertThat(outcome.wrong()).as("values of other keys").isZero();
    assertThat(outcome.stale()).as("old values read; examples: %s", outcome.examples()).isZero();
    assertThat(outcome.staleCounts()).as("counts read behind a confirmed one; examples: %s", outcome.examples()).isZero();
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @org.junit.jupiter.params.provider.CsvSource({"ketama, 1"})
  void theCheckerFindsOldValuesOnServersThatKeepDeletedValues(String router, long seed) throws Exception {
    Outcome outcome = run(router, seed, true, 1, false);
    assertThat(outcome.stale()).as("the checker sees old values").isPositive();
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @org.junit.jupiter.params.provider.CsvSource({"ketama, 1"})
  void withTwoReplicasTheCheckerFindsOldValuesOnServersThatKeepDeletedValues(String router, long seed)
      throws Exception {
    Outcome outcome = run(router, seed, true, 2, false);
    assertThat(outcome.stale()).as("the checker sees old values").isPositive();
  }

  private Outcome run(String router, long seed, boolean brokenDeletes, int replicas, boolean changeReplicas)
      throws Exception {
    return run(router, seed, brokenDeletes, replicas, changeReplicas, false, NearCacheOptions.off());
  }

  private Outcome run(
      String router, long seed, boolean brokenDeletes, int replicas, boolean changeReplicas, boolean changeRouter, NearCacheOptions near)
      throws Exception {
    SimulatedFleet fleet = new SimulatedFleet();
    SimulatedFleet.TRACE.clear();
    AtomicLong repairs = new AtomicLong();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers(LISTS.get(0))
            .router(RouterSpec.of(router))
            .timeout(Duration.ofMillis(40))
            .failover(SimulatedFleet.fastFailover().build())
            .topology(
                TopologyOptions.defaults()
                    .withSettle(Duration.ofMillis(30))
                    .withWarmUp(Duration.ofMillis(120))
                    .withConnectWait(Duration.ofMillis(20)))
            .codec(Codecs.utf8())
            .replicas(replicas)
            .replicaRepair(FailbackModelTest.REPAIR)
            .metrics(
                new ClientMetrics() {
                  @Override
                  public void repaired(Node node, String cause) {
                    repairs.incrementAndGet();
                  }
                })
            .listener(e -> SimulatedFleet.trace("*", "event " + e))
            .nearCache(near)
            .build();
    for (Node n : ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6,g:7,h:8")) {
      fleet.node(n).lossRate = 0.02;
      fleet.node(n).ignoresDeletes = brokenDeletes;
      if (replicas > 1) {
        // Replies after random delays: repair copies are still under way when writes of their keys come.
        fleet.node(n).jitterMicros = 300;
      }
    }
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong changes = new AtomicLong();
    AtomicLong routerChanges = new AtomicLong();
    String otherRouter = ROUTERS.get((ROUTERS.indexOf(router) + 1) % ROUTERS.size());
    List<String> twoLists = List.of(LISTS.get(0), LISTS.get(1 + (int) (seed % (LISTS.size() - 1))));
    VersionedLoad load = (near.enabled()
            ? new VersionedLoad(client.sync(), "t:", REPAIR_KEYS, THREADS, FailbackModelTest.NEAR_MIX)
            : replicas > 1
                ? new VersionedLoad(client.sync(), "t:", REPAIR_KEYS, THREADS, HealingModelTest.MIX)
                : new VersionedLoad(client.sync(), "t:", KEYS, THREADS, MIX)).start(seed);
    Thread changer =
        new Thread(
            () -> {
              SplittableRandom random = new SplittableRandom(seed * 7919);
              String routerNow = router;
              while (running.get()) {
                try {
                  int kind = changeRouter ? random.nextInt(3) : -1;
                  if (kind == 0) {
                    routerNow = routerNow.equals(router) ? otherRouter : router;
                    SimulatedFleet.trace("*", "change to router " + routerNow);
                    client.updatePlacement(java.util.Map.of("shardwise.router", routerNow)).join();
                    routerChanges.incrementAndGet();
                  } else if (kind == 1) {
                    String n = String.valueOf(replicas + random.nextInt(2));
                    SimulatedFleet.trace("*", "change to replicas " + n);
                    client.updatePlacement(java.util.Map.of("shardwise.replicas", n)).join();
                  } else if (kind == 2) {
                    String list = twoLists.get(random.nextInt(2));
                    SimulatedFleet.trace("*", "change to " + list);
                    client.updateServers(ServerList.parse(list)).join();
                  } else if (changeReplicas && random.nextInt(3) == 0) {
                    String n = String.valueOf(replicas + random.nextInt(2));
                    SimulatedFleet.trace("*", "change to replicas " + n);
                    client.updatePlacement(java.util.Map.of("shardwise.replicas", n)).join();
                  } else {
                    // With the replicas changing too, 4 lists: at most 8 placements, all remembered.
                    List<String> lists = changeReplicas ? LISTS.subList(0, 4) : LISTS;
                    String list = lists.get(random.nextInt(lists.size()));
                    SimulatedFleet.trace("*", "change to " + list);
                    client.updateServers(ServerList.parse(list)).join();
                  }
                  changes.incrementAndGet();
                  Thread.sleep(random.nextInt(200));
                } catch (InterruptedException e) {
                  return;
                } catch (RuntimeException e) {
                  // a list refused: not expected, counted by the assertion on changes
                }
              }
            },
            "changes");
    List<Node> servers = ServerList.parse("a:1,b:2,c:3,d:4,e:5,f:6,g:7,h:8");
    Thread chaos = new Thread(() -> fleet.chaos(servers, seed * 31 + 7, running), "chaos");
    changer.start();
    chaos.start();
    Thread.sleep(RUN_MILLIS);
    // On a loaded machine changes and reads come slower: run on until the floors are met (at most
    // 20 s more).
    VersionedLoad.runUntil(
        () -> changes.get() > MIN_CHANGES
            && (!changeRouter || routerChanges.get() > MIN_ROUTER_CHANGES)
            && load.counts()[1] > FailbackModelTest.minHits(replicas)
            && (!near.enabled() || FailbackModelTest.nearLoadDone(client, load)),
        20_000_000_000L);
    running.set(false);
    VersionedLoad.Outcome done = load.stop();
    changer.join(5000);
    chaos.join(5000);
    client.close();
    Outcome outcome =
        new Outcome(
            replicas,
            done.reads(),
            done.hits(),
            client.nearCacheStats().hits(),
            done.writes(),
            changes.get(),
            repairs.get(),
            routerChanges.get(),
            done.stale() - done.staleCounts(),
            done.staleCounts(),
            done.wrong(),
            done,
            done.examples());
    System.out.printf(
        "[topology model] %s seed %d, replicas %d%s%s%s%s: %d changes (%d of the router), %d reads (%d hits, %d near), %d writes (%d counter updates, %d counter reads found one), %d touches, %d repairs, %d old, %d old counts, %d wrong%s%n",
        router, seed, replicas, changeReplicas ? " changing" : "", changeRouter ? " with the router (and " + otherRouter + ")" : "",
        brokenDeletes ? " (deletes ignored)" : "", near.enabled() ? " near cache" : "",
        outcome.changes(), outcome.routerChanges(), outcome.reads(), outcome.hits(), outcome.nearHits(), outcome.writes(), done.counted(), done.countHits(),
        done.touches(), outcome.repairs(), outcome.stale(), outcome.staleCounts(), outcome.wrong(),
        near.enabled()
            ? String.format("; near cache: %d entries dropped at topology installs, %d installs dropped everything",
                client.nearCacheStats().invalidations("change"), client.nearCacheStats().dropAlls().get("change"))
            : "");
    if (SimulatedFleet.TRACING && done.stale() > 0) {
      for (String example : outcome.examples()) {
        String key = example.substring(0, example.indexOf(' '));
        System.out.println("TRACE " + key + ":" + SimulatedFleet.traceOf(key));
      }
    }
    return outcome;
  }
}
