package io.shardwise.simulator;

import io.shardwise.bounded.BoundedLoadSelector;
import io.shardwise.bounded.LoadView;
import io.shardwise.bounded.Selection;
import io.shardwise.ketama.HashRingRouter;
import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code bounded}: consistent hashing with bounded loads (Mirrokni, Thorup and Zadimoghaddam, SODA
 * 2018) under a Zipf workload, with {@link BoundedLoadSelector} over a hash ring and loads that
 * count requests: every request is a ball that stays where it is put.
 */
final class BoundedExperiment {

  static final String NAME = "bounded";
  private static final long TAG = 6;

  record Config(
      int nodes, int pointsPerNode, int keys, int requests, double alpha, double[] epsilons) {
    static Config defaults() {
      return new Config(100, 200, 100_000, 1_000_000, 1.1, new double[] {0.05, 0.25, 0.5});
    }
  }

  /** What one run of the request stream gave. */
  record Outcome(long[] loads, long spilled, long probes, int maxProbes, long overCap) {}

  /** Request counts per node, as the selector reads them. */
  static final class CountingLoads implements LoadView {
    private final long[] loads;
    private long total;

    CountingLoads(int n) {
      this.loads = new long[n];
    }

    void add(int node) {
      loads[node]++;
      total++;
    }

    @Override
    public long load(int node) {
      return loads[node];
    }

    @Override
    public long total() {
      return total;
    }

    long[] loads() {
      return loads.clone();
    }
  }

  private BoundedExperiment() {}

  static Report run(Config config, RunContext context) {
    int n = config.nodes();
    long seed = context.seed();
    List<Node> nodes = Fleet.of("s" + seed, Seeds.random(seed, TAG, -1)).nodes(n);
    HashRingRouter ring = HashRingRouter.create(nodes, config.pointsPerNode());
    long[] keyHashes = new long[config.keys()];
    SplittableRandom keyRandom = Seeds.random(seed, TAG, -2);
    for (int k = 0; k < keyHashes.length; k++) {
      keyHashes[k] = keyRandom.nextLong();
    }
    ZipfSampler zipf = new ZipfSampler(config.keys(), config.alpha());
    double[] epsilons = config.epsilons();
    List<Outcome> outcomes =
        context.parallel(
            NAME,
            1 + epsilons.length,
            task -> {
              BoundedLoadSelector selector =
                  task == 0 ? null : BoundedLoadSelector.of(ring, epsilons[task - 1], n);
              return replay(ring, selector, keyHashes, zipf, config.requests(), seed);
            });

    Table table =
        new Table()
            .text("selection", "selection")
            .decimal("peak/mean", "peak_over_mean", 4)
            .decimal("1 + epsilon", "bound", 2)
            .percent("overflow (not primary)", "overflow_fraction", 2)
            .decimal("mean probes", "mean_probes", 4)
            .integer("max probes", "max_probes")
            .integer("all probed over cap", "over_cap");
    List<String> labels = new ArrayList<>();
    List<double[]> sorted = new ArrayList<>();
    double requests = config.requests();
    for (int i = 0; i < outcomes.size(); i++) {
      Outcome o = outcomes.get(i);
      String label =
          i == 0
              ? "plain ring"
              : String.format(Locale.ROOT, "bounded, epsilon = %.2f", epsilons[i - 1]);
      LoadStats stats = LoadStats.of(o.loads());
      table.row(
          label,
          stats.peakOverMean(),
          i == 0 ? null : 1 + epsilons[i - 1],
          o.spilled() / requests,
          i == 0 ? null : o.probes() / requests,
          i == 0 ? null : o.maxProbes(),
          i == 0 ? null : o.overCap());
      labels.add(label);
      sorted.add(CompareExperiment.sortedOverMean(o.loads()));
    }

    double top = zipf.probability(1);
    List<String> setup =
        List.of(
            String.format(
                Locale.ROOT,
                "Hash ring of n = %d nodes x V = %d points; %d keys (random 64-bit hashes); %d"
                    + " requests, each for the key of a Zipf rank with exponent alpha = %s"
                    + " (inverse-CDF sampler over ranks 1..%d); seed %d. The most popular key"
                    + " draws %.2f%% of the requests, %.1f times a node's fair share.",
                n,
                config.pointsPerNode(),
                config.keys(),
                config.requests(),
                Double.toString(config.alpha()),
                config.keys(),
                seed,
                100 * top,
                top * n),
            "Every request is a ball that stays: loads count the requests placed so far."
                + " Bounded loads use `BoundedLoadSelector` over the ring's preference order"
                + " (clockwise successors) with probe limit n = "
                + n
                + " and a count-based `LoadView`. Its cap is `ceil((1 + epsilon) * (t + 1) / n)`"
                + " with t the requests placed before this one: the `t + 1` of Envoy and HAProxy,"
                + " which counts the request being placed, one more than the textbook `t`. A node"
                + " takes a request while its load is below its cap, so the final peak is at most"
                + " `ceil((1 + epsilon) * R / n)` for R requests: peak/mean <= 1 + epsilon + n/R.");
    List<String> notes =
        List.of(
            "Overflow is the fraction of requests not sent to the key's primary (ring owner);"
                + " probes count the nodes whose load was compared with their cap (1 when the"
                + " primary takes the request). \"All probed over cap\" counts requests for which"
                + " no probed node was under its cap; with probe limit n it must be 0.");
    return new Report(
        NAME,
        String.format(Locale.ROOT, "bounded: bounded loads under Zipf(alpha = %s)", config.alpha()),
        setup,
        table,
        notes,
        () -> chart(n, config, labels, sorted));
  }

  /** Plays the request stream through the plain ring ({@code selector == null}) or a selector. */
  static Outcome replay(
      HashRingRouter ring,
      BoundedLoadSelector selector,
      long[] keyHashes,
      ZipfSampler zipf,
      int requests,
      long seed) {
    CountingLoads loads = new CountingLoads(ring.size());
    Selection selection = new Selection();
    SplittableRandom random = Seeds.random(seed, TAG, -3);
    long spilled = 0;
    long probes = 0;
    int maxProbes = 0;
    long overCap = 0;
    for (int r = 0; r < requests; r++) {
      long hash = keyHashes[zipf.sample(random) - 1];
      int node;
      if (selector == null) {
        node = ring.primary(hash);
      } else {
        node = selector.select(hash, loads, selection);
        probes += selection.probes();
        maxProbes = Math.max(maxProbes, selection.probes());
        if (selection.spilled()) {
          spilled++;
        }
        if (selection.overCap()) {
          overCap++;
        }
      }
      loads.add(node);
    }
    return new Outcome(loads.loads(), spilled, probes, maxProbes, overCap);
  }

  private static org.jfree.chart.JFreeChart chart(
      int n, Config config, List<String> labels, List<double[]> sortedLoads) {
    double[] ranks = new double[n];
    for (int i = 0; i < n; i++) {
      ranks[i] = i + 1;
    }
    List<Charts.Line> lines = new ArrayList<>();
    for (int i = 0; i < labels.size(); i++) {
      lines.add(new Charts.Line(labels.get(i), ranks, sortedLoads.get(i), i, Charts.Style.SOLID));
    }
    return Charts.lines(
        String.format(
            Locale.ROOT,
            "Requests per node over the mean, nodes sorted by load (Zipf alpha = %s, %d requests)",
            config.alpha(),
            config.requests()),
        "node rank by load",
        false,
        "load / mean (log scale)",
        true,
        lines);
  }
}
