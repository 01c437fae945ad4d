package io.shardwise.routers;

import java.util.function.IntPredicate;

/**
 * Writes node indexes in ascending order of a per-node key: first {@code k1}, then {@code k2}
 * (if given), then the index itself, all compared as signed longs. The index makes the order
 * total, so the result never depends on the sorting method: a short prefix found by selection
 * is exactly the prefix of the full sort.
 */
final class NodeRanking {

  /** Up to this many indexes are found by selection passes, O(n) each, without allocating. */
  static final int SELECTION_LIMIT = 8;

  private NodeRanking() {}

  /**
   * Writes the first {@code min(out.length, n)} node indexes of the order into {@code out}.
   *
   * @param k2 secondary keys, or {@code null} when the index alone breaks ties
   * @return the number of indexes written
   */
  static int write(long[] k1, long[] k2, int n, int[] out) {
    int k = Math.min(out.length, n);
    if (k <= SELECTION_LIMIT) {
      select(k1, k2, n, out, k);
    } else {
      int[] sorted = sort(k1, k2, n);
      System.arraycopy(sorted, 0, out, 0, k);
    }
    return k;
  }

  /**
   * Writes the first {@code k <= n} node indexes of the order into {@code out} without
   * allocating: by selection passes up to {@link #SELECTION_LIMIT}, else by heap-sorting every
   * index in the scratch's int array (the same order as {@link #sort}: the order is total).
   *
   * @return {@code k}
   */
  static int writeFirst(long[] k1, long[] k2, int n, int[] out, int k, WalkScratch scratch) {
    if (k <= SELECTION_LIMIT) {
      select(k1, k2, n, out, k);
      return k;
    }
    int[] all = scratch.ints(n);
    for (int i = 0; i < n; i++) {
      all[i] = i;
    }
    heapSort(k1, k2, all, n);
    System.arraycopy(all, 0, out, 0, k);
    return k;
  }

  /** Whether node {@code i} comes before node {@code j}. */
  static boolean before(long[] k1, long[] k2, int i, int j) {
    if (k1[i] != k1[j]) {
      return k1[i] < k1[j];
    }
    if (k2 != null && k2[i] != k2[j]) {
      return k2[i] < k2[j];
    }
    return i < j;
  }

  /** Each pass takes the least node ordered after the previous pass's pick. */
  private static void select(long[] k1, long[] k2, int n, int[] out, int k) {
    int prev = -1;
    for (int pos = 0; pos < k; pos++) {
      int best = -1;
      for (int i = 0; i < n; i++) {
        if (prev >= 0 && !before(k1, k2, prev, i)) {
          continue;
        }
        if (best < 0 || before(k1, k2, i, best)) {
          best = i;
        }
      }
      out[pos] = best;
      prev = best;
    }
  }

  /**
   * The failover walk of {@link io.shardwise.routing.Router#walkToAvailable} over this order, in
   * one pass and without allocating: the least available node, then the unavailable nodes before
   * it, sorted. A node is asked about only when it comes before the least available node found so
   * far, and every node before the final one was asked, so {@code walked} collects a superset of
   * the skipped nodes (about ln n extra), which is filtered and then sorted in place.
   */
  static int walk(long[] k1, long[] k2, int n, IntPredicate available, int[] walked) {
    int best = -1;
    int asked = 0;
    for (int i = 0; i < n; i++) {
      if (best < 0 || before(k1, k2, i, best)) {
        if (available.test(i)) {
          best = i;
        } else {
          walked[asked++] = i;
        }
      }
    }
    return finish(k1, k2, best, walked, asked);
  }

  /**
   * Ends a walk: keeps of {@code walked[0, asked)} the nodes ordered before {@code best} (all of
   * them if {@code best < 0}), sorts them and writes {@code best} after them. The keys need be
   * set only for those nodes and {@code best}. Returns the number kept.
   */
  static int finish(long[] k1, long[] k2, int best, int[] walked, int asked) {
    int skipped = 0;
    for (int a = 0; a < asked; a++) {
      int node = walked[a];
      if (best < 0 || before(k1, k2, node, best)) {
        walked[skipped++] = node;
      }
    }
    heapSort(k1, k2, walked, skipped);
    if (best >= 0) {
      walked[skipped] = best;
    }
    return skipped;
  }

  /** Sorts {@code a[0, count)} in place: O(count log count), no allocation. */
  static void heapSort(long[] k1, long[] k2, int[] a, int count) {
    for (int i = count / 2 - 1; i >= 0; i--) {
      siftDown(k1, k2, a, i, count);
    }
    for (int end = count - 1; end > 0; end--) {
      int top = a[0];
      a[0] = a[end];
      a[end] = top;
      siftDown(k1, k2, a, 0, end);
    }
  }

  /** Restores the max-heap (the node ordered last on top) below position {@code i}. */
  private static void siftDown(long[] k1, long[] k2, int[] a, int i, int count) {
    int node = a[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= count) {
        break;
      }
      if (child + 1 < count && before(k1, k2, a[child], a[child + 1])) {
        child++;
      }
      if (!before(k1, k2, node, a[child])) {
        break;
      }
      a[i] = a[child];
      i = child;
    }
    a[i] = node;
  }

  /** Bottom-up merge sort of the indexes 0..n-1. */
  static int[] sort(long[] k1, long[] k2, int n) {
    int[] a = new int[n];
    for (int i = 0; i < n; i++) {
      a[i] = i;
    }
    int[] b = new int[n];
    for (int width = 1; width < n; width <<= 1) {
      for (int lo = 0; lo < n; lo += width << 1) {
        int mid = Math.min(lo + width, n);
        int hi = Math.min(lo + (width << 1), n);
        int l = lo;
        int r = mid;
        for (int o = lo; o < hi; o++) {
          if (l < mid && (r >= hi || !before(k1, k2, a[r], a[l]))) {
            b[o] = a[l++];
          } else {
            b[o] = a[r++];
          }
        }
      }
      int[] t = a;
      a = b;
      b = t;
    }
    return a;
  }
}
