package io.shardwise.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys whose copy on one node must not be read: copies this client wrote there while the
 * keys' own node was out, now older than what that node holds since it came back. A read that
 * fails over to this node for such a key is answered as a miss until a delete of the copy has
 * been confirmed; each mark carries the readmission that made it, so a confirmation only clears
 * the marks it covers.
 */
final class DirtyCopies {

  private final ConcurrentHashMap<String, Long> marks = new ConcurrentHashMap<>();

  /** Whether the copy of {@code key} on this node may be old. */
  boolean contains(String key) {
    return !marks.isEmpty() && marks.containsKey(key);
  }

  void mark(String key, long stamp) {
    marks.merge(key, stamp, Math::max);
  }

  boolean isEmpty() {
    return marks.isEmpty();
  }

  /** The marked keys with their stamps, to delete and then {@link #cleaned}. */
  Map<String, Long> snapshot() {
    return Map.copyOf(marks);
  }

  /** The copies of {@code keys} were deleted after the marks of the snapshot were made. */
  void cleaned(Map<String, Long> deleted) {
    deleted.forEach(marks::remove); // remove(key, stamp): a newer mark stays
  }

  /** The keys of a snapshot, for a batched delete. */
  static List<String> keys(Map<String, Long> snapshot) {
    return new ArrayList<>(snapshot.keySet());
  }
}
