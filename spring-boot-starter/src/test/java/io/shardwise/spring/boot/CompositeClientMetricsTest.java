package io.shardwise.spring.boot;

import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class CompositeClientMetricsTest {

  @Test
  void topologyAndWarmUpCallbacksReachEveryMetrics() {
    ClientMetrics one = mock(ClientMetrics.class);
    ClientMetrics two = mock(ClientMetrics.class);
    CompositeClientMetrics all = new CompositeClientMetrics(List.of(one, two));
    Node a = Node.of("127.0.0.1", 11211);
    Node b = Node.of("127.0.0.1", 11212);
    TopologyChange change =
        new TopologyChange(
            List.of(a), List.of(a, b), List.of(b), List.of(), 0.5, Instant.now(), Duration.ZERO);
    all.topologyChanged(change);
    all.warmUpRead(a, b, true);
    all.warmUpCopied(b);
    for (ClientMetrics m : List.of(one, two)) {
      verify(m).topologyChanged(change);
      verify(m).warmUpRead(a, b, true);
      verify(m).warmUpCopied(b);
    }
  }
}
