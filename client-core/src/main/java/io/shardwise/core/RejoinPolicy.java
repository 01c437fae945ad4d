package io.shardwise.core;

import java.util.Locale;

/**
 * What happens to a node's data before it is readmitted: the failback hazard. Key K lives on
 * node A; A is ejected; K is rewritten on B; A comes back still holding the old K; a reader of K
 * now gets the old value. {@link #FLUSH} and {@link #JOURNAL} rule this out within one client
 * process; {@link #KEEP} is twemproxy's behaviour. See {@code docs/failure.md} for several
 * client processes.
 */
public enum RejoinPolicy {

  /**
   * Empty the node ({@code flush_all} / {@code FLUSHDB}) before readmitting it. Safe with several
   * client processes; costs the node's whole cache. The default.
   */
  FLUSH("flush"),

  /**
   * Remember the keys written or deleted while the node was out (up to a bound) and delete them
   * on the node before readmitting it; flush instead if the journal overflowed. Keeps the rest of
   * the node's cache warm; exact only for writes made through this client process.
   */
  JOURNAL("journal"),

  /** Readmit the node with whatever it holds. Can serve old values; an explicit opt-in. */
  KEEP("keep");

  private final String id;

  RejoinPolicy(String id) {
    this.id = id;
  }

  /** The configuration name: {@code flush}, {@code journal} or {@code keep}. */
  public String id() {
    return id;
  }

  /** The policy with this configuration name, ignoring case. */
  public static RejoinPolicy of(String name) {
    String key = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
    for (RejoinPolicy policy : values()) {
      if (policy.id.equals(key)) {
        return policy;
      }
    }
    throw new IllegalArgumentException(
        "unknown rejoin policy '" + name + "'; expected one of flush, journal, keep");
  }
}
