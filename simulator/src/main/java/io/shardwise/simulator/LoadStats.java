package io.shardwise.simulator;

import java.util.Arrays;

/**
 * Spread of the load over nodes: peak/mean, min/mean and the relative standard deviation (the
 * standard deviation over nodes divided by the mean, with the mean known, so divided by n).
 */
record LoadStats(double peakOverMean, double minOverMean, double relativeStd) {

  /** Statistics of per-node loads (key counts, request counts or shares). */
  static LoadStats of(double[] loads) {
    int n = loads.length;
    double sum = 0;
    double max = Double.NEGATIVE_INFINITY;
    double min = Double.POSITIVE_INFINITY;
    for (double x : loads) {
      sum += x;
      max = Math.max(max, x);
      min = Math.min(min, x);
    }
    double mean = sum / n;
    double squares = 0;
    for (double x : loads) {
      squares += (x - mean) * (x - mean);
    }
    return new LoadStats(max / mean, min / mean, Math.sqrt(squares / n) / mean);
  }

  static LoadStats of(long[] loads) {
    return of(Arrays.stream(loads).asDoubleStream().toArray());
  }

  static LoadStats of(int[] loads) {
    return of(Arrays.stream(loads).asDoubleStream().toArray());
  }

  /** The median of {@code values} (the mean of the middle two for an even count). */
  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }

  static double max(double[] values) {
    return Arrays.stream(values).max().orElseThrow();
  }
}
