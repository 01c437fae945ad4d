package io.shardwise.core;

import java.util.Locale;

/** Which replica a read of a key stored on several servers goes to first (see {@code shardwise.replicas}). */
public enum ReplicaReads {

  /**
   * Of two available replicas drawn at random, the one with fewer requests under way (the power of
   * two choices): reads of a key, hot ones too, spread over its replicas. The default.
   */
  P2C("p2c"),

  /**
   * The first available replica in the key's preference order, the primary while it is up: every
   * read of a key goes to one server, as with one copy, and the others serve only when it fails or
   * misses.
   */
  PRIMARY("primary");

  private final String id;

  ReplicaReads(String id) {
    this.id = id;
  }

  /** The configuration name: {@code p2c} or {@code primary}. */
  public String id() {
    return id;
  }

  /** The policy with this configuration name, ignoring case. */
  public static ReplicaReads of(String name) {
    String key = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
    for (ReplicaReads policy : values()) {
      if (policy.id.equals(key)) {
        return policy;
      }
    }
    throw new IllegalArgumentException("unknown replica read policy '" + name + "'; expected one of p2c, primary");
  }
}
