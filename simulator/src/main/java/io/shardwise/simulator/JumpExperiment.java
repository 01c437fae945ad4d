package io.shardwise.simulator;

import io.shardwise.routers.JumpRouter;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code jump}: the average number of loop iterations of jump consistent hash per lookup ({@link
 * JumpRouter#loopIterations}), next to Lamping and Veach's bound {@code ln n + 1} and the exact
 * expectation H_n.
 */
final class JumpExperiment {

  static final String NAME = "jump";
  private static final long TAG = 5;
  private static final int CHUNKS = 4;

  record Config(int[] bucketCounts, int keys) {
    static Config defaults() {
      return new Config(
          new int[] {10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000},
          1_000_000);
    }
  }

  private JumpExperiment() {}

  static Report run(Config config, RunContext context) {
    int[] ns = config.bucketCounts();
    int keys = config.keys();
    long seed = context.seed();
    List<long[]> sums =
        context.parallel(
            NAME,
            ns.length * CHUNKS,
            task -> {
              int n = ns[task / CHUNKS];
              int chunk = task % CHUNKS;
              SplittableRandom random = Seeds.random(seed, TAG, chunk);
              int count = keys / CHUNKS + (chunk < keys % CHUNKS ? 1 : 0);
              long sum = 0;
              long squares = 0;
              for (int k = 0; k < count; k++) {
                long loops = JumpRouter.loopIterations(random.nextLong(), n);
                sum += loops;
                squares += loops * loops;
              }
              return new long[] {sum, squares};
            });

    Table table =
        new Table()
            .integer("n", "n")
            .decimal("mean loops", "mean_loops", 4)
            .decimal("std. error", "std_error", 4)
            .decimal("H_n (expected)", "harmonic_n", 4)
            .decimal("ln n + 1 (bound)", "ln_n_plus_1", 4);
    double[] xs = new double[ns.length];
    double[] means = new double[ns.length];
    double[] expected = new double[ns.length];
    double[] bound = new double[ns.length];
    for (int ni = 0; ni < ns.length; ni++) {
      long sum = 0;
      long squares = 0;
      for (int c = 0; c < CHUNKS; c++) {
        long[] part = sums.get(ni * CHUNKS + c);
        sum += part[0];
        squares += part[1];
      }
      double mean = sum / (double) keys;
      double variance = squares / (double) keys - mean * mean;
      int n = ns[ni];
      xs[ni] = n;
      means[ni] = mean;
      expected[ni] = Theory.jumpExpectedLoops(n);
      bound[ni] = Theory.jumpLoopBound(n);
      table.row(n, mean, Math.sqrt(variance / keys), expected[ni], bound[ni]);
    }

    List<String> setup =
        List.of(
            keys
                + " keys (random 64-bit hashes from a SplittableRandom seeded from seed "
                + seed
                + ", the same keys for every n). Loop iterations per lookup counted by"
                + " `JumpRouter.loopIterations`, which walks the chain of buckets the real"
                + " `jump` loop visits.",
            "Theory: growing from b to b+1 buckets moves a key with probability 1/(b+1), so the"
                + " loop visits H_n - 1 buckets on average and runs once more to stop: H_n = ln n +"
                + " 0.5772... + O(1/n) iterations, below the paper's bound ln n + 1.");
    return new Report(
        NAME,
        "jump: loop iterations per lookup",
        setup,
        table,
        List.of(),
        () ->
            Charts.lines(
                "Jump consistent hash: loop iterations per lookup (" + keys + " keys)",
                "buckets n",
                true,
                "iterations per lookup",
                false,
                List.of(
                    new Charts.Line("measured", xs, means, 0, Charts.Style.POINTS),
                    new Charts.Line("H_n (expected)", xs, expected, 2, Charts.Style.DOTTED),
                    new Charts.Line("ln n + 1 (bound)", xs, bound, 1, Charts.Style.DASHED))));
  }
}
