package io.shardwise.simulator;

import io.shardwise.routers.MaglevRouter;
import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code maglev}: the setting of Figure 12 of the Maglev paper (Eisenbud et al., NSDI 2016): a
 * table over 1000 backends, k of them removed at once, and the fraction of table entries whose
 * backend changed, next to the optimum, the share of the table the removed backends owned.
 */
final class MaglevExperiment {

  static final String NAME = "maglev";
  private static final long TAG = 4;

  record Config(int backends, int[] tableSizes, int[] removals, int trials) {
    static Config defaults() {
      return new Config(
          1000, new int[] {65537, 655373}, new int[] {1, 2, 5, 10, 20, 50, 100, 200, 500}, 20);
    }
  }

  private MaglevExperiment() {}

  static Report run(Config config, RunContext context) {
    int n = config.backends();
    int[] sizes = config.tableSizes();
    int[] ks = config.removals();
    int trials = config.trials();
    long seed = context.seed();
    for (int k : ks) {
      if (k < 1 || k >= n) {
        throw new IllegalArgumentException(
            "backends removed must be in 1.." + (n - 1) + " but was " + k);
      }
    }
    // results[task][ki] = {changed slots, slots of the removed backends}, as fractions.
    List<double[][]> results =
        context.parallel(
            NAME,
            trials * sizes.length,
            task -> {
              int trial = task / sizes.length;
              int tableSize = sizes[task % sizes.length];
              List<Node> nodes =
                  Fleet.of("s" + seed + "-t" + trial, Seeds.random(seed, TAG, trial)).nodes(n);
              MaglevRouter base = new MaglevRouter(nodes, tableSize);
              int[] owners = new int[tableSize];
              for (int s = 0; s < tableSize; s++) {
                owners[s] = base.slotOwner(s);
              }
              int[] counts = base.slotCounts();
              double[][] out = new double[ks.length][];
              for (int ki = 0; ki < ks.length; ki++) {
                boolean[] removed = pick(n, ks[ki], Seeds.random(seed, TAG, trial, ks[ki]));
                List<Node> rest = new ArrayList<>(n - ks[ki]);
                int[] original = new int[n - ks[ki]];
                long optimum = 0;
                for (int i = 0; i < n; i++) {
                  if (removed[i]) {
                    optimum += counts[i];
                  } else {
                    original[rest.size()] = i;
                    rest.add(nodes.get(i));
                  }
                }
                MaglevRouter shrunk = new MaglevRouter(rest, tableSize);
                long changed = 0;
                for (int s = 0; s < tableSize; s++) {
                  if (original[shrunk.slotOwner(s)] != owners[s]) {
                    changed++;
                  }
                }
                out[ki] = new double[] {changed / (double) tableSize, optimum / (double) tableSize};
              }
              return out;
            });

    Table table = new Table().integer("k removed", "k").percent("k/n", "k_over_n", 2);
    for (int size : sizes) {
      table
          .percent("M=" + size + ": removed share", "optimum_m" + size, 3)
          .percent("M=" + size + ": changed", "changed_m" + size, 3)
          .decimal("M=" + size + ": changed/optimum", "ratio_m" + size, 3);
    }
    double[][] changedMean = new double[sizes.length][ks.length];
    double[][] optimumMean = new double[sizes.length][ks.length];
    for (int ki = 0; ki < ks.length; ki++) {
      List<Object> row = new ArrayList<>();
      row.add(ks[ki]);
      row.add(ks[ki] / (double) n);
      for (int si = 0; si < sizes.length; si++) {
        double changed = 0;
        double optimum = 0;
        for (int t = 0; t < trials; t++) {
          double[] r = results.get(t * sizes.length + si)[ki];
          changed += r[0];
          optimum += r[1];
        }
        changedMean[si][ki] = changed / trials;
        optimumMean[si][ki] = optimum / trials;
        row.add(optimumMean[si][ki]);
        row.add(changedMean[si][ki]);
        row.add(changed / optimum);
      }
      table.row(row.toArray());
    }

    List<String> setup =
        List.of(
            n
                + " backends (names `s"
                + seed
                + "-t<trial>-n<i>`), table sizes M = "
                + join(sizes)
                + "; k random backends removed at once and the table rebuilt for the rest. "
                + trials
                + " trials, seed "
                + seed
                + "; every trial uses one fleet and one set of removed backends for all M. A table"
                + " entry has changed when its slot's backend differs; the optimum is the share"
                + " of slots the removed backends owned, which must change. Means over the"
                + " trials; changed/optimum is the ratio of the means.");
    return new Report(
        NAME,
        "maglev: table entries changed when k of " + n + " backends are removed",
        setup,
        table,
        List.of(),
        () -> chart(n, sizes, ks, changedMean, optimumMean));
  }

  /** A set of {@code k} distinct indexes of {@code 0..n-1}, by a partial Fisher-Yates shuffle. */
  static boolean[] pick(int n, int k, SplittableRandom random) {
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    boolean[] picked = new boolean[n];
    for (int i = 0; i < k; i++) {
      int j = i + random.nextInt(n - i);
      int t = order[i];
      order[i] = order[j];
      order[j] = t;
      picked[order[i]] = true;
    }
    return picked;
  }

  private static String join(int[] values) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < values.length; i++) {
      sb.append(i == 0 ? "" : " and ").append(values[i]);
    }
    return sb.toString();
  }

  private static org.jfree.chart.JFreeChart chart(
      int n, int[] sizes, int[] ks, double[][] changed, double[][] optimum) {
    double[] xs = new double[ks.length];
    for (int i = 0; i < ks.length; i++) {
      xs[i] = ks[i];
    }
    List<Charts.Line> lines = new ArrayList<>();
    for (int si = 0; si < sizes.length; si++) {
      lines.add(
          new Charts.Line(
              "changed, M = " + sizes[si], xs, percent(changed[si]), si, Charts.Style.SOLID));
    }
    lines.add(
        new Charts.Line(
            "optimum (removed backends' share)",
            xs,
            percent(optimum[0]),
            sizes.length,
            Charts.Style.DASHED));
    return Charts.lines(
        "Maglev: table entries changed when k of " + n + " backends are removed",
        "backends removed k",
        true,
        "entries changed (%)",
        true,
        lines);
  }

  private static double[] percent(double[] fractions) {
    double[] out = new double[fractions.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = 100 * fractions[i];
    }
    return out;
  }
}
