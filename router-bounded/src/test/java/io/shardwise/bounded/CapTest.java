package io.shardwise.bounded;

import static io.shardwise.bounded.BoundedLoadSelector.cap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CapTest {

  @ParameterizedTest(name = "epsilon {0}, total {1}, weight {2}/{3} -> {4}")
  @CsvSource({
    // four equal nodes, epsilon 0.25: cap = ceil(0.3125 * (t + 1))
    "0.25, 0, 1, 4, 1",
    "0.25, 2, 1, 4, 1", // 0.9375
    "0.25, 3, 1, 4, 2", // 1.25
    "0.25, 6, 1, 4, 3", // 2.1875
    "0.25, 7, 1, 4, 3", // 2.5
    "0.25, 14, 1, 4, 5", // 4.6875
    "0.25, 15, 1, 4, 5", // exactly 5
    "0.25, 16, 1, 4, 6", // 5.3125
    // one node, epsilon 0.1: cap = ceil(1.1 * (t + 1))
    "0.1, 0, 1, 1, 2", // 1.1
    "0.1, 9, 1, 1, 11", // exactly 11
    "0.1, 10, 1, 1, 13", // 12.1
    // three equal nodes, epsilon 0.5: cap = ceil((t + 1) / 2)
    "0.5, 0, 1, 3, 1", // 0.5
    "0.5, 1, 1, 3, 1", // exactly 1
    "0.5, 2, 1, 3, 2", // 1.5
    "0.5, 5, 1, 3, 3", // exactly 3
    // epsilon 1 on a half: cap = t + 1
    "1.0, 0, 1, 2, 1",
    "1.0, 4, 1, 2, 5",
    "1.0, 99, 1, 2, 100",
    // weights 1, 2, 5 (sum 8), epsilon 0.25, total 15: 2.5, 5, 12.5
    "0.25, 15, 1, 8, 3",
    "0.25, 15, 2, 8, 5",
    "0.25, 15, 5, 8, 13",
    // large epsilon: the bound barely binds
    "3.0, 9, 1, 10, 4", // exactly 4
    "3.0, 10, 1, 10, 5", // 4.4
  })
  void capIsTheCeilingOfTheWeightedShareTimesOnePlusEpsilon(
      double epsilon, long total, int weight, int weightSum, long expected) {
    assertThat(cap(epsilon, total, weight / (double) weightSum)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "epsilon {0}, total {1}, weight {2}/{3} -> {4}")
  @CsvSource({
    "0.1, 49, 1, 1, 55",
    "0.1, 99, 1, 10, 11",
    "0.1, 99, 1, 5, 22",
    "0.1, 174, 2, 7, 55",
    "0.05, 95, 5, 8, 63",
    "0.3, 143, 5, 8, 117",
  })
  void capOfAnExactDecimalProductIsThatIntegerNotOneMore(
      double epsilon, long total, int weight, int weightSum, long expected) {
    double w = weight / (double) weightSum;
    // Plain double arithmetic lands just above the integer here, and Math.ceil adds one.
    assertThat((long) Math.ceil((1 + epsilon) * (total + 1.0) * w)).isEqualTo(expected + 1);
    assertThat(cap(epsilon, total, w)).isEqualTo(expected);
  }

  @Test
  void capMatchesExactDecimalArithmeticOverManySeededInputs() {
    String[] epsilons = {
      "0.01", "0.05", "0.1", "0.15", "0.2", "0.25", "0.3", "0.333", "0.5", "0.75", "1", "1.5",
      "2.125"
    };
    Random random = new Random(20180107);
    for (int i = 0; i < 50_000; i++) {
      BigDecimal epsilon = new BigDecimal(epsilons[random.nextInt(epsilons.length)]);
      long total = random.nextBoolean() ? random.nextInt(1_000) : random.nextInt(2_000_000);
      int weightSum = 1 + random.nextInt(1_000);
      int weight = 1 + random.nextInt(weightSum);
      long expected = exactCap(epsilon, total, weight, weightSum);
      assertThat(cap(epsilon.doubleValue(), total, weight / (double) weightSum))
          .as("cap(%s, %d, %d/%d)", epsilon, total, weight, weightSum)
          .isEqualTo(expected);
    }
  }

  @Test
  void capIsAtLeastOneAtZeroTotalAndTinyWeight() {
    assertThat(cap(0.01, 0, 1e-9)).isEqualTo(1);
    assertThat(cap(0.25, 0, 1.0 / 1000)).isEqualTo(1);
  }

  @Test
  void capIsNonDecreasingInTotal() {
    long previous = 0;
    for (long total = 0; total < 10_000; total++) {
      long current = cap(0.1, total, 3 / 7.0);
      assertThat(current).isGreaterThanOrEqualTo(previous);
      previous = current;
    }
  }

  @Test
  void capRejectsArgumentsOutOfRangeNamingValueAndRule() {
    assertThatThrownBy(() -> cap(-0.1, 0, 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be > 0 but was -0.1");
    assertThatThrownBy(() -> cap(Double.NaN, 0, 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be > 0 but was NaN");
    assertThatThrownBy(() -> cap(Double.POSITIVE_INFINITY, 0, 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be finite but was Infinity");
    assertThatThrownBy(() -> cap(0.25, -1, 0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("total load must be >= 0 but was -1");
    assertThatThrownBy(() -> cap(0.25, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("normalised weight must be in (0, 1] but was 0.0");
    assertThatThrownBy(() -> cap(0.25, 0, 1.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("normalised weight must be in (0, 1] but was 1.5");
    assertThatThrownBy(() -> cap(0.25, 0, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("normalised weight must be in (0, 1] but was NaN");
  }

  /** ceil((1 + epsilon) * (total + 1) * weight / weightSum) in exact rational arithmetic. */
  private static long exactCap(BigDecimal epsilon, long total, long weight, long weightSum) {
    BigDecimal numerator =
        BigDecimal.ONE
            .add(epsilon)
            .multiply(BigDecimal.valueOf(total + 1))
            .multiply(BigDecimal.valueOf(weight));
    BigInteger cap =
        numerator.divide(BigDecimal.valueOf(weightSum), 0, RoundingMode.CEILING)
            .toBigIntegerExact();
    return cap.longValueExact();
  }
}
