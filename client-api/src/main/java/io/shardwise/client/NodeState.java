package io.shardwise.client;

/** Where a node stands in the client's view of the fleet. */
public enum NodeState {
  /** Requests for its keys go to it. */
  HEALTHY,
  /** Failed too often in a row: taken out of selection, waiting for its first probe. */
  EJECTED,
  /** Taken out of selection and being probed; readmitted once a probe and its rejoin step succeed. */
  PROBING
}
