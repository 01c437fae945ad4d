package io.shardwise.client;

import io.shardwise.routing.Node;
import java.util.List;
import java.util.Map;

/**
 * What bounded-load routing sees and did: per node, the requests this client sent it in the
 * current window, its cap at the current total, and the reads spilled away from it and to it;
 * and the keys the frequency sketch currently counts as hot. All zeros when bounded loads are off.
 */
public final class LoadReport {

  /** One node's line. */
  public record NodeLoad(Node node, long load, long cap, long spilledFrom, long spilledTo) {}

  private final boolean enabled;
  private final long total;
  private final List<NodeLoad> nodes;
  private final Map<String, Integer> hotKeys;

  public LoadReport(boolean enabled, long total, List<NodeLoad> nodes, Map<String, Integer> hotKeys) {
    this.enabled = enabled;
    this.total = total;
    this.nodes = List.copyOf(nodes);
    this.hotKeys = Map.copyOf(hotKeys);
  }

  public boolean enabled() {
    return enabled;
  }

  /** Requests sent to all nodes in the current window. */
  public long total() {
    return total;
  }

  public List<NodeLoad> nodes() {
    return nodes;
  }

  /** Hot keys with their estimated recent read count (at most a few dozen). */
  public Map<String, Integer> hotKeys() {
    return hotKeys;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(enabled ? "bounded loads, window total " + total : "bounded loads off");
    for (NodeLoad n : nodes) {
      sb.append("\n  ").append(n.node().name()).append(": load ").append(n.load()).append(" / cap ")
          .append(n.cap()).append(", spilled from ").append(n.spilledFrom()).append(", to ").append(n.spilledTo());
    }
    if (!hotKeys.isEmpty()) {
      sb.append("\n  hot keys: ").append(hotKeys);
    }
    return sb.toString();
  }
}
