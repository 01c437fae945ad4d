package io.shardwise.spring.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.shardwise.client.AsyncCacheClient;
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

class ShardwiseHealthIndicatorTest {

  private final Node a = Node.of("10.0.0.1", 11211);
  private final Node b = Node.named("cache-b", "10.0.0.2", 11211, 2);
  private final Node c = Node.of("10.0.0.3", 11211);

  @Test
  void showsTheServerListInForceAndTheLastTopologyChange() {
    AsyncCacheClient<?> client = mock(AsyncCacheClient.class);
    when(client.nodes()).thenReturn(List.of(a, b, c));
    Map<Node, CompletableFuture<Duration>> pings = new LinkedHashMap<>();
    List.of(a, b, c).forEach(n -> pings.put(n, CompletableFuture.completedFuture(Duration.ZERO)));
    when(client.pingAll()).thenReturn(pings);
    when(client.nodeStatus()).thenReturn(Map.of());
    LastTopologyChange last = new LastTopologyChange();
    ShardwiseHealthIndicator indicator =
        new ShardwiseHealthIndicator(client, "memcached", Duration.ofSeconds(1), last);

    Health before = indicator.health();
    assertThat(before.getDetails())
        .containsEntry("serverList", "10.0.0.1:11211,cache-b=10.0.0.2:11211:2,10.0.0.3:11211")
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
                "before", "10.0.0.1:11211,cache-b=10.0.0.2:11211:2",
                "added", "10.0.0.3:11211",
                "removed", "",
                "warmUpUntil", "2026-12-01T18:02:00Z"));
  }
}
