package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompareExperimentTest {

  @Test
  void everyRouterIsAsBalancedAsItsTheorySays() {
    int n = 20;
    long keys = 400_000;
    Table table =
        CompareExperiment.run(
                new CompareExperiment.Config(n, keys, CompareExperiment.Config.allRouters()),
                TestRuns.context())
            .table();
    Map<String, Integer> rows = new HashMap<>();
    for (int r = 0; r < table.rowCount(); r++) {
      rows.put((String) table.value(r, "router"), r);
    }
    assertThat(rows.keySet())
        .containsExactlyInAnyOrder(
            "modulo",
            "ring V=160",
            "ketama (libketama)",
            "HRW",
            "jump",
            "multi-probe K=2",
            "multi-probe K=21",
            "Maglev M=65537");
    double sampling = Math.sqrt((n - 1) / (double) keys);
    for (String ideal : new String[] {"modulo", "HRW", "jump", "Maglev M=65537"}) {
      int r = rows.get(ideal);
      // Only key sampling: no node further than 5 standard deviations from the mean.
      assertThat(table.number(r, "peak_over_mean")).as(ideal).isLessThan(1 + 5 * sampling);
      assertThat(table.number(r, "min_over_mean")).as(ideal).isGreaterThan(1 - 5 * sampling);
      assertThat(table.number(r, "relative_std") / table.number(r, "relative_std_predicted"))
          .as(ideal)
          .isBetween(0.6, 1.4);
    }
    for (String ring : new String[] {"ring V=160", "ketama (libketama)"}) {
      int r = rows.get(ring);
      assertThat(table.number(r, "relative_std") / table.number(r, "relative_std_predicted"))
          .as(ring)
          .isBetween(0.6, 1.4);
    }
    int k2 = rows.get("multi-probe K=2");
    int k21 = rows.get("multi-probe K=21");
    assertThat(table.value(k21, "relative_std_predicted")).isNull();
    assertThat(table.number(k21, "peak_over_mean")).isLessThan(1.15);
    assertThat(table.number(k2, "peak_over_mean")).isBetween(1.3, 2.5);
  }

  @Test
  void sortedOverMeanIsDescendingAndAveragesOne() {
    double[] sorted = CompareExperiment.sortedOverMean(new long[] {3, 1, 4, 1, 6});
    assertThat(sorted).containsExactly(2.0, 4 / 3.0, 1.0, 1 / 3.0, 1 / 3.0);
  }
}
