package io.shardwise.simulator;

/**
 * The predictions the experiments are compared with.
 *
 * <p>Ring balance (design notes, section 4): a node with V of the nV points on the circle owns a
 * Beta(V, (n-1)V) share, with relative standard deviation {@code sqrt((n-1)/(nV+1))}. The usual
 * rule for the most loaded node, {@code 1 + sqrt(2 ln n / V)}, takes the shares as normal and the
 * largest of n standard normals as {@code sqrt(2 ln n)}. Both steps are rough for small V or n, so
 * the experiments also print {@link #gammaPeakMedian}: the median of the largest of n independent
 * Gamma(V) variables over their mean V, which is what a share looks like (V exponential gaps) when
 * the normalisation by the whole circle is ignored. For V = 1 its mean is the harmonic number H_n,
 * the exact expected largest of n uniform spacings times n.
 */
final class Theory {

  private Theory() {}

  /** Relative standard deviation of a ring node's share: {@code sqrt((n-1)/(nV+1))}. */
  static double ringRelativeStd(int n, double pointsPerNode) {
    return Math.sqrt((n - 1) / (n * pointsPerNode + 1));
  }

  /** The rule of thumb for a ring's peak/mean: {@code 1 + sqrt(2 ln n / V)}. */
  static double ringPeakRule(int n, double pointsPerNode) {
    return 1 + Math.sqrt(2 * Math.log(n) / pointsPerNode);
  }

  /**
   * Median of {@code max(X_1..X_n) / shape} for independent Gamma(shape, 1) variables: the median
   * peak/mean of n loads whose relative variance is {@code 1/shape}.
   */
  static double gammaPeakMedian(int n, double shape) {
    if (n == 1) {
      return 1;
    }
    // P(max <= x) = P(shape, x)^n = 1/2, i.e. Q(shape, x) = 1 - 2^(-1/n).
    double tail = -Math.expm1(-Math.log(2) / n);
    double lo = 0;
    double hi = shape + 60 * Math.sqrt(shape) + 60;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
      double mid = (lo + hi) / 2;
      if (gammaQ(shape, mid) > tail) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2 / shape;
  }

  /** Median of the largest of n independent standard normal variables. */
  static double normalMaxMedian(int n) {
    // Phi(z)^n = 1/2, i.e. the upper tail 1 - Phi(z) = 1 - 2^(-1/n).
    double tail = -Math.expm1(-Math.log(2) / n);
    double lo = -10;
    double hi = 40;
    for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
      double mid = (lo + hi) / 2;
      if (normalUpperTail(mid) > tail) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    return (lo + hi) / 2;
  }

  /** H_n = 1 + 1/2 + ... + 1/n. */
  static double harmonic(int n) {
    double sum = 0;
    for (int i = n; i >= 1; i--) {
      sum += 1.0 / i;
    }
    return sum;
  }

  /**
   * Expected loop count of jump consistent hash over n buckets: the key's bucket changes when the
   * count grows from b to b+1 with probability 1/(b+1), so the loop visits H_n - 1 buckets on
   * average and runs once more: H_n = ln n + 0.577... + O(1/n), under the paper's ln n + 1.
   */
  static double jumpExpectedLoops(int n) {
    return harmonic(n);
  }

  /** Lamping and Veach's bound on the expected loop count: {@code ln n + 1}. */
  static double jumpLoopBound(int n) {
    return Math.log(n) + 1;
  }

  /** The upper tail of the standard normal distribution, {@code 1 - Phi(z)}. */
  static double normalUpperTail(double z) {
    return 0.5 * erfc(z / Math.sqrt(2));
  }

  /** Coefficients of t^0 .. t^9 in the exponent of {@link #erfc}. */
  private static final double[] ERFC = {
    -1.26551223,
    1.00002368,
    0.37409196,
    0.09678418,
    -0.18628806,
    0.27886807,
    -1.13520398,
    1.48851587,
    -0.82215223,
    0.17087277
  };

  /**
   * The complementary error function, with relative error below 1.2e-7 everywhere (the Chebyshev
   * fit of Numerical Recipes, section 6.2).
   */
  static double erfc(double x) {
    double z = Math.abs(x);
    double t = 1 / (1 + 0.5 * z);
    double poly = 0;
    for (int i = ERFC.length - 1; i >= 0; i--) {
      poly = poly * t + ERFC[i];
    }
    poly -= z * z;
    double r = t * Math.exp(poly);
    return x >= 0 ? r : 2 - r;
  }

  /**
   * The regularised upper incomplete gamma function {@code Q(a, x) = Gamma(a, x) / Gamma(a)}: the
   * probability that a Gamma(a, 1) variable exceeds x. Series below {@code a + 1}, Lentz's
   * continued fraction above (Numerical Recipes, section 6.2).
   */
  static double gammaQ(double a, double x) {
    if (x <= 0) {
      return 1;
    }
    double logPrefix = -x + a * Math.log(x) - logGamma(a);
    if (x < a + 1) {
      double ap = a;
      double term = 1 / a;
      double sum = term;
      for (int i = 0; i < 1_000_000; i++) {
        ap++;
        term *= x / ap;
        sum += term;
        if (Math.abs(term) < Math.abs(sum) * 1e-16) {
          break;
        }
      }
      return 1 - sum * Math.exp(logPrefix);
    }
    double tiny = 1e-300;
    double b = x + 1 - a;
    double c = 1 / tiny;
    double d = 1 / b;
    double h = d;
    for (int i = 1; i < 1_000_000; i++) {
      double an = -i * (i - a);
      b += 2;
      d = an * d + b;
      if (Math.abs(d) < tiny) {
        d = tiny;
      }
      c = b + an / c;
      if (Math.abs(c) < tiny) {
        c = tiny;
      }
      d = 1 / d;
      double delta = d * c;
      h *= delta;
      if (Math.abs(delta - 1) < 1e-15) {
        break;
      }
    }
    return Math.exp(logPrefix) * h;
  }

  private static final double[] LANCZOS = {
    0.99999999999980993,
    676.5203681218851,
    -1259.1392167224028,
    771.32342877765313,
    -176.61502916214059,
    12.507343278686905,
    -0.13857109526572012,
    9.9843695780195716e-6,
    1.5056327351493116e-7
  };

  /** {@code ln Gamma(x)} for {@code x > 0}: Lanczos' approximation (g = 7), about 15 digits. */
  static double logGamma(double x) {
    if (x < 0.5) {
      return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
    }
    double z = x - 1;
    double sum = LANCZOS[0];
    for (int i = 1; i < LANCZOS.length; i++) {
      sum += LANCZOS[i] / (z + i);
    }
    double t = z + 7.5;
    return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
  }
}
