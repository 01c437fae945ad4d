package io.shardwise.core;

import java.util.Locale;

/**
 * What happens to a node's data before it is readmitted: the failback hazard. Key K lives on
 * node A; A is ejected; K is rewritten on B; A comes back still holding the old K; a reader of K
 * now gets the old value. {@link #JOURNAL} (the default) and {@link #FLUSH} rule this out within
 * one client process; {@link #KEEP} is twemproxy's behaviour. See {@code docs/failure.md} for the
 * guarantees with several client processes.
 */
public enum RejoinPolicy {

  /**
   * Remember the keys written or deleted through this client while the node was out (up to the
   * journal capacity) and delete them on the node before readmitting it, and their copies on the
   * nodes that took them once it is back. Nothing else on the node is touched: data that other
   * clients or applications wrote stays. The default.
   */
  JOURNAL("journal"),

  /**
   * Empty the node ({@code flush_all} / {@code FLUSHDB}) before readmitting it, if anything was
   * written elsewhere while it was out. Destroys every key on the server, including those other
   * clients and applications wrote: only for a fleet this one process alone writes to.
   */
  FLUSH("flush"),

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
        "unknown rejoin policy '" + name + "'; expected one of journal, flush, keep");
  }
}
