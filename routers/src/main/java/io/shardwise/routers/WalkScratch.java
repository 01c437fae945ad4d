package io.shardwise.routers;

/**
 * Per-thread arrays for the failover walks that need O(n) room: kept between calls, so a walk
 * allocates only the first time a thread needs a larger one. A walk takes the thread's scratch
 * and releases it when done; a walk nested inside it on the same thread (from an availability
 * predicate that routes) finds none free and gets a fresh one, so the two never share arrays.
 */
final class WalkScratch {

  private static final ThreadLocal<WalkScratch> FREE = new ThreadLocal<>();

  private long[] k1 = new long[0];
  private long[] k2 = new long[0];
  private int[] ints = new int[0];

  private WalkScratch() {}

  /** This thread's scratch, or a new one if it is in use. */
  static WalkScratch take() {
    WalkScratch scratch = FREE.get();
    if (scratch == null) {
      return new WalkScratch();
    }
    FREE.set(null);
    return scratch;
  }

  /** Hands the scratch back to this thread for its next walk. */
  void release() {
    FREE.set(this);
  }

  /** A first key array of at least {@code n} entries, contents undefined. */
  long[] k1(int n) {
    if (k1.length < n) {
      k1 = new long[n];
    }
    return k1;
  }

  /** A second key array of at least {@code n} entries, contents undefined. */
  long[] k2(int n) {
    if (k2.length < n) {
      k2 = new long[n];
    }
    return k2;
  }

  /** An int array of at least {@code n} entries, contents undefined. */
  int[] ints(int n) {
    if (ints.length < n) {
      ints = new int[n];
    }
    return ints;
  }
}
