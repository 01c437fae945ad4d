package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class TheoryTest {

  @Test
  void upperIncompleteGammaMatchesClosedForms() {
    for (double x : new double[] {0.01, 0.5, 1, 2, 5, 10, 30}) {
      assertThat(Theory.gammaQ(1, x)).isCloseTo(Math.exp(-x), within(1e-12));
      assertThat(Theory.gammaQ(3, x)).isCloseTo(Math.exp(-x) * (1 + x + x * x / 2), within(1e-12));
    }
    // Gamma(1024) is nearly normal: Q(a, a + 3 sqrt(a)) is close to 1 - Phi(3) = 0.00135.
    assertThat(Theory.gammaQ(1024, 1024 + 3 * 32)).isBetween(0.0013, 0.0018);
    assertThat(Theory.logGamma(5)).isCloseTo(Math.log(24), within(1e-12));
    assertThat(Theory.logGamma(0.5)).isCloseTo(0.5 * Math.log(Math.PI), within(1e-12));
  }

  @Test
  void gammaPeakMedianIsTheMedianOfTheLargestExponentialForOnePoint() {
    for (int n : new int[] {2, 10, 1000}) {
      double exact = -Math.log(1 - Math.pow(2, -1.0 / n));
      assertThat(Theory.gammaPeakMedian(n, 1)).isCloseTo(exact, within(1e-9));
    }
    assertThat(Theory.gammaPeakMedian(1, 5)).isEqualTo(1);
  }

  @Test
  void normalHelpersMatchTables() {
    assertThat(Theory.erfc(0)).isCloseTo(1, within(1e-7));
    assertThat(Theory.erfc(1)).isCloseTo(0.1572992070, within(1e-7));
    assertThat(Theory.normalUpperTail(1.959964)).isCloseTo(0.025, within(1e-7));
    assertThat(Theory.normalMaxMedian(1)).isCloseTo(0, within(1e-6));
    // Phi(z)^2 = 1/2 at z = Phi^-1(0.7071068) = 0.5448.
    assertThat(Theory.normalMaxMedian(2)).isCloseTo(0.5448, within(1e-3));
  }

  @Test
  void ringAndJumpFormulas() {
    assertThat(Theory.ringRelativeStd(100, 160)).isCloseTo(Math.sqrt(99.0 / 16001), within(1e-15));
    assertThat(Theory.ringPeakRule(1000, 1024)).isCloseTo(1.1161, within(1e-4));
    assertThat(Theory.ringPeakRule(10, 1024)).isCloseTo(1.0671, within(1e-4));
    assertThat(Theory.harmonic(4)).isCloseTo(25.0 / 12, within(1e-15));
    assertThat(Theory.jumpExpectedLoops(100_000)).isLessThan(Theory.jumpLoopBound(100_000));
  }
}
