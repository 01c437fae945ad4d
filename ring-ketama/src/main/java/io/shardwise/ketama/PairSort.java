package io.shardwise.ketama;

/**
 * Sorts a {@code long} key array by (key, rank), carrying an {@code int} payload array along. A
 * continuum has up to millions of points; sorting primitives in place avoids boxing them.
 */
final class PairSort {

  private static final int INSERTION = 24;

  private PairSort() {}

  /** Sorts {@code [from, to)} of the three parallel arrays by {@code keys}, then {@code rank}. */
  static void sort(long[] keys, int[] rank, int[] payload, int from, int to) {
    while (to - from > INSERTION) {
      int mid = (from + to) >>> 1;
      int pivot = medianOfThree(keys, rank, from, mid, to - 1);
      long pk = keys[pivot];
      int pr = rank[pivot];
      int i = from;
      int j = to - 1;
      while (i <= j) {
        while (less(keys[i], rank[i], pk, pr)) {
          i++;
        }
        while (less(pk, pr, keys[j], rank[j])) {
          j--;
        }
        if (i <= j) {
          swap(keys, rank, payload, i, j);
          i++;
          j--;
        }
      }
      // Recurse into the smaller side, loop on the larger: O(log n) stack.
      if (j - from < to - i) {
        sort(keys, rank, payload, from, j + 1);
        from = i;
      } else {
        sort(keys, rank, payload, i, to);
        to = j + 1;
      }
    }
    for (int i = from + 1; i < to; i++) {
      for (int j = i; j > from && less(keys[j], rank[j], keys[j - 1], rank[j - 1]); j--) {
        swap(keys, rank, payload, j, j - 1);
      }
    }
  }

  private static boolean less(long k1, int r1, long k2, int r2) {
    return k1 < k2 || (k1 == k2 && r1 < r2);
  }

  private static int medianOfThree(long[] k, int[] r, int a, int b, int c) {
    if (less(k[a], r[a], k[b], r[b])) {
      if (less(k[b], r[b], k[c], r[c])) {
        return b;
      }
      return less(k[a], r[a], k[c], r[c]) ? c : a;
    }
    if (less(k[a], r[a], k[c], r[c])) {
      return a;
    }
    return less(k[b], r[b], k[c], r[c]) ? c : b;
  }

  private static void swap(long[] keys, int[] rank, int[] payload, int i, int j) {
    long k = keys[i];
    keys[i] = keys[j];
    keys[j] = k;
    int r = rank[i];
    rank[i] = rank[j];
    rank[j] = r;
    int p = payload[i];
    payload[i] = payload[j];
    payload[j] = p;
  }
}
