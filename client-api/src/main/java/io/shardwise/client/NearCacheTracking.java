package io.shardwise.client;

/**
 * Whether a node's server tells the client's near cache when a value read from it changes: what
 * bounds how long an entry read from that node may be served after another client's write.
 */
public enum NearCacheTracking {
  /** The client has no near cache. */
  OFF("off"),
  /**
   * The server tracks the reads of the connection in use (Redis {@code CLIENT TRACKING} on, in
   * RESP3): another client's write of a key read there drops its entry when the notice arrives.
   */
  TRACKED("tracked"),
  /**
   * The server can track reads, but no connection to it does now (down, or reconnecting): the
   * entries read from it were dropped when the connection was lost, and reads are not kept until
   * one is back.
   */
  NOT_CONNECTED("not tracked (no connection)"),
  /**
   * The server cannot tell the client of changes (memcached): an entry is served at most {@code
   * shardwise.near-cache.max-staleness} after it was read.
   */
  BOUNDED_STALENESS("not tracked (bounded staleness)");

  private final String words;

  NearCacheTracking(String words) {
    this.words = words;
  }

  /** In words, as the health details show it: {@code tracked}, {@code not tracked (bounded staleness)}. */
  @Override
  public String toString() {
    return words;
  }
}
