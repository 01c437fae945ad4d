package io.shardwise.core;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys written or deleted through this client while a node was ejected, each with the node
 * the write went to instead, up to a bound. Past the bound the journal stops recording and says
 * it overflowed: the rejoin then has to flush.
 */
final class Journal {

  private final int capacity;
  private final ConcurrentHashMap<String, Integer> entries = new ConcurrentHashMap<>();
  private volatile boolean overflowed;

  Journal(int capacity) {
    this.capacity = capacity;
  }

  /** Records that {@code key} was written to {@code fallback} instead. */
  void record(String key, int fallback) {
    if (overflowed) {
      return;
    }
    if (entries.size() >= capacity && !entries.containsKey(key)) {
      overflowed = true;
      return;
    }
    entries.put(key, fallback);
  }

  boolean overflowed() {
    return overflowed;
  }

  int size() {
    return entries.size();
  }

  /** A copy of the recorded entries; they stay recorded until {@link #remove}d. */
  Map<String, Integer> snapshot() {
    return new HashMap<>(entries);
  }

  /** Forgets the entries of a snapshot that were handled, unless re-recorded since. */
  void remove(Map<String, Integer> handled) {
    handled.forEach(entries::remove);
  }

  /** Forgets everything, including an overflow. */
  void reset() {
    entries.clear();
    overflowed = false;
  }
}
