package io.shardwise.core.internal.route;

import io.shardwise.client.TopologyChange;
import io.shardwise.core.TopologyOptions;

/**
 * A server-list change, and the placement it left ({@link #previous}), for as long as keys that
 * moved away from that placement need it. A {@link Topology} keeps the changes it came from, most
 * recent first ({@link Topology#history}); {@link Moves} reads them to route a key. Phases,
 * each ending on a timer started when the change was applied:
 *
 * <ol>
 *   <li><b>Settling</b> (the first {@link TopologyOptions#settle()}): a key that moved is still
 *       read and written as under {@link #previous}, as clients that have not applied the change yet
 *       do; its writes also delete it on its new node. Clients that apply the change within this
 *       phase of each other therefore read and write moved keys in one place.
 *   <li><b>Warming</b> (until {@link TopologyOptions#warmUp()} after settling): a moved key is read
 *       on its new node; a miss there is read again on its previous node, and a hit is copied to the
 *       new node ({@code add}, at most {@link TopologyOptions#copyTtl()}). Writes go to the new node
 *       and delete the key on its previous node, so no old value is copied later. During the first
 *       {@code settle} of this phase no copy is made (the hit is only returned): a client that
 *       applied the change up to {@code settle} later is still settling then, and its writes go to
 *       the previous node and delete the new one, so a copy read from the previous node just before
 *       such a write and added just after its delete would keep the older value on the new node.
 *       From then on every such client writes on the new node, and a copy ({@code add}) can no
 *       longer replace or outlive a value it writes there.
 *   <li><b>Remembered</b> (from the end of warming until the change is forgotten): moved keys are
 *       read and written on their new node only, but the previous node may still hold a value older
 *       than the ones written since. Each write of a moved key marks the key on its previous node,
 *       where a read answers it as a miss until the mark's delete is confirmed ({@link
 *       Failback#markOldCopy}): so a change and its reversal, or a removed server added back, never
 *       serve the value from before the first change. The client forgets the change once every
 *       value written under {@link #previous} has expired (see {@code Topologies}).
 * </ol>
 *
 * <p>Changes wait for the settling phase of the one before, so only the most recent change of a
 * history can be settling; the others are warming or remembered, and their windows end in order.
 */
public final class Transition {

  public enum Phase {
    SETTLING,
    WARMING,
    REMEMBERED
  }

  /** The placement before the change, without a history of its own. */
  public final Topology previous;

  public final TopologyChange change;
  private final long startNanos;
  private final long settleUntilNanos;
  private final long warmUntilNanos;
  private final long copyFromNanos;
  /**
   * When the change is forgotten ({@link System#nanoTime()}): {@link Long#MAX_VALUE} until its
   * warm-up has ended and {@link #forgetAfter} has set it, and for good when values without expiry
   * were written. Set on the topology thread.
   */
  private volatile long forgetAtNanos = Long.MAX_VALUE;
  private volatile boolean reviewed;

  public Transition(Topology previous, TopologyChange change, long startNanos, TopologyOptions options) {
    this(previous, change, startNanos, options.settle().toNanos(), options.warmUp().toNanos());
  }

  private Transition(Topology previous, TopologyChange change, long startNanos, long settle, long warm) {
    this.previous = previous;
    this.change = change;
    this.startNanos = startNanos;
    this.settleUntilNanos = startNanos + settle;
    this.warmUntilNanos = settleUntilNanos + warm;
    this.copyFromNanos = settleUntilNanos + settle;
  }

  /** This change with its previous placement replaced (the same timers). */
  public Transition withPrevious(Topology placement) {
    Transition t =
        new Transition(placement, change, startNanos, settleUntilNanos - startNanos, warmUntilNanos - settleUntilNanos);
    t.forgetAtNanos = forgetAtNanos;
    t.reviewed = reviewed;
    return t;
  }

  /**
   * Sets, once, when this change is forgotten: {@code retentionNanos} (the longest TTL written, or
   * {@link Long#MAX_VALUE} for values without expiry) after its settling phase, the last time a
   * value was written under its previous placement.
   */
  public void forgetAfter(long retentionNanos) {
    if (reviewed) {
      return;
    }
    reviewed = true;
    forgetAtNanos =
        retentionNanos == Long.MAX_VALUE || retentionNanos > Long.MAX_VALUE / 4
            ? Long.MAX_VALUE
            : settleUntilNanos + retentionNanos;
  }

  /** When this change is forgotten, or {@link Long#MAX_VALUE} for not yet known or never. */
  public long forgetAtNanos() {
    return forgetAtNanos;
  }

  public boolean forgotten(long nowNanos) {
    long at = forgetAtNanos;
    return at != Long.MAX_VALUE && nowNanos - at >= 0;
  }

  public Phase phase(long nowNanos) {
    if (nowNanos - settleUntilNanos < 0) {
      return Phase.SETTLING;
    }
    return nowNanos - warmUntilNanos < 0 ? Phase.WARMING : Phase.REMEMBERED;
  }

  /** Whether the previous placement is still read (settling or warming) at {@code nowNanos}. */
  public boolean inWindow(long nowNanos) {
    return nowNanos - warmUntilNanos < 0;
  }

  /**
   * Whether a warming read that found a moved key on its previous node copies it to the new one:
   * not before {@code settle} has passed again after the settling phase (see the class comment).
   */
  boolean copies(long nowNanos) {
    return nowNanos - copyFromNanos >= 0;
  }

  public long startNanos() {
    return startNanos;
  }

  public long settleUntilNanos() {
    return settleUntilNanos;
  }

  public long warmUntilNanos() {
    return warmUntilNanos;
  }
}
