package io.shardwise.simulator;

import io.shardwise.ketama.HashRingRouter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code balance}: how evenly a hash ring with V points per node splits the circle, from each
 * node's exact arc share ({@link HashRingRouter#ownership()}, no key sampling), next to the
 * Beta-distribution theory (Karger et al.; design notes, section 4).
 */
final class BalanceExperiment {

  static final String NAME = "balance";
  private static final long TAG = 1;

  /** Node counts, points per node, and rings (seeds) per cell. */
  record Config(int[] nodeCounts, int[] pointsPerNode, int rings) {
    static Config defaults() {
      return new Config(
          new int[] {10, 100, 1000}, new int[] {1, 10, 100, 160, 200, 1000, 1024}, 20);
    }
  }

  private BalanceExperiment() {}

  static Report run(Config config, RunContext context) {
    int[] ns = config.nodeCounts();
    int[] vs = config.pointsPerNode();
    int rings = config.rings();
    long seed = context.seed();
    List<LoadStats> results =
        context.parallel(
            NAME,
            ns.length * vs.length * rings,
            task -> {
              int ring = task % rings;
              int cell = task / rings;
              int n = ns[cell / vs.length];
              int v = vs[cell % vs.length];
              Fleet fleet =
                  Fleet.of(
                      "s" + seed + "-N" + n + "-V" + v + "-t" + ring,
                      Seeds.random(seed, TAG, n, v, ring));
              return LoadStats.of(HashRingRouter.create(fleet.nodes(n), v).ownership());
            });

    Table table =
        new Table()
            .integer("n", "n")
            .integer("V", "points_per_node")
            .decimal("peak/mean", "peak_over_mean_median", 3)
            .decimal("1 + sqrt(2 ln n / V)", "peak_rule", 3)
            .decimal("Gamma-max median", "peak_gamma_median", 3)
            .decimal("rel. std", "relative_std_median", 4)
            .decimal("sqrt((n-1)/(nV+1))", "relative_std_theory", 4)
            .decimal("rel. std / theory", "relative_std_ratio", 3);
    double[][] peak = new double[ns.length][vs.length];
    for (int ni = 0; ni < ns.length; ni++) {
      for (int vi = 0; vi < vs.length; vi++) {
        int cell = ni * vs.length + vi;
        double[] peaks = new double[rings];
        double[] stds = new double[rings];
        for (int r = 0; r < rings; r++) {
          LoadStats stats = results.get(cell * rings + r);
          peaks[r] = stats.peakOverMean();
          stds[r] = stats.relativeStd();
        }
        int n = ns[ni];
        int v = vs[vi];
        peak[ni][vi] = LoadStats.median(peaks);
        double std = LoadStats.median(stds);
        double theory = Theory.ringRelativeStd(n, v);
        table.row(
            n,
            v,
            peak[ni][vi],
            Theory.ringPeakRule(n, v),
            Theory.gammaPeakMedian(n, v),
            std,
            theory,
            std / theory);
      }
    }

    List<String> setup =
        List.of(
            "Hash ring (`HashRingRouter`, Murmur3 points on the 64-bit circle) with n nodes of V"
                + " points each; each node's exact share of the circle from `ownership()` (no keys"
                + " are sampled). "
                + rings
                + " rings per cell, node names `s<seed>-N<n>-V<V>-t<ring>-n<i>`; seed "
                + seed
                + ". Measured columns are medians over the rings.",
            "Theory: a share is Beta(V, (n-1)V), relative std `sqrt((n-1)/(nV+1))`; peak/mean by"
                + " the rule `1 + sqrt(2 ln n / V)`, and by the median of the largest of n Gamma(V)"
                + " variables over V (each share is a sum of V exponential gaps).");
    return new Report(
        NAME,
        "balance: ring peak/mean and spread by points per node (exact arcs)",
        setup,
        table,
        List.of(),
        () -> chart(ns, vs, peak));
  }

  private static org.jfree.chart.JFreeChart chart(int[] ns, int[] vs, double[][] peak) {
    double[] xs = new double[vs.length];
    for (int vi = 0; vi < vs.length; vi++) {
      xs[vi] = vs[vi];
    }
    // Predictions on a fine grid of V, so the curves are smooth between the measured points.
    int steps = 61;
    double[] grid = new double[steps];
    double lo = Math.log(vs[0]);
    double hi = Math.log(vs[vs.length - 1]);
    for (int i = 0; i < steps; i++) {
      grid[i] = Math.exp(lo + (hi - lo) * i / (steps - 1));
    }
    List<Charts.Line> lines = new ArrayList<>();
    for (int ni = 0; ni < ns.length; ni++) {
      int n = ns[ni];
      double[] rule = new double[steps];
      double[] gamma = new double[steps];
      for (int i = 0; i < steps; i++) {
        rule[i] = Theory.ringPeakRule(n, grid[i]) - 1;
        gamma[i] = Theory.gammaPeakMedian(n, grid[i]) - 1;
      }
      double[] excess = new double[vs.length];
      for (int vi = 0; vi < vs.length; vi++) {
        excess[vi] = peak[ni][vi] - 1;
      }
      lines.add(new Charts.Line("n = " + n + " measured", xs, excess, ni, Charts.Style.SOLID));
      lines.add(
          new Charts.Line(
              "n = " + n + ": 1 + sqrt(2 ln n / V)", grid, rule, ni, Charts.Style.DASHED));
      lines.add(
          new Charts.Line("n = " + n + ": Gamma-max median", grid, gamma, ni, Charts.Style.DOTTED));
    }
    return Charts.lines(
        "Ring: peak/mean - 1 (median of rings) by points per node",
        "points per node V",
        true,
        "peak/mean - 1 (log scale)",
        true,
        lines);
  }
}
