package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.client.TopologyStatus.Phase;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A write of a key that moves deletes it where reads may look ({@code Moves}, the clears); when
 * that delete is lost, the copy there is marked old. Left readable, a counter's copy was worse than
 * an old value: an incr there adds to it once that server is a replica of the key, so the count it
 * holds stays behind the updates counted on the others, and reads it (found by {@link
 * TopologyModelTest}, docs/topology.md).
 */
class MovedCounterTest {

  /** Long enough that the incr meant for the settle phase falls in it on a loaded machine (checked). */
  private static final Duration SETTLE = Duration.ofSeconds(5);
  /** Reads of the count: each takes either replica, so all 30 miss one with a chance of 2^-30 at most. */
  private static final int READS = 30;

  @Test
  void aCountThatAWriteOfTheMovedCounterCouldNotDeleteIsNeitherReadNorCountedOn() throws Exception {
    SimulatedFleet fleet = new SimulatedFleet();
    AsyncCacheClient<String> async =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers("a:1,b:2,c:3")
            .timeout(Duration.ofSeconds(2))
            .topology(
                TopologyOptions.defaults()
                    .withSettle(SETTLE)
                    .withWarmUp(Duration.ofSeconds(30))
                    .withConnectWait(Duration.ofMillis(100)))
            .codec(Codecs.utf8())
            .build();
    try {
      CacheClient<String> client = async.sync();
      String key = "counter";
      assertThat(client.incr(key, 1, 100, Duration.ZERO)).isEqualTo(100);
      // The other servers hold an older count of it, as a replica the key left does; the one that
      // becomes its second replica loses the delete of it.
      List<SimulatedFleet.SimNode> others = new ArrayList<>();
      for (Node n : ServerList.parse("a:1,b:2,c:3")) {
        SimulatedFleet.SimNode server = fleet.node(n);
        if (!server.data.containsKey(key)) {
          server.data.put(key, CachedValue.of("90".getBytes(StandardCharsets.UTF_8), 0));
          server.losesDeletes = true;
          others.add(server);
        }
      }
      async.updatePlacement(Map.of("shardwise.replicas", "2")).join();

      // Settling: counted on the key's one server, and deleted (lost) on the replica that arrived.
      assertThat(client.incr(key, 5, 100, Duration.ZERO)).as("counted while settling").isEqualTo(105);
      assertThat(async.topologyStatus().phase()).as("the change still settling after that incr").isEqualTo(Phase.SETTLING);
      others.forEach(s -> s.losesDeletes = false);
      long deadline = System.nanoTime() + 4 * SETTLE.toNanos();
      while (async.topologyStatus().phase() == Phase.SETTLING) {
        assertThat(System.nanoTime()).as("the settle phase over").isLessThan(deadline);
        Thread.sleep(20);
      }
      assertThat(async.topologyStatus().phase()).as("warming").isEqualTo(Phase.WARMING);

      // Warming: counted on both replicas. A read picks one of the two (the power of two choices):
      // enough reads that each replica is read, but a copy left readable is, almost surely.
      assertThat(client.incr(key, 1, 100, Duration.ZERO)).as("counted while warming").isEqualTo(106);
      for (int i = 0; i < READS; i++) {
        assertThat(client.get(key)).as("the count read, read %d", i).isEqualTo("106");
      }
    } finally {
      async.close();
      fleet.close();
    }
  }
}
