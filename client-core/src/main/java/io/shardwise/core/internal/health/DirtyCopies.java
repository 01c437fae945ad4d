package io.shardwise.core.internal.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The keys whose copy on one node must not be read, because this client wrote a newer value
 * elsewhere: copies it wrote there while the keys' own node was out (marked when that node came
 * back, {@link Failback}), and values the node held as a key's owner before a server-list change
 * moved the key away and this client wrote it on its new node ({@link Failback#markOldCopy}). A
 * read there is answered as a miss until a delete of the copy has been confirmed; each mark
 * carries a stamp, so a confirmation only clears the marks it covers.
 *
 * <p>The deletes run in the background ({@link Failback#deleteOldCopies}). A write that goes to
 * this node for a marked key hands its request to the connection under {@link #handOff}, as the
 * background delete does: a connection is one ordered stream, so the write lands after any delete
 * already sent, and no delete taken from an earlier snapshot can be sent after it.
 */
public final class DirtyCopies {

  private final ConcurrentHashMap<String, Long> marks = new ConcurrentHashMap<>();
  /** Set when a mark could not be recorded (full): old copies beyond the capacity are unknown. */
  private volatile boolean overflowed;

  /** Whether the copy of {@code key} on this node may be old. */
  boolean contains(String key) {
    return !marks.isEmpty() && marks.containsKey(key);
  }

  /** The stamp of {@code key}'s mark, or null. */
  public Long stamp(String key) {
    return marks.isEmpty() ? null : marks.get(key);
  }

  void mark(String key, long stamp) {
    marks.merge(key, stamp, Math::max);
  }

  int size() {
    return marks.size();
  }

  public boolean isEmpty() {
    return marks.isEmpty();
  }

  void overflowed() {
    overflowed = true;
  }

  /** Whether some mark could not be recorded since this node's marks were created. */
  public boolean hasOverflowed() {
    return overflowed;
  }

  /** The marked keys with their stamps, to delete and then {@link #cleaned}. */
  Map<String, Long> snapshot() {
    return Map.copyOf(marks);
  }

  /** The copies of {@code keys} were deleted after the marks of the snapshot were made. */
  void cleaned(Map<String, Long> deleted) {
    deleted.forEach(marks::remove); // remove(key, stamp): a newer mark stays
  }

  /** The copy of {@code key} was replaced or deleted after the mark with {@code stamp} was made. */
  public void cleared(String key, long stamp) {
    marks.remove(key, stamp);
  }

  /**
   * Runs {@code send}, which hands requests for this node to its connection, while no other
   * hand-off of old-copy deletes or of writes of marked keys runs.
   */
  public synchronized <T> T handOff(Supplier<T> send) {
    return send.get();
  }

  /** The keys of a snapshot, for a batched delete. */
  static List<String> keys(Map<String, Long> snapshot) {
    return new ArrayList<>(snapshot.keySet());
  }
}
