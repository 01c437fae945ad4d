package io.shardwise.core;

import io.shardwise.client.TopologyChange;

/**
 * A server-list change whose moved keys are still being taken over, in two phases.
 *
 * <ol>
 *   <li><b>Settling</b> (the first {@link TopologyOptions#settle()}): a key that moved is still
 *       read and written on its previous node, as clients that have not applied the change yet
 *       do; its writes also delete it on its new node. Clients that apply the change within this
 *       phase of each other therefore read and write moved keys in one place.
 *   <li><b>Warming</b> (until {@link TopologyOptions#warmUp()} after the change): a moved key is
 *       read on its new node; a miss there is read again on its previous node, and a hit is
 *       copied to the new node ({@code add}, at most {@link TopologyOptions#copyTtl()}). Writes go
 *       to the new node and delete the key on its previous node, so no old value is copied later.
 *       During the first {@code settle} of this phase no copy is made (the hit is only returned):
 *       a client that applied the change up to {@code settle} later is still settling then, and
 *       its writes go to the previous node and delete the new one, so a copy read from the
 *       previous node just before such a write and added just after its delete would keep the
 *       older value on the new node. From then on every such client writes on the new node, and
 *       a copy ({@code add}) can no longer replace or outlive a value it writes there.
 * </ol>
 *
 * <p>Afterwards the client routes by the new list only, and the nodes only the previous list had
 * are closed.
 */
final class Transition {

  enum Phase {
    SETTLING,
    WARMING,
    DONE
  }

  /** The topology before the change, without a transition of its own. */
  final Topology previous;

  final TopologyChange change;
  private final long startNanos;
  private final long settleUntilNanos;
  private final long warmUntilNanos;
  private final long copyFromNanos;

  Transition(Topology previous, TopologyChange change, long startNanos, TopologyOptions options) {
    this.previous = previous;
    this.change = change;
    this.startNanos = startNanos;
    this.settleUntilNanos = startNanos + options.settle().toNanos();
    this.warmUntilNanos = settleUntilNanos + options.warmUp().toNanos();
    this.copyFromNanos = settleUntilNanos + options.settle().toNanos();
  }

  Phase phase(long nowNanos) {
    if (nowNanos - settleUntilNanos < 0) {
      return Phase.SETTLING;
    }
    return nowNanos - warmUntilNanos < 0 ? Phase.WARMING : Phase.DONE;
  }

  /**
   * Whether a warming read that found a moved key on its previous node copies it to the new one:
   * not before {@code settle} has passed again after the settling phase (see the class comment).
   */
  boolean copies(long nowNanos) {
    return nowNanos - copyFromNanos >= 0;
  }

  long startNanos() {
    return startNanos;
  }

  long settleUntilNanos() {
    return settleUntilNanos;
  }

  long warmUntilNanos() {
    return warmUntilNanos;
  }

  /**
   * The index in {@link #previous} of the node {@code key} had before the change if that is
   * another server than {@code newOwner} (the key moved); else -1.
   */
  int previousOwner(String key, Member newOwner) {
    int p = previous.primary(key);
    return previous.members[p] == newOwner ? -1 : p;
  }
}
