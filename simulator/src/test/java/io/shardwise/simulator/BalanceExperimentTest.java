package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class BalanceExperimentTest {

  private static Report run(int[] ns, int[] vs, int rings, RunContext context) {
    return BalanceExperiment.run(new BalanceExperiment.Config(ns, vs, rings), context);
  }

  @Test
  void relativeStdIsWithinFifteenPercentOfTheBetaTheoryForAtLeastHundredPoints() {
    Table table =
        run(new int[] {10, 100, 1000}, new int[] {100, 160}, 20, TestRuns.context()).table();
    assertThat(table.rowCount()).isEqualTo(6);
    for (int r = 0; r < table.rowCount(); r++) {
      int n = (int) table.number(r, "n");
      int v = (int) table.number(r, "points_per_node");
      assertThat(table.number(r, "relative_std_theory"))
          .isCloseTo(Math.sqrt((n - 1) / (n * (double) v + 1)), within(1e-12));
      assertThat(table.number(r, "relative_std_median") / table.number(r, "relative_std_theory"))
          .as("n=%d V=%d", n, v)
          .isBetween(0.85, 1.15);
    }
  }

  @Test
  void peakOverMeanFollowsTheGammaPredictionAndStaysUnderTheRuleForLargeV() {
    Table table =
        run(new int[] {100, 1000}, new int[] {1, 100, 300}, 20, TestRuns.context()).table();
    for (int r = 0; r < table.rowCount(); r++) {
      double measured = table.number(r, "peak_over_mean_median");
      double gamma = table.number(r, "peak_gamma_median");
      // The excess over 1 within 20% of the Gamma-max prediction, at every V.
      assertThat((measured - 1) / (gamma - 1)).isBetween(0.8, 1.2);
      if (table.number(r, "points_per_node") >= 100) {
        assertThat(measured).isLessThanOrEqualTo(table.number(r, "peak_rule"));
      }
    }
    // With one point per node and 1000 nodes the rule 1 + sqrt(2 ln n) is far too low.
    assertThat(table.number(3, "peak_over_mean_median"))
        .isGreaterThan(table.number(3, "peak_rule") + 1);
  }

  @Test
  void resultsDependOnTheSeedOnlyNotOnTheThreads() {
    int[] ns = {10, 50};
    int[] vs = {1, 20};
    String one = run(ns, vs, 5, new RunContext(3, 1, Progress.none())).markdown();
    String two = run(ns, vs, 5, new RunContext(3, 2, Progress.none())).markdown();
    String otherSeed = run(ns, vs, 5, new RunContext(4, 2, Progress.none())).markdown();
    assertThat(two).isEqualTo(one);
    assertThat(otherSeed).isNotEqualTo(one);
  }
}
