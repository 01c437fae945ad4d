package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfSamplerTest {

  /** Pearson's chi-square statistic of the counts against the sampler's probabilities. */
  private static double chiSquare(ZipfSampler zipf, long[] counts, long samples) {
    double chi = 0;
    for (int r = 1; r <= zipf.ranks(); r++) {
      double expected = samples * zipf.probability(r);
      chi += (counts[r] - expected) * (counts[r] - expected) / expected;
    }
    return chi;
  }

  private static long[] draw(ZipfSampler zipf, int samples, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    long[] counts = new long[zipf.ranks() + 1];
    for (int i = 0; i < samples; i++) {
      counts[zipf.sample(random)]++;
    }
    return counts;
  }

  @Test
  void probabilitiesFollowThePowerLawAndSumToOne() {
    ZipfSampler zipf = new ZipfSampler(1000, 1.1);
    double sum = 0;
    for (int r = 1; r <= 1000; r++) {
      sum += zipf.probability(r);
    }
    assertThat(sum).isCloseTo(1, within(1e-12));
    assertThat(zipf.probability(1) / zipf.probability(2))
        .isCloseTo(Math.pow(2, 1.1), within(1e-12));
    assertThat(zipf.probability(10) / zipf.probability(1000))
        .isCloseTo(Math.pow(100, 1.1), within(1e-6));
  }

  @Test
  void samplesMatchTheDistribution() {
    // Chi-square with 19 degrees of freedom: 43.8 is its 0.999 quantile.
    ZipfSampler zipf = new ZipfSampler(20, 1.1);
    int samples = 1_000_000;
    long[] counts = draw(zipf, samples, 3);
    assertThat(counts[0]).isZero();
    assertThat(chiSquare(zipf, counts, samples)).isLessThan(43.8);
    assertThat(counts[1] / (double) samples).isCloseTo(zipf.probability(1), within(0.002));
  }

  @Test
  void samplesOverManyRanksHitTheHeadAndTheTailAsExpected() {
    ZipfSampler zipf = new ZipfSampler(100_000, 0.9);
    int samples = 500_000;
    long[] counts = draw(zipf, samples, 4);
    double tail = 0;
    long tailCount = 0;
    for (int r = 50_001; r <= 100_000; r++) {
      tail += zipf.probability(r);
      tailCount += counts[r];
    }
    // Within 5 standard deviations of a binomial count.
    assertThat(tailCount)
        .isCloseTo((long) (samples * tail), within((long) (5 * Math.sqrt(samples * tail))));
    assertThat(counts[1])
        .isCloseTo(
            (long) (samples * zipf.probability(1)),
            within((long) (5 * Math.sqrt(samples * zipf.probability(1)))));
  }

  @Test
  void exponentZeroIsUniformAndOneRankIsAlwaysRankOne() {
    ZipfSampler uniform = new ZipfSampler(8, 0);
    for (int r = 1; r <= 8; r++) {
      assertThat(uniform.probability(r)).isCloseTo(0.125, within(1e-15));
    }
    long[] counts = draw(uniform, 80_000, 5);
    assertThat(chiSquare(uniform, counts, 80_000)).isLessThan(24.3); // 7 d.f., 0.999
    assertThat(draw(new ZipfSampler(1, 2), 100, 6)[1]).isEqualTo(100);
  }

  @Test
  void theSameSeedGivesTheSameRanks() {
    ZipfSampler zipf = new ZipfSampler(1000, 1.1);
    assertThat(draw(zipf, 10_000, 8)).isEqualTo(draw(zipf, 10_000, 8));
    assertThat(draw(zipf, 10_000, 8)).isNotEqualTo(draw(zipf, 10_000, 9));
  }

  @Test
  void rejectsBadParameters() {
    assertThatThrownBy(() -> new ZipfSampler(0, 1))
        .hasMessage("the number of ranks must be >= 1 but was 0");
    assertThatThrownBy(() -> new ZipfSampler(10, -0.5))
        .hasMessage("zipf exponent must be a finite number >= 0 but was -0.5");
    assertThatThrownBy(() -> new ZipfSampler(10, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
