package io.shardwise.it.failure;

/**
 * When each version of each key was confirmed written, shared by several clients, so that a read
 * by any of them can be measured for staleness: how long before the read started a newer version
 * than the one it returned had been confirmed. One writer per key (versions of a key are confirmed
 * in order); the last {@link #KEPT} confirmations of each key are kept.
 */
final class VersionHistory {

  static final int KEPT = 256;

  private final long[][] versions;
  private final long[][] times;
  private final int[] next;

  VersionHistory(int keys) {
    versions = new long[keys][KEPT];
    times = new long[keys][KEPT];
    next = new int[keys];
  }

  /** Version {@code version} of key {@code key} was confirmed written (or deleted) at {@code atNanos}. */
  void confirmed(int key, long version, long atNanos) {
    synchronized (versions[key]) {
      int slot = next[key]++ % KEPT;
      versions[key][slot] = version;
      times[key][slot] = atNanos;
    }
  }

  /**
   * How stale a read of key {@code key} that started at {@code readStartNanos} and returned {@code
   * version} is: the time from the confirmation of the first newer version (if it came before the
   * read started) to the read's start; 0 if the read returned the latest version it could know of.
   */
  long stalenessNanos(int key, long version, long readStartNanos) {
    synchronized (versions[key]) {
      long firstNewer = Long.MAX_VALUE;
      int count = Math.min(next[key], KEPT);
      for (int i = 0; i < count; i++) {
        long v = versions[key][i];
        long t = times[key][i];
        if (v > version && t - readStartNanos <= 0 && (firstNewer == Long.MAX_VALUE || t - firstNewer < 0)) {
          firstNewer = t;
        }
      }
      return firstNewer == Long.MAX_VALUE ? 0 : readStartNanos - firstNewer;
    }
  }
}
