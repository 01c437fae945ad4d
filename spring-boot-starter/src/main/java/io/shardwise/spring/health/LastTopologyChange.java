package io.shardwise.spring.health;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.TopologyChange;
import java.util.Optional;

/**
 * Remembers the client's last server-list change, for {@link ShardwiseHealthIndicator}. Handed to
 * the client as one of its {@link ClientMetrics}; the starter does.
 */
public final class LastTopologyChange implements ClientMetrics {

  private volatile TopologyChange last;

  @Override
  public void topologyChanged(TopologyChange change) {
    if (!change.isEmpty()) {
      last = change;
    }
  }

  /** The last change that changed something, if any. */
  public Optional<TopologyChange> get() {
    return Optional.ofNullable(last);
  }
}
