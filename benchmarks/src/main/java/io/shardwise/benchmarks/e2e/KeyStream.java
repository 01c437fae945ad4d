package io.shardwise.benchmarks.e2e;

import java.util.SplittableRandom;

/**
 * Which key a load thread touches next: uniformly random, or Zipf-distributed (rank {@code r} of
 * {@code n} drawn with probability proportional to {@code 1 / r^s}). Immutable and shared by the
 * threads; each draws with its own seeded generator, so both sides of a pair see the same keys.
 *
 * <p>A Zipf draw inverts the cumulative distribution by binary search over a table of {@code n}
 * doubles (800 KB for 100,000 keys): exact for any exponent, and about 17 steps a draw, which every
 * contender pays alike. Ranks are mapped to keys by a seeded shuffle, so that the hottest keys land
 * on random servers rather than on whichever holds the first indices.
 */
final class KeyStream {

  private final int size;
  /** Cumulative weights of ranks 1..n, or null for uniform draws. */
  private final double[] cdf;
  private final int[] keyOfRank;
  private final double exponent;

  private KeyStream(int size, double[] cdf, int[] keyOfRank, double exponent) {
    this.size = size;
    this.cdf = cdf;
    this.keyOfRank = keyOfRank;
    this.exponent = exponent;
  }

  /** Every key of {@code size} equally likely. */
  static KeyStream uniform(int size) {
    return new KeyStream(size, null, null, 0);
  }

  /** Zipf with exponent {@code s} over {@code size} keys, ranks shuffled with {@code seed}. */
  static KeyStream zipf(int size, double s, long seed) {
    if (!(s > 0)) {
      throw new IllegalArgumentException("the Zipf exponent must be > 0 but was " + s);
    }
    double[] cdf = new double[size];
    double sum = 0;
    for (int r = 1; r <= size; r++) {
      sum += Math.pow(r, -s);
      cdf[r - 1] = sum;
    }
    int[] keyOfRank = new int[size];
    for (int i = 0; i < size; i++) {
      keyOfRank[i] = i;
    }
    SplittableRandom random = new SplittableRandom(seed);
    for (int i = size - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = keyOfRank[i];
      keyOfRank[i] = keyOfRank[j];
      keyOfRank[j] = t;
    }
    return new KeyStream(size, cdf, keyOfRank, s);
  }

  /** The index of the next key, drawn with {@code random}. */
  int next(SplittableRandom random) {
    if (cdf == null) {
      return random.nextInt(size);
    }
    double u = random.nextDouble() * cdf[size - 1];
    int lo = 0;
    int hi = size - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cdf[mid] < u) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return keyOfRank[lo];
  }

  /** The share of draws that fall on the {@code top} most popular keys. */
  double share(int top) {
    if (cdf == null) {
      return Math.min(1.0, (double) top / size);
    }
    return cdf[Math.min(top, size) - 1] / cdf[size - 1];
  }

  @Override
  public String toString() {
    return cdf == null ? "uniform over " + size + " keys" : "Zipf(" + exponent + ") over " + size + " keys";
  }
}
