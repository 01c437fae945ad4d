package io.shardwise.simulator;

import java.util.SplittableRandom;

/**
 * Ranks {@code 1..n} drawn with probability proportional to {@code rank^-alpha} (Zipf), by
 * inverting the cumulative distribution: a uniform draw in [0, 1) and a binary search over the n
 * cumulative probabilities, so every draw takes exactly one random number and O(log n) steps.
 */
final class ZipfSampler {

  private final double alpha;

  /** {@code cdf[r - 1] = P(rank <= r)}; the last entry is exactly 1. */
  private final double[] cdf;

  private final double normalisation;

  /**
   * @throws IllegalArgumentException if {@code n < 1} or {@code alpha} is negative or not finite
   */
  ZipfSampler(int n, double alpha) {
    if (n < 1) {
      throw new IllegalArgumentException("the number of ranks must be >= 1 but was " + n);
    }
    if (!(alpha >= 0) || Double.isInfinite(alpha)) {
      throw new IllegalArgumentException(
          "zipf exponent must be a finite number >= 0 but was " + alpha);
    }
    this.alpha = alpha;
    this.cdf = new double[n];
    double sum = 0;
    for (int r = 1; r <= n; r++) {
      sum += Math.pow(r, -alpha);
      cdf[r - 1] = sum;
    }
    this.normalisation = sum;
    for (int r = 0; r < n; r++) {
      cdf[r] /= sum;
    }
    cdf[n - 1] = 1.0;
  }

  int ranks() {
    return cdf.length;
  }

  double alpha() {
    return alpha;
  }

  /** The probability of {@code rank}: {@code rank^-alpha / H(n, alpha)}. */
  double probability(int rank) {
    return Math.pow(rank, -alpha) / normalisation;
  }

  /** A rank in {@code 1..n}. */
  int sample(SplittableRandom random) {
    double u = random.nextDouble();
    // The least r with u < cdf[r - 1].
    int lo = 0;
    int hi = cdf.length - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (u < cdf[mid]) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo + 1;
  }
}
