package io.shardwise.client;

import io.shardwise.routing.Node;

/**
 * Receives one call per request sent to a node, and the hits and misses of reads: what a metrics
 * binder (Micrometer, ...) needs for requests, errors, latency, hits and misses per node. Node
 * state changes arrive through {@link NodeEventListener}. Called on I/O threads: implementations
 * must be fast and must not block or throw.
 */
public interface ClientMetrics {

  /** Does nothing. */
  ClientMetrics NONE = new ClientMetrics() {};

  /**
   * One request to {@code node} finished.
   *
   * @param operation the operation: {@code get}, {@code getMulti}, {@code set}, {@code setMulti},
   *     {@code add}, {@code delete}, {@code deleteMulti}, {@code touch}, {@code incr}, {@code ping};
   *     with bounded loads also {@code getFallback} / {@code getMultiFallback} (a spilled read
   *     that found no copy reads the primary), {@code addCopy} and {@code deleteCopy} (spilled
   *     copies written and removed)
   * @param latencyNanos from sending to the reply (or the failure)
   * @param failure null on success; else the failure, as the caller sees it
   */
  default void request(Node node, String operation, long latencyNanos, Throwable failure) {}

  /** Reads on {@code node} found {@code hits} keys and missed {@code misses}. */
  default void reads(Node node, int hits, int misses) {}

  /**
   * A request for a key whose primary is {@code primary} went to {@code to} instead, because the
   * primary was ejected ({@code reason} "failover") or over its load cap ({@code reason} "spill").
   */
  default void redirected(Node primary, Node to, String reason) {}

  /**
   * A read of a key stored on several replicas was sent to {@code node}, its replica of rank {@code
   * rank} (0 for the primary, the first server of the key's preference list).
   */
  default void replicaRead(Node node, int rank) {}

  /**
   * A read of a key stored on several replicas went on from {@code from} to its next replica
   * {@code to}, because {@code from} had no value ({@code reason} "miss") or failed ("error").
   */
  default void replicaFailover(Node from, Node to, String reason) {}

  /**
   * A read for a key whose node is out failed over to {@code node}, which may hold an old copy of
   * it (one this client wrote there during an earlier outage, not yet deleted): answered as a miss
   * without asking the server.
   */
  default void oldCopySkipped(Node node) {}

  /**
   * A write of a key whose node {@code node} is out was refused: the node's journal is full (see
   * {@code journal-capacity}), and a write it cannot record could leave an older value to be read
   * when the node returns.
   */
  default void journalFull(Node node) {}

  /**
   * {@code node} keeps failing but was not ejected: {@code reason} is {@code "cap"} (timeouts may
   * not keep more of the fleet out) or {@code "stall"} (the failure was a timeout that this
   * process's own stall explains).
   */
  default void ejectionAvoided(Node node, String reason) {}

  /**
   * {@code node} answered its probe but the rejoin step failed (the server refused or did not
   * answer a delete or flush): it stays out and is probed again.
   */
  default void rejoinFailed(Node node, Throwable cause) {}

  /**
   * This process stopped running for {@code nanos} (a garbage-collection pause, a starved CPU):
   * timeouts of requests that saw it are not held against their servers.
   */
  default void clientStalled(long nanos) {}

  /** The server list changed at runtime (see {@link AsyncCacheClient#updateServers}). */
  default void topologyChanged(TopologyChange change) {}

  /**
   * During a warm-up after a topology change, a read that missed on {@code newOwner} was read
   * again from the key's previous node {@code previousOwner}; {@code hit} says whether it had it.
   */
  default void warmUpRead(Node previousOwner, Node newOwner, boolean hit) {}

  /** During a warm-up, a value read from a key's previous node was copied to {@code newOwner}. */
  default void warmUpCopied(Node newOwner) {}

  /**
   * A replica of a key stored on several replicas, {@code node}, got back the copy it had lost,
   * from another replica. {@code cause}: {@code "read"} (a read missed there and hit on another
   * replica), {@code "handoff"} (the node missed the key's writes while it was out, or a write of it
   * failed there), {@code "refill"} (a read missed there and hit on another replica while the node
   * is refilled after it came back empty; see {@link #cameBackEmpty}).
   */
  default void repaired(Node node, String cause) {}

  /**
   * With replicas and repair on, {@code node} was seen to have restarted or been flushed since the
   * previous check (a new run id in its {@code stats} or {@code INFO}): it came back empty, or
   * nearly, and lacks about {@code missing} keys (what it held at the previous check less what it
   * holds now; all of the server's keys). Its refill by read repair starts.
   */
  default void cameBackEmpty(Node node, long missing) {}

  /**
   * A repair of a copy on {@code node} for {@code cause} (as {@link #repaired}) was not made: more
   * repairs were due than the client's repair rate allows.
   */
  default void repairDropped(Node node, String cause) {}
}
