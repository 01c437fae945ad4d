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
}
