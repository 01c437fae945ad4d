package io.shardwise.it;

import java.util.SplittableRandom;

/** A seeded stream of key indexes with Zipf-distributed popularity, for hot-key tests. */
public final class ZipfStream {

  private ZipfStream() {}

  /** Ranks 1..n drawn with probability proportional to 1 / rank^alpha, by inverse CDF. */
  public static int[] of(int n, double alpha, int count, long seed) {
    double[] cdf = new double[n];
    double sum = 0;
    for (int r = 1; r <= n; r++) {
      sum += 1 / Math.pow(r, alpha);
      cdf[r - 1] = sum;
    }
    // Which key each rank is: a seeded shuffle, so the hottest keys land on random nodes.
    int[] keyOfRank = new int[n];
    for (int i = 0; i < n; i++) {
      keyOfRank[i] = i;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = keyOfRank[i];
      keyOfRank[i] = keyOfRank[j];
      keyOfRank[j] = t;
    }
    int[] stream = new int[count];
    for (int k = 0; k < count; k++) {
      double u = random.nextDouble() * sum;
      int lo = 0;
      int hi = n - 1;
      while (lo < hi) {
        int mid = (lo + hi) >>> 1;
        if (cdf[mid] < u) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      stream[k] = keyOfRank[lo];
    }
    return stream;
  }
}
