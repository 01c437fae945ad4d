package io.shardwise.core.internal.health;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One ejected node's journal: the keys written or deleted through this client on other nodes
 * while it was out, each with the nodes those writes went to, up to a capacity.
 *
 * <p>A key is recorded before its write is sent. Before the node serves again, each recorded key
 * is deleted on it (it may hold an older value of it: {@link #pendingOnNode()}); once the node is
 * back, the copies on the other nodes are the old ones, and {@link #drain()} hands them over to be
 * deleted there. A key recorded again after it was deleted on the node needs no second delete
 * there: the node receives no write while it is out.
 */
public final class Journal {

  private final int capacity;
  private final ConcurrentHashMap<String, Member[]> targets = new ConcurrentHashMap<>();
  /** Recorded keys not yet deleted on the node itself. */
  private final ConcurrentHashMap<String, Boolean> pending = new ConcurrentHashMap<>();
  private final AtomicInteger size = new AtomicInteger();
  /** Set once the node was emptied: nothing recorded afterwards needs a delete on it. */
  private volatile boolean emptied;

  Journal(int capacity) {
    this.capacity = capacity;
  }

  /**
   * Records that a write of {@code key} goes to {@code target} instead of this journal's node, or,
   * with a null {@code target}, that it went to the key's other replicas only: then the node must
   * drop its copy before it serves, and no copy elsewhere becomes old when it returns.
   *
   * @return false, recording nothing, when the journal is full and does not hold the key yet
   */
  boolean record(String key, Member target) {
    Member[] known = targets.get(key);
    if (known == null) {
      if (size.incrementAndGet() > capacity) {
        size.decrementAndGet();
        return false;
      }
      Member[] raced = targets.putIfAbsent(key, target == null ? Member.NONE : new Member[] {target});
      if (raced != null) {
        size.decrementAndGet();
        known = raced;
      } else {
        if (!emptied) {
          pending.put(key, Boolean.TRUE);
        }
        return true;
      }
    }
    if (target != null && !Member.in(known, target)) {
      targets.merge(key, new Member[] {target}, Journal::union);
    }
    return true;
  }

  /** No node besides the replicas written: a key recorded with no target. */

  /** The nodes writes of {@code key} went to instead of this journal's node, or null. */
  Member[] targetsOf(String key) {
    return targets.isEmpty() ? null : targets.get(key);
  }

  /** Keys recorded so far. */
  int size() {
    return size.get();
  }

  /** The recorded keys that still have to be deleted on the node itself. */
  List<String> pendingOnNode() {
    return new ArrayList<>(pending.keySet());
  }

  /** The keys were deleted on the node. */
  void deletedOnNode(List<String> keys) {
    for (String key : keys) {
      pending.remove(key);
    }
  }

  /** The node was emptied: no recorded key, now or later, needs a delete on it. */
  void emptied() {
    emptied = true;
    pending.clear();
  }

  /**
   * Empties the journal for the next outage and returns what it held: each key with the nodes
   * that received its writes. Called with the node's fence held, so nothing is recorded meanwhile.
   */
  Map<String, Member[]> drain() {
    Map<String, Member[]> all = Map.copyOf(targets);
    targets.clear();
    pending.clear();
    size.set(0);
    emptied = false;
    return all;
  }

  private static Member[] union(Member[] a, Member[] b) {
    Member[] out = Arrays.copyOf(a, a.length + b.length);
    int n = a.length;
    for (Member x : b) {
      if (!Member.in(a, x)) {
        out[n++] = x;
      }
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }
}
