package io.shardwise.spring.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** What the indicator shows and sends, over a mock client. */
class ShardwiseHealthIndicatorTest {

  private final Node a = Node.of("127.0.0.1", 11211);
  private final Node b = Node.named("cache-b", "127.0.0.1", 11212, 2);
  private final Node c = Node.of("127.0.0.1", 11213);

  @Test
  void pingsTheServersTheClientRoutesToAndShowsEachPingWithTheClientsState() {
    AsyncCacheClient<?> client = mock(AsyncCacheClient.class);
    when(client.nodes()).thenReturn(List.of(a, b, c));
    Instant since = Instant.parse("2026-12-01T18:00:00Z");
    NodeStatus ejected =
        new NodeStatus(b, NodeState.EJECTED, since, "5 consecutive failures: refused", 3);
    Map<Node, NodeStatus> before = new LinkedHashMap<>();
    before.put(a, new NodeStatus(a, NodeState.HEALTHY, since, "", 0).withMissingCopies(812).withNearCache(NearCacheTracking.TRACKED));
    before.put(b, ejected);
    before.put(c, new NodeStatus(c, NodeState.HEALTHY, since, "", 0).withNearCache(NearCacheTracking.BOUNDED_STALENESS));
    when(client.nodeStatus()).thenReturn(before);
    when(client.ping(a)).thenReturn(CompletableFuture.completedFuture(Duration.ofMillis(1)));
    when(client.ping(c))
        .thenReturn(CompletableFuture.failedFuture(new IllegalStateException("refused")));
    ShardwiseHealthIndicator indicator =
        new ShardwiseHealthIndicator(client, "memcached", Duration.ofSeconds(1));

    Health health = indicator.health();
    verify(client, never()).ping(b);
    verify(client, never()).pingAll();
    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsEntry("up", 1).containsEntry("servers", 3);
    assertThat(node(health, a))
        .containsEntry("status", "UP")
        .containsEntry("state", "HEALTHY")
        .containsEntry("ping", "ok")
        .containsEntry("latency", "1.00ms")
        .containsEntry("missingCopies", 812L)
        .containsEntry("nearCache", "tracked")
        .doesNotContainKeys("reason", "error", "copiesToRepair");
    assertThat(node(health, b))
        .containsEntry("status", "DOWN")
        .containsEntry("state", "EJECTED")
        .containsEntry("ping", ShardwiseHealthCheck.NOT_PINGED)
        .containsEntry("reason", "5 consecutive failures: refused")
        .containsEntry("journaledKeys", 3)
        .doesNotContainKeys("latency", "error", "nearCache");
    assertThat(node(health, c))
        .as("DOWN, yet HEALTHY: the reason says why")
        .containsEntry("status", "DOWN")
        .containsEntry("state", "HEALTHY")
        .containsEntry("ping", "failed")
        .containsEntry("reason", ShardwiseHealthCheck.STILL_ROUTED)
        .containsEntry("error", "refused")
        .containsEntry("nearCache", "not tracked (bounded staleness)");

    // The state shown is the one after the pings: this ping ejected c.
    Map<Node, NodeStatus> after = new LinkedHashMap<>(before);
    after.put(c, new NodeStatus(c, NodeState.EJECTED, since, "5 consecutive failures: x", 0));
    when(client.nodeStatus()).thenReturn(before).thenReturn(after);
    assertThat(node(indicator.health(), c))
        .containsEntry("state", "EJECTED")
        .containsEntry("ping", "failed")
        .containsEntry("reason", "5 consecutive failures: x");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> node(Health health, Node node) {
    return ((Map<String, Map<String, Object>>) health.getDetails().get("nodes")).get(node.name());
  }

  @Test
  void showsTheServerListInForceAndTheLastTopologyChange() {
    AsyncCacheClient<?> client = mock(AsyncCacheClient.class);
    when(client.nodes()).thenReturn(List.of(a, b, c));
    when(client.ping(any())).thenReturn(CompletableFuture.completedFuture(Duration.ZERO));
    when(client.nodeStatus()).thenReturn(Map.of());
    LastTopologyChange last = new LastTopologyChange();
    ShardwiseHealthIndicator indicator =
        new ShardwiseHealthIndicator(client, "memcached", Duration.ofSeconds(1), last);

    Health before = indicator.health();
    assertThat(before.getDetails())
        .containsEntry("serverList", "127.0.0.1:11211,cache-b=127.0.0.1:11212:2,127.0.0.1:11213")
        .doesNotContainKey("lastTopologyChange");

    Instant at = Instant.parse("2026-12-01T18:00:00Z");
    last.topologyChanged(
        new TopologyChange(List.of(a, b), List.of(a, b), List.of(), List.of(), 0, at,
            Duration.ZERO));
    assertThat(indicator.health().getDetails()).as("no change").doesNotContainKey(
        "lastTopologyChange");
    last.topologyChanged(
        new TopologyChange(
            List.of(a, b), List.of(a, b, c), List.of(c), List.of(), 0.331, at,
            Duration.ofMinutes(2)));
    assertThat(indicator.health().getDetails().get("lastTopologyChange"))
        .isEqualTo(
            Map.of(
                "at", "2026-12-01T18:00:00Z",
                "summary", "2 -> 3 nodes (+1 -0), 33.1% of keys move",
                "before", "127.0.0.1:11211,cache-b=127.0.0.1:11212:2",
                "added", "127.0.0.1:11213",
                "removed", "",
                "warmUpUntil", "2026-12-01T18:02:00Z"));
  }
}
