package io.shardwise.simulator;

import io.shardwise.ketama.KetamaRouter;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code compare}: the load of every router over the same n nodes and the same random keys:
 * peak/mean, relative standard deviation and min/mean of the keys per node.
 */
final class CompareExperiment {

  static final String NAME = "compare";
  private static final long TAG = 2;

  /** Keys are drawn in this many fixed chunks, each from its own stream, for parallel counting. */
  private static final int CHUNKS = 16;

  record Config(int nodes, long keys, List<RouterChoice> routers) {
    static Config defaults() {
      return new Config(100, 10_000_000L, allRouters());
    }

    static List<RouterChoice> allRouters() {
      return List.of(
          RouterChoice.modulo(),
          RouterChoice.ring(160),
          RouterChoice.ketama(),
          RouterChoice.hrw(),
          RouterChoice.jump(),
          RouterChoice.multiProbe(2),
          RouterChoice.multiProbe(21),
          RouterChoice.maglev(65537));
    }
  }

  private CompareExperiment() {}

  static Report run(Config config, RunContext context) {
    int n = config.nodes();
    long keys = config.keys();
    long seed = context.seed();
    List<Node> nodes = Fleet.of("s" + seed, Seeds.random(seed, TAG, -1)).nodes(n);
    List<RouterChoice> choices = config.routers();
    List<Router> routers = new ArrayList<>();
    for (RouterChoice choice : choices) {
      routers.add(choice.build(nodes));
    }
    List<long[]> counts =
        context.parallel(
            NAME,
            choices.size() * CHUNKS,
            task -> {
              Router router = routers.get(task / CHUNKS);
              int chunk = task % CHUNKS;
              long[] perNode = new long[n];
              SplittableRandom random = Seeds.random(seed, TAG, chunk);
              long count = keys / CHUNKS + (chunk < keys % CHUNKS ? 1 : 0);
              for (long k = 0; k < count; k++) {
                perNode[router.primary(random.nextLong())]++;
              }
              return perNode;
            });

    Table table =
        new Table()
            .text("router", "router")
            .decimal("peak/mean", "peak_over_mean", 4)
            .decimal("min/mean", "min_over_mean", 4)
            .decimal("rel. std", "relative_std", 4)
            .decimal("predicted rel. std", "relative_std_predicted", 4)
            .decimal("predicted peak/mean", "peak_over_mean_predicted", 4);
    double sampling = (n - 1) / (double) keys;
    List<String> labels = new ArrayList<>();
    List<double[]> sortedLoads = new ArrayList<>();
    for (int r = 0; r < choices.size(); r++) {
      long[] total = new long[n];
      for (int c = 0; c < CHUNKS; c++) {
        long[] part = counts.get(r * CHUNKS + c);
        for (int i = 0; i < n; i++) {
          total[i] += part[i];
        }
      }
      LoadStats stats = LoadStats.of(total);
      RouterChoice choice = choices.get(r);
      double structural = structuralVariance(choice, routers.get(r));
      Double predictedStd = null;
      double predictedPeak;
      if (Double.isNaN(structural)) {
        int k = choice.parameter();
        predictedPeak = k / (k - 1.0);
      } else {
        predictedStd = Math.sqrt(structural + sampling);
        predictedPeak = Theory.gammaPeakMedian(n, 1 / (structural + sampling));
      }
      table.row(
          choice.label(),
          stats.peakOverMean(),
          stats.minOverMean(),
          stats.relativeStd(),
          predictedStd,
          predictedPeak);
      labels.add(choice.label());
      sortedLoads.add(sortedOverMean(total));
    }

    List<String> setup =
        List.of(
            "n = "
                + n
                + " nodes (names `s"
                + seed
                + "-n<i>`, random 10.x.y.z:11211 addresses), "
                + keys
                + " keys: random 64-bit hashes from a SplittableRandom seeded from seed "
                + seed
                + ", passed to `Router.primary(long)` (ketama uses their low 32 bits). One fleet,"
                + " the same keys for every router.");
    List<String> notes =
        List.of(
            "Predictions: key sampling alone gives a relative std of `sqrt((n-1)/keys)` = "
                + String.format(java.util.Locale.ROOT, "%.4f", Math.sqrt(sampling))
                + "; a ring adds its share variance `(n-1)/(nV+1)` (ketama: V = its 160 points),"
                + " Maglev the exact variance of its slot counts, modulo, HRW and jump nothing."
                + " Predicted peak/mean is the median of the largest of n Gamma loads with that"
                + " relative variance; for multi-probe it is the rule K/(K-1) of the design notes"
                + " (no std prediction).");
    return new Report(
        NAME,
        "compare: load per node for every router, n = " + n,
        setup,
        table,
        notes,
        () -> chart(n, keys, labels, sortedLoads));
  }

  /** Loads over their mean, largest first. */
  static double[] sortedOverMean(long[] loads) {
    double sum = 0;
    for (long x : loads) {
      sum += x;
    }
    double mean = sum / loads.length;
    double[] sorted = new double[loads.length];
    for (int i = 0; i < loads.length; i++) {
      sorted[i] = loads[i] / mean;
    }
    java.util.Arrays.sort(sorted);
    for (int i = 0, j = sorted.length - 1; i < j; i++, j--) {
      double t = sorted[i];
      sorted[i] = sorted[j];
      sorted[j] = t;
    }
    return sorted;
  }

  /**
   * The relative variance of a node's expected share due to placement alone, or NaN when no
   * prediction is made (multi-probe).
   */
  static double structuralVariance(RouterChoice choice, Router router) {
    int n = router.size();
    switch (choice.family()) {
      case RING:
        return square(Theory.ringRelativeStd(n, choice.parameter()));
      case KETAMA:
        {
          KetamaRouter ketama = (KetamaRouter) router;
          double points = 0;
          for (int i = 0; i < n; i++) {
            points += ketama.pointsOf(i);
          }
          return square(Theory.ringRelativeStd(n, points / n));
        }
      case MAGLEV:
        return square(LoadStats.of(((MaglevRouter) router).slotCounts()).relativeStd());
      case MULTIPROBE:
        return Double.NaN;
      default:
        return 0;
    }
  }

  private static double square(double x) {
    return x * x;
  }

  /** Each router's loads over the mean, sorted from the most loaded node down. */
  private static org.jfree.chart.JFreeChart chart(
      int n, long keys, List<String> labels, List<double[]> sortedLoads) {
    double[] ranks = new double[n];
    for (int i = 0; i < n; i++) {
      ranks[i] = i + 1;
    }
    List<Charts.Line> lines = new ArrayList<>();
    for (int r = 0; r < labels.size(); r++) {
      lines.add(new Charts.Line(labels.get(r), ranks, sortedLoads.get(r), r, Charts.Style.SOLID));
    }
    return Charts.lines(
        "Keys per node over the mean, nodes sorted by load (n = " + n + ", " + keys + " keys)",
        "node rank by load",
        false,
        "load / mean",
        false,
        lines);
  }
}
