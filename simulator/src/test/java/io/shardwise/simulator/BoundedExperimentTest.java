package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.bounded.BoundedLoadSelector;
import io.shardwise.ketama.HashRingRouter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BoundedExperimentTest {

  @Test
  void boundedPeakOverMeanStaysWithinOnePlusEpsilonWhileThePlainRingIsSeveralTimesTheMean() {
    int n = 20;
    int requests = 100_000;
    double[] epsilons = {0.05, 0.25, 0.5};
    Table table =
        BoundedExperiment.run(
                new BoundedExperiment.Config(n, 100, 5_000, requests, 1.1, epsilons),
                TestRuns.context())
            .table();
    assertThat(table.rowCount()).isEqualTo(4);
    assertThat(table.number(0, "peak_over_mean")).isGreaterThan(3);
    assertThat(table.number(0, "overflow_fraction")).isZero();
    double meanLoad = requests / (double) n;
    for (int i = 0; i < epsilons.length; i++) {
      int r = i + 1;
      assertThat(table.number(r, "bound")).isEqualTo(1 + epsilons[i]);
      assertThat(table.number(r, "peak_over_mean"))
          .isLessThanOrEqualTo(1 + epsilons[i] + 1 / meanLoad);
      assertThat(table.number(r, "over_cap")).isZero();
      assertThat(table.number(r, "overflow_fraction")).isBetween(0.0, 1.0);
      assertThat(table.number(r, "mean_probes")).isGreaterThan(1);
    }
    // A tighter cap spills more, and probes further.
    assertThat(table.number(1, "overflow_fraction"))
        .isGreaterThan(table.number(3, "overflow_fraction"));
    assertThat(table.number(1, "mean_probes")).isGreaterThan(table.number(3, "mean_probes"));
  }

  @Test
  void noNodeEverExceedsTheCapOfTheSelectorWithProbeLimitN() {
    int n = 10;
    HashRingRouter ring =
        HashRingRouter.create(Fleet.of("cap", new SplittableRandom(5)).nodes(n), 50);
    BoundedLoadSelector selector = BoundedLoadSelector.of(ring, 0.1, n);
    ZipfSampler zipf = new ZipfSampler(500, 1.3);
    SplittableRandom random = new SplittableRandom(9);
    long[] keys = random.longs(500).toArray();
    BoundedExperiment.CountingLoads loads = new BoundedExperiment.CountingLoads(n);
    io.shardwise.bounded.Selection selection = new io.shardwise.bounded.Selection();
    for (int r = 0; r < 20_000; r++) {
      long total = loads.total();
      int node = selector.select(keys[zipf.sample(random) - 1], loads, selection);
      assertThat(loads.load(node)).isLessThan(selector.cap(node, total));
      loads.add(node);
    }
  }
}
