package io.shardwise.core;

import java.util.Locale;

/** What a request does when the node its key lives on is ejected. */
public enum FailureMode {

  /**
   * The request goes to the next available node of the key's preference order, for reads and
   * writes alike (what twemproxy and spymemcached do). The default.
   */
  REDISTRIBUTE("redistribute"),

  /** The request fails at once with a {@code NodeUnavailableException} naming the node. */
  FAIL_FAST("fail-fast"),

  /**
   * The request stays on its node: a node failure is retried on the same node, a bounded number of
   * times; while the node is ejected requests fail at once.
   */
  RETRY("retry");

  private final String id;

  FailureMode(String id) {
    this.id = id;
  }

  /** The configuration name: {@code redistribute}, {@code fail-fast} or {@code retry}. */
  public String id() {
    return id;
  }

  /** The mode with this configuration name, ignoring case. */
  public static FailureMode of(String name) {
    String key = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
    for (FailureMode mode : values()) {
      if (mode.id.equals(key)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "unknown failure mode '" + name + "'; expected one of redistribute, fail-fast, retry");
  }
}
