package io.shardwise.simulator;

import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code small}: small fleets, where a ring without virtual nodes is badly balanced: imbalance
 * (peak/mean of keys per node) and the keys moved when one node is added.
 */
final class SmallExperiment {

  static final String NAME = "small";
  private static final long TAG = 7;

  record Config(int[] nodeCounts, int keys, int trials, List<RouterChoice> routers) {
    static Config defaults() {
      return new Config(
          new int[] {5, 10, 20},
          100_000,
          100,
          List.of(
              RouterChoice.ring(1),
              RouterChoice.ring(150),
              RouterChoice.jump(),
              RouterChoice.hrw(),
              RouterChoice.maglev(65537)));
    }
  }

  private SmallExperiment() {}

  static Report run(Config config, RunContext context) {
    int[] ns = config.nodeCounts();
    int keys = config.keys();
    int trials = config.trials();
    List<RouterChoice> choices = config.routers();
    long seed = context.seed();
    // results[ni * trials + t][r] = {peak/mean, moved on addition, new node's share}
    List<double[][]> results =
        context.parallel(
            NAME,
            ns.length * trials,
            task -> {
              int n = ns[task / trials];
              int trial = task % trials;
              Fleet fleet =
                  Fleet.of("s" + seed + "-N" + n + "-t" + trial, Seeds.random(seed, TAG, n, trial));
              List<Node> nodes = fleet.nodes(n);
              List<Node> grown = Fleet.with(nodes, fleet.node());
              double[][] out = new double[choices.size()][];
              for (int r = 0; r < choices.size(); r++) {
                out[r] =
                    measure(
                        choices.get(r).build(nodes),
                        choices.get(r).build(grown),
                        keys,
                        Seeds.random(seed, TAG, n, trial, -1));
              }
              return out;
            });

    Table table =
        new Table()
            .integer("n", "n")
            .text("router", "router")
            .decimal("peak/mean (median)", "peak_over_mean_median", 3)
            .decimal("predicted median", "peak_over_mean_predicted", 3)
            .decimal("peak/mean (worst)", "peak_over_mean_worst", 3)
            .percent("moved on add", "moved_on_addition", 2)
            .percent("excess", "excess_on_addition", 3)
            .percent("1/(n+1)", "optimum", 2);
    double[][] bars = new double[choices.size()][ns.length];
    List<String> categories = new ArrayList<>();
    for (int ni = 0; ni < ns.length; ni++) {
      int n = ns[ni];
      categories.add("n = " + n);
      for (int r = 0; r < choices.size(); r++) {
        double[] peaks = new double[trials];
        double moved = 0;
        double needed = 0;
        for (int t = 0; t < trials; t++) {
          double[] m = results.get(ni * trials + t)[r];
          peaks[t] = m[0];
          moved += m[1];
          needed += m[2];
        }
        RouterChoice choice = choices.get(r);
        double sampling = (n - 1) / (double) keys;
        double structural =
            choice.family() == RouterChoice.Family.RING ? 1.0 / choice.parameter() : 0;
        double median = LoadStats.median(peaks);
        table.row(
            n,
            choice.label(),
            median,
            Theory.gammaPeakMedian(n, 1 / (structural + sampling)),
            LoadStats.max(peaks),
            moved / trials,
            (moved - needed) / trials,
            1.0 / (n + 1));
        bars[r][ni] = median;
      }
    }

    List<String> setup =
        List.of(
            "n nodes, "
                + keys
                + " keys (random 64-bit hashes passed to `Router.primary(long)`), "
                + trials
                + " trials per n (a new fleet each, names `s"
                + seed
                + "-N<n>-t<trial>-n<i>`), seed "
                + seed
                + ". Peak/mean is the most loaded node's keys over the mean; median and worst over"
                + " the trials. Then one node with a new name joins at the end of the list: moved"
                + " is the mean fraction of keys whose node changed, excess the part of it that"
                + " moved between old nodes.",
            "Prediction: the median of the largest of n Gamma loads with relative variance 1/V"
                + " (ring; V = 1 gives exponential shares, the gaps between n random points) plus"
                + " (n-1)/keys (key sampling, all routers).");
    List<String> labels = new ArrayList<>();
    for (RouterChoice choice : choices) {
      labels.add(choice.label());
    }
    return new Report(
        NAME,
        "small: small fleets, imbalance and keys moved on growth",
        setup,
        table,
        List.of(),
        () ->
            Charts.bars(
                "Peak/mean of keys per node, median of " + trials + " fleets",
                "fleet size",
                categories,
                "peak / mean",
                false,
                labels,
                bars));
  }

  /**
   * {peak/mean of keys on {@code base}, fraction moved to {@code grown}, fraction on its new node}.
   */
  private static double[] measure(Router base, Router grown, int keys, SplittableRandom random) {
    int n = base.size();
    long[] counts = new long[n];
    long moved = 0;
    long onNew = 0;
    for (int k = 0; k < keys; k++) {
      long hash = random.nextLong();
      int before = base.primary(hash);
      int after = grown.primary(hash);
      counts[before]++;
      if (after != before) {
        moved++;
      }
      if (after == n) {
        onNew++;
      }
    }
    return new double[] {
      LoadStats.of(counts).peakOverMean(), moved / (double) keys, onNew / (double) keys
    };
  }
}
