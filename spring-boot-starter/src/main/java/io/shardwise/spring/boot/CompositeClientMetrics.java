package io.shardwise.spring.boot;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import java.util.List;

/** Several {@link ClientMetrics} beans as one. */
final class CompositeClientMetrics implements ClientMetrics {

  private final ClientMetrics[] all;

  CompositeClientMetrics(List<ClientMetrics> metrics) {
    this.all = metrics.toArray(new ClientMetrics[0]);
  }

  @Override
  public void request(Node node, String operation, long latencyNanos, Throwable failure) {
    for (ClientMetrics m : all) {
      m.request(node, operation, latencyNanos, failure);
    }
  }

  @Override
  public void reads(Node node, int hits, int misses) {
    for (ClientMetrics m : all) {
      m.reads(node, hits, misses);
    }
  }

  @Override
  public void redirected(Node primary, Node to, String reason) {
    for (ClientMetrics m : all) {
      m.redirected(primary, to, reason);
    }
  }

  @Override
  public void replicaRead(Node node, int rank) {
    for (ClientMetrics m : all) {
      m.replicaRead(node, rank);
    }
  }

  @Override
  public void replicaFailover(Node from, Node to, String reason) {
    for (ClientMetrics m : all) {
      m.replicaFailover(from, to, reason);
    }
  }

  @Override
  public void oldCopySkipped(Node node) {
    for (ClientMetrics m : all) {
      m.oldCopySkipped(node);
    }
  }

  @Override
  public void journalFull(Node node) {
    for (ClientMetrics m : all) {
      m.journalFull(node);
    }
  }

  @Override
  public void ejectionAvoided(Node node, String reason) {
    for (ClientMetrics m : all) {
      m.ejectionAvoided(node, reason);
    }
  }

  @Override
  public void rejoinFailed(Node node, Throwable cause) {
    for (ClientMetrics m : all) {
      m.rejoinFailed(node, cause);
    }
  }

  @Override
  public void clientStalled(long nanos) {
    for (ClientMetrics m : all) {
      m.clientStalled(nanos);
    }
  }

  @Override
  public void topologyChanged(TopologyChange change) {
    for (ClientMetrics m : all) {
      m.topologyChanged(change);
    }
  }

  @Override
  public void warmUpRead(Node previousOwner, Node newOwner, boolean hit) {
    for (ClientMetrics m : all) {
      m.warmUpRead(previousOwner, newOwner, hit);
    }
  }

  @Override
  public void warmUpCopied(Node newOwner) {
    for (ClientMetrics m : all) {
      m.warmUpCopied(newOwner);
    }
  }

  @Override
  public void repaired(Node node, String cause) {
    for (ClientMetrics m : all) {
      m.repaired(node, cause);
    }
  }

  @Override
  public void repairDropped(Node node, String cause) {
    for (ClientMetrics m : all) {
      m.repairDropped(node, cause);
    }
  }
}
