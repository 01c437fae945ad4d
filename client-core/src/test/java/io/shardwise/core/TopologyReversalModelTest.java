package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.ServerList;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A change (5 servers to 6) reversed at a moment of its settle or warm-up, under threads that read
 * keys all written before the first change, and rewrite some of them with versioned values (no
 * deletes: every read should find a value). Over the reversal's settle and over its warm-up, at
 * least 99% of the reads hit, and none returns a value older than one confirmed written before it
 * started. The reads of a key that moves back are served by the added server while the reversal
 * settles; it holds only what was written or copied there since the first change, and a miss there
 * is read again on the server the key goes back to.
 */
class TopologyReversalModelTest {

  private static final String FIVE = "a:1,b:2,c:3,d:4,e:5";
  private static final String SIX = "a:1,b:2,c:3,d:4,e:5,f:6";
  private static final int KEYS = 20_000;
  private static final long SETTLE_MILLIS = 250;
  private static final long WARM_UP_MILLIS = 1000;
  /** Reads 75% (single gets and 8-key getMultis), writes 20%, cache-aside fills 5%; no deletes. */
  private static final VersionedLoad.Mix MIX = new VersionedLoad.Mix(60, 15, 10, 5, 0, 10, 0);

  /**
   * {@code sentAfter}: when the reversal is sent, in ms after the first change was applied. With a
   * settle of 250 ms and a warm-up of 1000 ms: while it settles (applied when its settle ends),
   * early in its warm-up (no copies yet: they start a settle after it), while it copies, and near
   * its end (its warm-up ends while the reversal settles).
   */
  @ParameterizedTest(name = "replicas {0}, sent {1} ms after the first change")
  @CsvSource({"1, 100", "1, 300", "1, 700", "1, 1150", "2, 100", "2, 700"})
  void aReversalSentWithinTheFirstChangesSettleOrWarmUpKeepsItsKeysReadable(int replicas, long sentAfter)
      throws Exception {
    SimulatedFleet fleet = new SimulatedFleet();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers(FIVE)
            .timeout(Duration.ofMillis(500))
            .topology(
                TopologyOptions.defaults()
                    .withSettle(Duration.ofMillis(SETTLE_MILLIS))
                    .withWarmUp(Duration.ofMillis(WARM_UP_MILLIS))
                    .withConnectWait(Duration.ofMillis(100)))
            .replicas(replicas)
            .codec(Codecs.utf8())
            .build();
    try {
      Map<String, String> batch = new LinkedHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        batch.put("m:" + i, "m:" + i + "|0");
        if (batch.size() == 500 || i == KEYS - 1) {
          assertThat(client.sync().setMulti(batch, Duration.ZERO).values()).hasSize(batch.size());
          batch.clear();
        }
      }
      VersionedLoad load = new VersionedLoad(client.sync(), "m:", KEYS, 4, MIX).start(sentAfter);
      client.updateServers(ServerList.parse(SIX)).join();
      long first = System.nanoTime(); // the change was applied just before join returned
      Thread.sleep(Math.max(0, sentAfter - (System.nanoTime() - first) / 1_000_000));
      TopologyChange reversal = client.updateServers(ServerList.parse(FIVE)).join();
      long[] applied = load.counts();
      Thread.sleep(SETTLE_MILLIS);
      long[] settled = load.counts();
      Thread.sleep(WARM_UP_MILLIS);
      long[] warmed = load.counts();
      VersionedLoad.Outcome outcome = load.stop();
      double duringSettle = share(applied, settled);
      double duringWarmUp = share(settled, warmed);
      System.out.printf(
          Locale.ROOT,
          "[reversal model] replicas %d, reversal sent %d ms after the change: hits %.2f%% of %d reads while it"
              + " settles, %.2f%% of %d while it warms up; %d old, %d wrong%n",
          replicas,
          sentAfter,
          100 * duringSettle,
          settled[0] - applied[0],
          100 * duringWarmUp,
          warmed[0] - settled[0],
          outcome.stale(),
          outcome.wrong());
      assertThat(reversal.movedShare()).as("share of keys the reversal moves").isPositive();
      assertThat(settled[0] - applied[0]).as("reads while the reversal settles").isGreaterThan(200);
      assertThat(warmed[0] - settled[0]).as("reads while the reversal warms up").isGreaterThan(200);
      assertThat(outcome.wrong()).as("values of other keys").isZero();
      assertThat(outcome.stale()).as("old values read; examples: %s", outcome.examples()).isZero();
      assertThat(duringSettle).as("hits while the reversal settles").isGreaterThanOrEqualTo(0.99);
      assertThat(duringWarmUp).as("hits while the reversal warms up").isGreaterThanOrEqualTo(0.99);
    } finally {
      client.close();
      fleet.close();
    }
  }

  private static double share(long[] from, long[] to) {
    long reads = to[0] - from[0];
    return reads == 0 ? 0 : (to[1] - from[1]) / (double) reads;
  }
}
