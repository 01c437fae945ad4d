package io.shardwise.cli;

import io.shardwise.routing.Node;
import io.shardwise.simulator.KeyMoves;
import java.util.List;

/**
 * The copies of keys stored on N servers each, before and after a server-list change, counted key
 * by key for {@code shardwise plan --replicas N}. A copy is one key on one server; a key's copies
 * are on its replicas, the first N servers of its preference order ({@link
 * io.shardwise.routing.Router#replicas}). Counted: the copies each server holds before and after,
 * the copies <em>added</em> (a server in a key's new replica set and not in its old one: the key
 * must be copied there, or misses there until written again), the copies <em>removed</em> (the
 * other way round), and the keys whose set of replicas changed.
 *
 * <p>Every key has N copies before and after, so as many copies are removed as added in all;
 * per server they differ. Servers are matched by address and numbered as {@link KeyMoves} does:
 * the old list in order, then the servers only the new list names. Not thread safe.
 */
final class ReplicaMoves {

  private final KeyMoves numbering;
  private final int replicas;
  private final long[] heldBefore;
  private final long[] heldAfter;
  private final long[] added;
  private final long[] removed;
  /** The key (counted from 1) whose old, and new, replica set last held each server. */
  private final long[] inOldSet;
  private final long[] inNewSet;
  private long keys;
  private long addedTotal;
  private long changedKeys;

  private ReplicaMoves(List<Node> before, List<Node> after, int replicas) {
    this.numbering = KeyMoves.between(before, after);
    this.replicas = replicas;
    int servers = numbering.servers().size();
    heldBefore = new long[servers];
    heldAfter = new long[servers];
    added = new long[servers];
    removed = new long[servers];
    inOldSet = new long[servers];
    inNewSet = new long[servers];
  }

  /**
   * An empty count for a change from {@code before} to {@code after} (node lists in router order)
   * with {@code replicas} copies of every key.
   */
  static ReplicaMoves between(List<Node> before, List<Node> after, int replicas) {
    return new ReplicaMoves(before, after, replicas);
  }

  /**
   * Counts one key whose replicas are {@code before[0, replicas)} in the old list (node indexes)
   * and {@code after[0, replicas)} in the new one. O(replicas), allocation free.
   */
  void add(int[] before, int[] after) {
    long key = ++keys;
    for (int r = 0; r < replicas; r++) {
      inOldSet[numbering.serverBefore(before[r])] = key;
      inNewSet[numbering.serverAfter(after[r])] = key;
    }
    boolean changed = false;
    for (int r = 0; r < replicas; r++) {
      int was = numbering.serverBefore(before[r]);
      heldBefore[was]++;
      if (inNewSet[was] != key) {
        removed[was]++;
      }
      int is = numbering.serverAfter(after[r]);
      heldAfter[is]++;
      if (inOldSet[is] != key) {
        added[is]++;
        addedTotal++;
        changed = true;
      }
    }
    if (changed) {
      changedKeys++;
    }
  }

  /** Copies per key. */
  int replicas() {
    return replicas;
  }

  /** The servers of both lists, numbered as the per-server counts are. */
  List<Node> servers() {
    return numbering.servers();
  }

  /** Keys counted. */
  long keys() {
    return keys;
  }

  /** Copies before, and after: {@code keys() * replicas()}. */
  long copies() {
    return keys * replicas;
  }

  /** Copies on a server that did not hold them before. */
  long added() {
    return addedTotal;
  }

  /** Copies on a server that no longer holds them; as many as {@link #added()}. */
  long removed() {
    long sum = 0;
    for (long r : removed) {
      sum += r;
    }
    return sum;
  }

  /** Keys whose set of replicas changed. */
  long changedKeys() {
    return changedKeys;
  }

  /** Copies server {@code server} held before the change. */
  long heldBefore(int server) {
    return heldBefore[server];
  }

  /** Copies server {@code server} holds after the change. */
  long heldAfter(int server) {
    return heldAfter[server];
  }

  /** Copies server {@code server} holds after the change and did not hold before. */
  long addedTo(int server) {
    return added[server];
  }

  /** Copies server {@code server} held before the change and does not hold after. */
  long removedFrom(int server) {
    return removed[server];
  }
}
