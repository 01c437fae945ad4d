package io.shardwise.client;

import io.shardwise.routing.Node;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The client's server list and where its last change stands: what a health check shows.
 *
 * @param servers the server list in force
 * @param lastChange the last change of the list, or null if it never changed
 * @param phase where the keys moved by the last change stand
 * @param phaseEnds when {@code phase} ends, or null when {@link Phase#STABLE}
 * @param warmUpReads reads of moved keys that missed on their new server and were read on their
 *     previous one, since the client started
 * @param warmUpHits those of {@code warmUpReads} that the previous server had
 * @param warmUpCopies values copied to their new server
 */
public record TopologyStatus(
    List<Node> servers,
    TopologyChange lastChange,
    Phase phase,
    Instant phaseEnds,
    long warmUpReads,
    long warmUpHits,
    long warmUpCopies) {

  /** Where the keys moved by the last change stand. */
  public enum Phase {
    /** No key is moving: every key is read and written on the server the list names. */
    STABLE,
    /** Moved keys are still read and written on their previous server. */
    SETTLING,
    /** Moved keys are read on their new server, and a miss there on their previous one. */
    WARMING
  }

  public TopologyStatus {
    servers = List.copyOf(servers);
    Objects.requireNonNull(phase, "phase");
  }
}
