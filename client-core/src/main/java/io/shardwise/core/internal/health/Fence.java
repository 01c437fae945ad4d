package io.shardwise.core.internal.health;

import io.shardwise.client.NodeUnavailableException;
import io.shardwise.spi.KeyRules;
import java.util.Arrays;

/**
 * Fences held by one operation: the read side of the fence of each node its writes skip. Closed
 * after the operation's requests have been handed to their connections.
 */
public final class Fence implements AutoCloseable {
  private final Failback failback;
  private Member[] held = new Member[2];
  private int count;

  Fence(Failback failback) {
    this.failback = failback;
  }

  /**
   * Holds the fence of each of the {@code count} nodes {@code members[skipped[i]]} a write skips,
   * and checks that each is still out.
   *
   * @return false if one of them is back (the caller routes again)
   */
  public boolean enter(Member[] members, int[] skipped, int count) {
    for (int i = 0; i < count; i++) {
      Member node = members[skipped[i]];
      hold(node);
      if (node.available()) {
        return false;
      }
    }
    return true;
  }

  private void hold(Member node) {
    for (int i = 0; i < count; i++) {
      if (held[i] == node) {
        return;
      }
    }
    node.failback.fence.readLock().lock();
    if (count == held.length) {
      held = Arrays.copyOf(held, count * 2);
    }
    held[count++] = node;
  }

  /**
   * Journals {@code key}, written on {@code target}, against the skipped nodes {@link #enter} has
   * fenced. Returns null, or the error for the caller if a journal is full.
   */
  public NodeUnavailableException record(Member[] members, String key, Member target, int[] skipped, int count) {
    if (!failback.tracking()) {
      return null;
    }
    for (int i = 0; i < count; i++) {
      Member node = members[skipped[i]];
      failback.markEarlierCopies(node, key, target);
      if (!node.failback.journal.record(key, target)) {
        return full(node, key);
      }
    }
    return null;
  }

  /**
   * Journals {@code key}, written on its other replicas only, against the {@code count} replicas
   * {@code members[out[i]]} that are out and that {@link #enter} has fenced: each drops its copy
   * before it serves again, and no copy elsewhere is marked when it does. Returns null, or the error
   * for the caller if a journal is full.
   */
  public NodeUnavailableException recordMissed(Member[] members, String key, int[] out, int count) {
    if (!failback.tracking()) {
      return null;
    }
    for (int i = 0; i < count; i++) {
      Member node = members[out[i]];
      failback.markEarlierCopies(node, key, null);
      if (!node.failback.journal.record(key, null)) {
        return full(node, key);
      }
    }
    return null;
  }

  private NodeUnavailableException full(Member node, String key) {
    failback.metrics().journalFull(node.node);
    return new NodeUnavailableException(
        node.node,
        "is out and its journal of "
            + failback.options().journalCapacity()
            + " keys written elsewhere is full, so "
            + KeyRules.shorten(key)
            + " is not written elsewhere: a write it cannot record could leave an older"
            + " value to be read when the node returns (raise journal-capacity, or wait"
            + " for the node)");
  }

  @Override
  public void close() {
    for (int i = 0; i < count; i++) {
      held[i].failback.fence.readLock().unlock();
      held[i] = null;
    }
    count = 0;
  }
}
