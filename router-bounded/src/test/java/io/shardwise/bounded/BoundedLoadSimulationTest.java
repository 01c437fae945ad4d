package io.shardwise.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The paper's guarantee, replayed: a seeded Zipf stream of requests, each adding 1 to the load of
 * the node it is sent to. With every node available and {@code probeLimit >= n}, no node ever
 * carries more than {@code ceil((1 + epsilon) * t * w_j)} after the {@code t}-th request, while
 * plain hashing of the same stream goes far over that.
 */
class BoundedLoadSimulationTest {

  private static final int[] WEIGHTS = {1, 1, 2, 1, 3, 1, 1, 2, 1, 1};
  private static final int KEYS = 10_000;
  private static final int REQUESTS = 100_000;

  @ParameterizedTest(name = "epsilon {0}%, probe limit {1}, seed {2}")
  @CsvSource({"25, 10, 1", "25, 8000, 2", "10, 10, 3", "100, 10, 4"})
  void loadNeverExceedsTheCapUnderASkewedStream(int epsilonPercent, int probeLimit, long seed) {
    FakeRouter router = FakeRouter.shuffled(WEIGHTS);
    BoundedLoadSelector selector =
        BoundedLoadSelector.of(router, epsilonPercent / 100.0, probeLimit);
    int n = WEIGHTS.length;
    long weightSum = Arrays.stream(WEIGHTS).sum();
    long[] keyHashes = new long[KEYS];
    for (int k = 0; k < KEYS; k++) {
      keyHashes[k] = router.hasher().hash("user:" + k);
    }
    double[] zipf = zipfCdf(KEYS, 1.1);
    Random random = new Random(seed);
    ArrayLoads loads = ArrayLoads.zeros(n);
    long[] unbounded = new long[n];
    Selection selection = new Selection();
    int spills = 0;

    for (long t = 1; t <= REQUESTS; t++) {
      long keyHash = keyHashes[sample(zipf, random)];
      int node = selector.select(keyHash, loads, selection);
      loads.add(node);
      unbounded[router.primary(keyHash)]++;
      assertThat(selection.overCap()).as("fallback at request %d", t).isFalse();
      if (selection.spilled()) {
        spills++;
      }
      for (int j = 0; j < n; j++) {
        assertThat(loads.load(j))
            .as("node %d after %d requests", j, t)
            .isLessThanOrEqualTo(exactCap(epsilonPercent, t, WEIGHTS[j], weightSum));
      }
    }

    assertThat(loads.total()).isEqualTo(REQUESTS);
    assertThat(spills).isGreaterThan(REQUESTS / 100);
    int hottest = 0;
    for (int j = 1; j < n; j++) {
      if (unbounded[j] * WEIGHTS[hottest] > unbounded[hottest] * WEIGHTS[j]) {
        hottest = j;
      }
    }
    assertThat(unbounded[hottest])
        .as("plain hashing of the same stream")
        .isGreaterThan(exactCap(epsilonPercent, REQUESTS, WEIGHTS[hottest], weightSum));
  }

  /** ceil((100 + p) * t * weight / (100 * weightSum)), in exact integer arithmetic. */
  private static long exactCap(int epsilonPercent, long t, long weight, long weightSum) {
    long numerator = (100 + epsilonPercent) * t * weight;
    long denominator = 100 * weightSum;
    return (numerator + denominator - 1) / denominator;
  }

  private static double[] zipfCdf(int keys, double exponent) {
    double[] cdf = new double[keys];
    double sum = 0;
    for (int k = 0; k < keys; k++) {
      sum += 1 / Math.pow(k + 1, exponent);
      cdf[k] = sum;
    }
    for (int k = 0; k < keys; k++) {
      cdf[k] /= sum;
    }
    return cdf;
  }

  private static int sample(double[] cdf, Random random) {
    int i = Arrays.binarySearch(cdf, random.nextDouble());
    return Math.min(i >= 0 ? i : -i - 1, cdf.length - 1);
  }
}
