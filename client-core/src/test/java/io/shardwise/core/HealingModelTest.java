package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Repairs of lost replica copies under concurrency: 8 threads read, write, delete and fill
 * versioned values of keys on 2 or 3 replicas, while servers that answer after random delays lose
 * all their data (as a memcached restarted between two requests) every 50 to 150 ms, so that reads
 * keep missing on one replica, hitting on another and copying the value back, while writes and
 * deletes of the same keys race those copies. No read may return a value older than one confirmed
 * written (or deleted) before the read started. The same run without the copy protocol's check of
 * the key's generation reads old values (tried by hand: docs/replicas.md).
 */
class HealingModelTest {

  private static final int KEYS = 500;
  private static final int THREADS = 8;
  private static final long RUN_MILLIS = 3000;
  /** Copies a run must repair; a loaded machine runs on until it has (at most 20 s more). */
  private static final int MIN_REPAIRS = 100;
  /** Many deletes: a repair copy racing a delete is what the protocol must undo. */
  static final VersionedLoad.Mix MIX = new VersionedLoad.Mix(45, 5, 15, 10, 15, 0, 10);

  /** Replicas 2 and 3, seeds 1 and 2; {@code -Dhealing.model.seeds=N} runs seeds 1..N. */
  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> runs() {
    return java.util.stream.Stream.of(2, 3)
        .flatMap(
            replicas ->
                java.util.stream.LongStream.rangeClosed(1, Long.getLong("healing.model.seeds", 2))
                    .mapToObj(seed -> org.junit.jupiter.params.provider.Arguments.of(replicas, seed)));
  }

  @ParameterizedTest(name = "replicas {0}, seed {1}")
  @MethodSource("runs")
  void repairCopiesNeverBringBackAnOlderValue(int replicas, long seed) throws Exception {
    SimulatedFleet fleet = new SimulatedFleet();
    AtomicLong repaired = new AtomicLong();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(200))
            .failover(SimulatedFleet.fastFailover().build())
            .codec(Codecs.utf8())
            .replicas(replicas)
            .replicaRepair(FailbackModelTest.REPAIR.withRate(1_000_000))
            .metrics(
                new ClientMetrics() {
                  @Override
                  public void repaired(Node node, String cause) {
                    repaired.incrementAndGet();
                  }
                })
            .build();
    List<Node> nodes = client.nodes();
    for (Node n : nodes) {
      fleet.node(n).jitterMicros = 300;
    }
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong wipes = new AtomicLong();
    VersionedLoad load = new VersionedLoad(client.sync(), "h:", KEYS, THREADS, MIX).start(seed);
    Thread wiper =
        new Thread(
            () -> {
              SplittableRandom random = new SplittableRandom(seed * 131);
              try {
                while (running.get()) {
                  Thread.sleep(50 + random.nextInt(100));
                  fleet.node(nodes.get(random.nextInt(nodes.size()))).data.clear();
                  wipes.incrementAndGet();
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "wiper");
    wiper.start();
    Thread.sleep(RUN_MILLIS);
    VersionedLoad.runUntil(() -> repaired.get() > MIN_REPAIRS, 20_000_000_000L);
    running.set(false);
    VersionedLoad.Outcome done = load.stop();
    wiper.join(5000);
    client.close();
    fleet.close();
    System.out.printf(
        "[healing model] replicas %d seed %d: %d reads (%d hits), %d writes, %d wipes, %d repairs, %d old, %d wrong%n",
        replicas, seed, done.reads(), done.hits(), done.writes(), wipes.get(), repaired.get(), done.stale(), done.wrong());
    assertThat(repaired.get()).as("copies repaired").isGreaterThan(MIN_REPAIRS);
    assertThat(done.wrong()).as("values of other keys").isZero();
    assertThat(done.stale()).as("old values read; examples: %s", done.examples()).isZero();
  }
}
