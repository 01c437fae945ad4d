package io.shardwise.spring.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NearCacheStats;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ShardwiseMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final ShardwiseMetrics metrics = new ShardwiseMetrics(registry);
  private final Node a = Node.of("127.0.0.1", 11211);
  private final Node b = Node.named("cache-b", "127.0.0.2", 11211, 1);

  @Test
  void requestsLatencyAndErrorsPerNode() {
    metrics.request(a, "get", 2_000_000, null);
    metrics.request(a, "get", 4_000_000, null);
    metrics.request(a, "set", 1_000_000, null);
    metrics.request(
        b,
        "get",
        1_000_000,
        new CompletionException(
            new NodeTimeoutException(b, java.time.Duration.ofMillis(250), null)));

    assertThat(
            registry
                .get("shardwise.requests")
                .tags("node", "127.0.0.1:11211", "operation", "get", "outcome", "success")
                .timer()
                .count())
        .isEqualTo(2);
    assertThat(
            registry
                .get("shardwise.requests")
                .tags("node", "127.0.0.1:11211", "operation", "get")
                .timer()
                .totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(6.0);
    assertThat(
            registry
                .get("shardwise.requests")
                .tags("node", "cache-b", "outcome", "error")
                .timer()
                .count())
        .isEqualTo(1);
    assertThat(
            registry
                .get("shardwise.errors")
                .tags("node", "cache-b", "operation", "get", "error", "NodeTimeoutException")
                .counter()
                .count())
        .isEqualTo(1);
  }

  @Test
  void hitsMissesRedirectsEjectionsAndState() {
    metrics.reads(a, 3, 1);
    metrics.reads(a, 0, 2);
    metrics.redirected(a, b, "failover");
    metrics.redirected(a, b, "spill");
    metrics.redirected(a, b, "spill");
    metrics.onEvent(
        new NodeEvent(a, NodeState.HEALTHY, NodeState.EJECTED, Instant.now(), "3 failures", null));

    assertThat(
            registry
                .get("shardwise.reads")
                .tags("node", "127.0.0.1:11211", "result", "hit")
                .counter()
                .count())
        .isEqualTo(3);
    assertThat(
            registry
                .get("shardwise.reads")
                .tags("node", "127.0.0.1:11211", "result", "miss")
                .counter()
                .count())
        .isEqualTo(3);
    assertThat(
            registry
                .get("shardwise.redirects")
                .tags("node", "127.0.0.1:11211", "to", "cache-b", "reason", "spill")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(registry.get("shardwise.redirects").tags("reason", "failover").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("shardwise.ejections").tag("node", "127.0.0.1:11211").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("shardwise.node.up").tag("node", "127.0.0.1:11211").gauge().value())
        .isZero();

    metrics.onEvent(
        new NodeEvent(a, NodeState.EJECTED, NodeState.PROBING, Instant.now(), "probing", null));
    metrics.onEvent(
        new NodeEvent(a, NodeState.PROBING, NodeState.HEALTHY, Instant.now(), "flushed", null));
    assertThat(
            registry.get("shardwise.readmissions").tag("node", "127.0.0.1:11211").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("shardwise.node.up").tag("node", "127.0.0.1:11211").gauge().value())
        .isEqualTo(1);
  }

  @Test
  void failbackMetersSayWhyAServerStaysOutOrWasKeptIn() {
    metrics.ejectionAvoided(a, "cap");
    metrics.ejectionAvoided(a, "cap");
    metrics.ejectionAvoided(b, "stall");
    metrics.rejoinFailed(a, new CompletionException(new IllegalStateException("NOPERM")));
    metrics.journalFull(a);
    metrics.oldCopySkipped(b);
    metrics.clientStalled(1_500_000_000L);

    assertThat(count("shardwise.ejections.avoided", "node", "127.0.0.1:11211", "reason", "cap"))
        .isEqualTo(2);
    assertThat(count("shardwise.ejections.avoided", "node", "cache-b", "reason", "stall"))
        .isEqualTo(1);
    assertThat(
            count(
                "shardwise.rejoin.failures",
                "node",
                "127.0.0.1:11211",
                "error",
                "IllegalStateException"))
        .isEqualTo(1);
    assertThat(count("shardwise.journal.full", "node", "127.0.0.1:11211")).isEqualTo(1);
    assertThat(count("shardwise.old.copies.skipped", "node", "cache-b")).isEqualTo(1);
    assertThat(registry.get("shardwise.client.stalls").timer().totalTime(TimeUnit.MILLISECONDS))
        .isEqualTo(1500.0);
  }

  private double count(String name, String... tags) {
    return registry.get(name).tags(tags).counter().count();
  }

  @Test
  void noMeterIsTaggedByKey() {
    metrics.request(a, "get", 1, null);
    metrics.reads(a, 1, 0);
    registry
        .getMeters()
        .forEach(
            m ->
                assertThat(m.getId().getTags())
                    .allSatisfy(
                        t ->
                            assertThat(t.getKey())
                                .isIn(
                                    "node",
                                    "operation",
                                    "outcome",
                                    "result",
                                    "error",
                                    "to",
                                    "reason")));
  }
  @Test
  void topologyChangesWarmUpAndTheServerCount() {
    AsyncCacheClient<?> client = mock(AsyncCacheClient.class);
    List<Node> servers = new java.util.ArrayList<>(List.of(a, b));
    when(client.nodes()).thenAnswer(i -> List.copyOf(servers));
    when(client.nodeStatus()).thenReturn(Map.of());
    metrics.watch(client);
    assertThat(registry.get("shardwise.servers").gauge().value()).isEqualTo(2);
    assertThat(registry.find("shardwise.node.up").tag("node", "cache-b").gauge()).isNotNull();

    Node c = Node.of("127.0.0.3", 11211);
    servers.remove(b);
    servers.add(c);
    metrics.topologyChanged(
        new TopologyChange(
            List.of(a, b), List.of(a, c), List.of(c), List.of(b), 0.33, Instant.now(),
            Duration.ofMinutes(1)));
    assertThat(registry.get("shardwise.topology.changes").counter().count()).isEqualTo(1);
    assertThat(registry.get("shardwise.servers").gauge().value()).isEqualTo(2);
    assertThat(registry.find("shardwise.node.up").tag("node", "cache-b").gauge())
        .as("a removed server's gauges go")
        .isNull();
    assertThat(registry.find("shardwise.node.journaled").tag("node", "127.0.0.3:11211").gauge())
        .as("an added server's come")
        .isNotNull();

    metrics.warmUpRead(a, c, true);
    metrics.warmUpRead(a, c, true);
    metrics.warmUpRead(a, c, false);
    metrics.warmUpCopied(c);
    metrics.warmUpCopied(c);
    assertThat(
            registry
                .get("shardwise.warmup.reads")
                .tags("node", "127.0.0.3:11211", "result", "hit")
                .counter()
                .count())
        .isEqualTo(2);
    assertThat(
            registry
                .get("shardwise.warmup.reads")
                .tags("node", "127.0.0.3:11211", "result", "miss")
                .counter()
                .count())
        .isEqualTo(1);
    assertThat(
            registry.get("shardwise.warmup.copies").tag("node", "127.0.0.3:11211").counter().count())
        .isEqualTo(2);

    metrics.request(b, "get", 1_000, null); // finished while b drained
    assertThat(registry.find("shardwise.node.up").tag("node", "cache-b").gauge()).isNull();
  }

  @Test
  void theNearCachesCountsAndSizeAreReadFromTheClientAtEachScrape() {
    AsyncCacheClient<?> client = mock(AsyncCacheClient.class);
    when(client.nodes()).thenReturn(List.of(a));
    when(client.nodeStatus())
        .thenReturn(Map.of(a, new NodeStatus(a, NodeState.HEALTHY, Instant.now(), "", 0).withNearCache(NearCacheTracking.TRACKED)));
    Map<String, Long> invalidations = Map.of("write", 4L, "server", 3L, "node", 2L, "change", 0L, "tracking", 1L, "flush", 0L);
    when(client.nearCacheStats())
        .thenReturn(new NearCacheStats(true, 90, 10, 5, 6, 9, invalidations, Map.of("node", 1L, "tracking", 1L), 7, 7_000))
        .thenReturn(new NearCacheStats(true, 90, 10, 5, 6, 9, invalidations, Map.of("node", 1L, "tracking", 1L), 7, 7_000))
        .thenReturn(new NearCacheStats(true, 190, 10, 5, 6, 9, invalidations, Map.of("node", 1L, "tracking", 1L), 8, 8_000));
    metrics.watch(client);
    assertThat(registry.get("shardwise.near.cache.gets").tag("result", "hit").functionCounter().count()).isEqualTo(190);
    assertThat(registry.get("shardwise.near.cache.gets").tag("result", "miss").functionCounter().count()).isEqualTo(10);
    assertThat(registry.get("shardwise.near.cache.evictions").tag("cause", "size").functionCounter().count()).isEqualTo(5);
    assertThat(registry.get("shardwise.near.cache.evictions").tag("cause", "expired").functionCounter().count()).isEqualTo(6);
    assertThat(registry.get("shardwise.near.cache.refreshes").functionCounter().count()).isEqualTo(9);
    assertThat(registry.get("shardwise.near.cache.invalidations").tag("cause", "write").functionCounter().count()).isEqualTo(4);
    assertThat(registry.get("shardwise.near.cache.invalidations").tag("cause", "server").functionCounter().count()).isEqualTo(3);
    assertThat(registry.get("shardwise.near.cache.invalidations").tag("cause", "tracking").functionCounter().count()).isEqualTo(1);
    assertThat(registry.get("shardwise.near.cache.drops").tag("cause", "node").functionCounter().count()).isEqualTo(1);
    assertThat(registry.find("shardwise.near.cache.drops").tag("cause", "write").functionCounter()).as("a write drops one key").isNull();
    assertThat(registry.get("shardwise.near.cache.entries").gauge().value()).isEqualTo(8);
    assertThat(registry.get("shardwise.near.cache.size").gauge().value()).isEqualTo(8_000);
    assertThat(registry.get("shardwise.node.near.cache.tracked").tag("node", "127.0.0.1:11211").gauge().value()).isEqualTo(1);
  }

  @Test
  void noNearCacheMeterWithoutANearCache() {
    AsyncCacheClient<?> client = mock(AsyncCacheClient.class);
    when(client.nodes()).thenReturn(List.of(a));
    when(client.nodeStatus()).thenReturn(Map.of());
    when(client.nearCacheStats()).thenReturn(NearCacheStats.OFF);
    metrics.watch(client);
    assertThat(registry.getMeters()).noneMatch(m -> m.getId().getName().contains("near.cache"));
  }
}
