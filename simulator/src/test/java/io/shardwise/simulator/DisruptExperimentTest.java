package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DisruptExperimentTest {

  @Test
  void consistentRoutersMoveOnlyTheKeysTheyMustAndModuloMovesAlmostAll() {
    int n = 20;
    Table table =
        DisruptExperiment.run(
                new DisruptExperiment.Config(n, 40_000, 3, CompareExperiment.Config.allRouters()),
                TestRuns.context())
            .table();
    assertThat(table.rowCount()).isEqualTo(8);
    for (int r = 0; r < table.rowCount(); r++) {
      String router = (String) table.value(r, "router");
      double removedShare = table.number(r, "removal_needed");
      double newShare = table.number(r, "addition_needed");
      assertThat(removedShare).as(router).isBetween(0.3 / n, 3.0 / n);
      assertThat(newShare).as(router).isBetween(0.3 / (n + 1), 3.0 / (n + 1));
      switch (router) {
        case "modulo":
          // n -> n-1 and n -> n+1 keep only about 1/n of the keys in place.
          assertThat(table.number(r, "removal_moved")).isGreaterThan(0.9);
          assertThat(table.number(r, "addition_moved")).isGreaterThan(0.9);
          break;
        case "Maglev M=65537":
          assertThat(table.number(r, "removal_excess")).isBetween(1e-4, removedShare);
          assertThat(table.number(r, "addition_excess")).isBetween(1e-4, newShare);
          break;
        default:
          assertThat(table.number(r, "removal_excess")).as(router).isZero();
          assertThat(table.number(r, "addition_excess")).as(router).isZero();
      }
    }
  }
}
