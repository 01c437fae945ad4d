package io.shardwise.bounded;

/**
 * The outcome of one {@link BoundedLoadSelector#select(long, LoadView, Selection)} call, together
 * with the scratch space the call needs, so that selecting allocates nothing.
 *
 * <p>A caller keeps one {@code Selection} per thread (or per event loop, or per request pipeline)
 * and passes it to every call; each call overwrites it. The first call, and a call on a selector
 * whose node count or probe limit differs from the previous one's, sizes the scratch arrays; later
 * calls reuse them. Instances are not thread-safe.
 */
public final class Selection {

  private static final int[] EMPTY = new int[0];

  int node = BoundedLoadSelector.NO_NODE;
  int primary = BoundedLoadSelector.NO_NODE;
  int probes;
  int skipped;
  boolean overCap;

  private int[] head = EMPTY;
  private int[] full = EMPTY;

  /** An empty selection; its scratch arrays are sized on first use. */
  public Selection() {}

  /** The picked node index, or {@link BoundedLoadSelector#NO_NODE} when no node is available. */
  public int node() {
    return node;
  }

  /** Whether a node was picked; false only when every node was unavailable. */
  public boolean found() {
    return node != BoundedLoadSelector.NO_NODE;
  }

  /** The key's primary node (first in its preference order), whether or not it was available. */
  public int primary() {
    return primary;
  }

  /**
   * Whether the picked node is not the key's primary, for either reason: the primary was over its
   * cap, or it was unavailable ({@link #skipped()} {@code > 0}). In a cache, a read that spilled
   * lands on a node that does not own the key.
   */
  public boolean spilled() {
    return node != BoundedLoadSelector.NO_NODE && node != primary;
  }

  /** Number of available nodes whose load was compared with their cap: 0 to the probe limit. */
  public int probes() {
    return probes;
  }

  /** Number of unavailable nodes passed over; these do not count against the probe limit. */
  public int skipped() {
    return skipped;
  }

  /**
   * Whether every probed node was at or over its cap, so the least loaded probed node was picked
   * instead of an eligible one.
   */
  public boolean overCap() {
    return overCap;
  }

  void start(int primaryNode) {
    primary = primaryNode;
    node = BoundedLoadSelector.NO_NODE;
    probes = 0;
    skipped = 0;
    overCap = false;
  }

  int finish(int pickedNode, int probeCount, int skipCount, boolean allOverCap) {
    node = pickedNode;
    probes = probeCount;
    skipped = skipCount;
    overCap = allOverCap;
    return pickedNode;
  }

  /** The head buffer, of exactly {@code length} entries. */
  int[] head(int length) {
    if (head.length != length) {
      head = new int[length];
    }
    return head;
  }

  /** The full-order buffer, of exactly {@code length} entries. */
  int[] full(int length) {
    if (full.length != length) {
      full = new int[length];
    }
    return full;
  }

  @Override
  public String toString() {
    return "Selection[node="
        + node
        + ", primary="
        + primary
        + ", probes="
        + probes
        + ", skipped="
        + skipped
        + ", overCap="
        + overCap
        + "]";
  }
}
