package io.shardwise.core.internal.near;

/** Why entries are dropped; the name in lower case is the meters' {@code cause} tag. */
public enum DropCause {
  /** This client wrote the key. */
  WRITE,
  /** The server's notice that the key changed. */
  SERVER,
  /** A node was ejected, readmitted or retired. */
  NODE,
  /** A server-list or placement change came in force. */
  CHANGE,
  /**
   * A connection was lost or replaced: with tracking, the notices sent meanwhile are lost; without
   * (memcached), the server may have restarted empty.
   */
  TRACKING,
  /** A server flushed its data. */
  FLUSH;

  final String tag = name().toLowerCase(java.util.Locale.ROOT);
}
