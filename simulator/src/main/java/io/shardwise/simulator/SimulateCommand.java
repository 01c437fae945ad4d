package io.shardwise.simulator;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code shardwise simulate <experiment>}: seeded simulations of the project's routers that
 * reproduce the published balance, disruption and bounded-load results. Each experiment prints a
 * Markdown table and can write it as CSV ({@code --csv}) and draw a PNG chart ({@code --png});
 * {@code all --out DIR} runs them all and writes every file into DIR.
 *
 * <p>Used as a subcommand of the {@code shardwise} command line, or on its own through {@link
 * #main}; either way bad input exits with code 2 and one line on standard error.
 */
@Command(
    name = "simulate",
    description = {
      "Seeded simulations of the routers: each experiment prints a Markdown table; --csv and"
          + " --png write the table as CSV and a chart as PNG. Progress goes to standard error."
          + " Keys are random 64-bit hashes from a seeded SplittableRandom passed to"
          + " Router.primary(long). See docs/simulations.md."
    },
    subcommands = {
      SimulateCommand.Balance.class,
      SimulateCommand.Compare.class,
      SimulateCommand.Disrupt.class,
      SimulateCommand.Maglev.class,
      SimulateCommand.Jump.class,
      SimulateCommand.Bounded.class,
      SimulateCommand.Small.class,
      SimulateCommand.All.class
    })
public final class SimulateCommand {

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  /** Exit code for bad input, as in the {@code shardwise} command line. */
  public static final int EXIT_USAGE = 2;

  /**
   * Runs {@code simulate} on its own: {@code java -cp ... io.shardwise.simulator.SimulateCommand}.
   */
  public static void main(String[] args) {
    System.exit(run(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
  }

  /**
   * Runs {@code simulate} with the given arguments and streams, reporting bad input the way {@code
   * shardwise} does: one line {@code shardwise: <message>} on {@code err}, exit code 2.
   */
  public static int run(String[] args, PrintWriter out, PrintWriter err) {
    CommandLine cli = new CommandLine(new SimulateCommand());
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (e, ignored) -> {
          e.getCommandLine().getErr().println("shardwise: " + e.getMessage());
          return EXIT_USAGE;
        });
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof IllegalArgumentException
              || e instanceof IOException
              || e instanceof UncheckedIOException) {
            commandLine.getErr().println("shardwise: " + message(e));
            return EXIT_USAGE;
          }
          throw e;
        });
    return cli.execute(args);
  }

  private static String message(Exception e) {
    Throwable t = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
    if (t instanceof NoSuchFileException) {
      return "no such file: " + t.getMessage();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  /** Options every experiment takes. */
  static final class RunOptions {
    @Option(
        names = {"-h", "--help"},
        usageHelp = true,
        description = "Show this help message and exit.")
    boolean help;

    @Option(
        names = "--seed",
        defaultValue = "1",
        description = "Seed of every random choice (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
        names = "--threads",
        description = "Worker threads (default: the number of processors).")
    Integer threads;

    @Option(names = "--quiet", description = "No progress on standard error.")
    boolean quiet;

    RunContext context(CommandSpec spec) {
      int t = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
      require(spec, t >= 1, "--threads must be >= 1 but was " + t);
      return new RunContext(
          seed, t, quiet ? Progress.none() : Progress.to(spec.commandLine().getErr()));
    }
  }

  /** Where a single experiment writes its files. */
  static final class OutputOptions {
    @Option(names = "--csv", paramLabel = "FILE", description = "Also write the table as CSV.")
    Path csv;

    @Option(names = "--png", paramLabel = "FILE", description = "Also draw the chart as PNG.")
    Path png;
  }

  /** One experiment: run it, print its Markdown, write the files asked for. */
  abstract static class ExperimentCommand implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin RunOptions runOptions;
    @Mixin OutputOptions outputOptions;

    /** Checks the options (throwing {@link ParameterException}) and runs the experiment. */
    abstract Report simulate(RunContext context);

    @Override
    public Integer call() throws IOException {
      RunContext context = runOptions.context(spec);
      // Before a long run, not after it.
      requireWritable(spec, "--csv", outputOptions.csv);
      requireWritable(spec, "--png", outputOptions.png);
      Report report = simulate(context);
      PrintWriter out = spec.commandLine().getOut();
      out.print(report.markdown());
      out.flush();
      if (outputOptions.csv != null) {
        report.writeCsv(outputOptions.csv);
      }
      if (outputOptions.png != null) {
        report.writePng(outputOptions.png);
      }
      return 0;
    }

    void requireAtLeast(String option, long value, long min) {
      require(spec, value >= min, option + " must be >= " + min + " but was " + value);
    }

    void requireAllAtLeast(String option, int[] values, int min) {
      require(spec, values.length > 0, option + " must list at least one value");
      for (int v : values) {
        requireAtLeast(option, v, min);
      }
    }
  }

  /** A file can be created at {@code file}: its directory exists and it is not a directory. */
  static void requireWritable(CommandSpec spec, String option, Path file) {
    if (file == null) {
      return;
    }
    Path parent = file.toAbsolutePath().getParent();
    require(
        spec,
        parent != null && Files.isDirectory(parent),
        option + ": no such directory: " + parent);
    require(spec, !Files.isDirectory(file), option + ": is a directory: " + file);
  }

  static void require(CommandSpec spec, boolean ok, String message) {
    if (!ok) {
      throw new ParameterException(spec.commandLine(), message);
    }
  }

  @Command(
      name = "balance",
      description = "Ring balance by points per node, from exact arc shares, next to the theory.")
  static final class Balance extends ExperimentCommand {
    @Option(names = "--nodes", split = ",", description = "Node counts n (default: 10,100,1000).")
    int[] nodes = BalanceExperiment.Config.defaults().nodeCounts();

    @Option(
        names = "--points",
        split = ",",
        description = "Points per node V (default: 1,10,100,160,200,1000,1024).")
    int[] points = BalanceExperiment.Config.defaults().pointsPerNode();

    @Option(names = "--rings", description = "Rings (seeds) per (n, V) (default: 20).")
    int rings = BalanceExperiment.Config.defaults().rings();

    @Override
    Report simulate(RunContext context) {
      requireAllAtLeast("--nodes", nodes, 1);
      requireAllAtLeast("--points", points, 1);
      requireAtLeast("--rings", rings, 1);
      return BalanceExperiment.run(new BalanceExperiment.Config(nodes, points, rings), context);
    }
  }

  @Command(
      name = "compare",
      description = "Keys per node for every router over the same nodes and keys.")
  static final class Compare extends ExperimentCommand {
    @Option(names = "--nodes", description = "Node count n (default: 100).")
    int nodes = CompareExperiment.Config.defaults().nodes();

    @Option(names = "--keys", description = "Keys (default: 10000000).")
    long keys = CompareExperiment.Config.defaults().keys();

    @Override
    Report simulate(RunContext context) {
      requireAtLeast("--nodes", nodes, 2);
      requireAtLeast("--keys", keys, 1);
      return CompareExperiment.run(
          new CompareExperiment.Config(nodes, keys, CompareExperiment.Config.allRouters()),
          context);
    }
  }

  @Command(
      name = "disrupt",
      description = "Keys moved, and moved needlessly, when a node leaves or joins.")
  static final class Disrupt extends ExperimentCommand {
    @Option(names = "--nodes", description = "Node count n (default: 100).")
    int nodes = DisruptExperiment.Config.defaults().nodes();

    @Option(names = "--keys", description = "Keys (default: 1000000).")
    int keys = DisruptExperiment.Config.defaults().keys();

    @Option(names = "--trials", description = "Trials (default: 10).")
    int trials = DisruptExperiment.Config.defaults().trials();

    @Override
    Report simulate(RunContext context) {
      requireAtLeast("--nodes", nodes, 2);
      requireAtLeast("--keys", keys, 1);
      requireAtLeast("--trials", trials, 1);
      return DisruptExperiment.run(
          new DisruptExperiment.Config(nodes, keys, trials, CompareExperiment.Config.allRouters()),
          context);
    }
  }

  @Command(
      name = "maglev",
      description =
          "Maglev table entries changed when k backends are removed (NSDI 2016, Fig. 12).")
  static final class Maglev extends ExperimentCommand {
    @Option(names = "--backends", description = "Backends (default: 1000).")
    int backends = MaglevExperiment.Config.defaults().backends();

    @Option(
        names = "--table-sizes",
        split = ",",
        description = "Table sizes M, primes (default: 65537,655373).")
    int[] tableSizes = MaglevExperiment.Config.defaults().tableSizes();

    @Option(
        names = "--removed",
        split = ",",
        description = "Backends removed k (default: 1,2,5,10,20,50,100,200,500).")
    int[] removed = MaglevExperiment.Config.defaults().removals();

    @Option(names = "--trials", description = "Trials (default: 20).")
    int trials = MaglevExperiment.Config.defaults().trials();

    @Override
    Report simulate(RunContext context) {
      requireAtLeast("--backends", backends, 2);
      requireAllAtLeast("--table-sizes", tableSizes, backends + 1);
      requireAllAtLeast("--removed", removed, 1);
      for (int k : removed) {
        require(
            spec, k < backends, "--removed must be below --backends " + backends + " but was " + k);
      }
      requireAtLeast("--trials", trials, 1);
      return MaglevExperiment.run(
          new MaglevExperiment.Config(backends, tableSizes, removed, trials), context);
    }
  }

  @Command(
      name = "jump",
      description = "Jump consistent hash: loop iterations per lookup, next to ln n + 1.")
  static final class Jump extends ExperimentCommand {
    @Option(
        names = "--buckets",
        split = ",",
        description = "Bucket counts n (default: 10,20,50,...,100000).")
    int[] buckets = JumpExperiment.Config.defaults().bucketCounts();

    @Option(names = "--keys", description = "Keys (default: 1000000).")
    int keys = JumpExperiment.Config.defaults().keys();

    @Override
    Report simulate(RunContext context) {
      requireAllAtLeast("--buckets", buckets, 1);
      requireAtLeast("--keys", keys, 1);
      return JumpExperiment.run(new JumpExperiment.Config(buckets, keys), context);
    }
  }

  @Command(
      name = "bounded",
      description = "Bounded loads over a ring under a Zipf workload, next to the plain ring.")
  static final class Bounded extends ExperimentCommand {
    @Option(names = "--nodes", description = "Node count n (default: 100).")
    int nodes = BoundedExperiment.Config.defaults().nodes();

    @Option(names = "--points", description = "Ring points per node (default: 200).")
    int points = BoundedExperiment.Config.defaults().pointsPerNode();

    @Option(names = "--keys", description = "Distinct keys, the Zipf ranks (default: 100000).")
    int keys = BoundedExperiment.Config.defaults().keys();

    @Option(names = "--requests", description = "Requests (default: 1000000).")
    int requests = BoundedExperiment.Config.defaults().requests();

    @Option(names = "--alpha", description = "Zipf exponent (default: 1.1).")
    double alpha = BoundedExperiment.Config.defaults().alpha();

    @Option(
        names = "--epsilons",
        split = ",",
        description = "Epsilons of the caps (default: 0.05,0.25,0.5).")
    double[] epsilons = BoundedExperiment.Config.defaults().epsilons();

    @Override
    Report simulate(RunContext context) {
      requireAtLeast("--nodes", nodes, 1);
      requireAtLeast("--points", points, 1);
      requireAtLeast("--keys", keys, 1);
      requireAtLeast("--requests", requests, 1);
      require(
          spec,
          alpha >= 0 && !Double.isInfinite(alpha),
          "--alpha must be a finite number >= 0 but was " + alpha);
      require(spec, epsilons.length > 0, "--epsilons must list at least one value");
      for (double e : epsilons) {
        require(spec, e > 0 && !Double.isInfinite(e), "--epsilons must be > 0 but was " + e);
      }
      return BoundedExperiment.run(
          new BoundedExperiment.Config(nodes, points, keys, requests, alpha, epsilons), context);
    }
  }

  @Command(
      name = "small",
      description = "Small fleets: imbalance and keys moved when a node is added.")
  static final class Small extends ExperimentCommand {
    @Option(names = "--nodes", split = ",", description = "Node counts n (default: 5,10,20).")
    int[] nodes = SmallExperiment.Config.defaults().nodeCounts();

    @Option(names = "--keys", description = "Keys (default: 100000).")
    int keys = SmallExperiment.Config.defaults().keys();

    @Option(names = "--trials", description = "Fleets per n (default: 100).")
    int trials = SmallExperiment.Config.defaults().trials();

    @Override
    Report simulate(RunContext context) {
      requireAllAtLeast("--nodes", nodes, 1);
      requireAtLeast("--keys", keys, 1);
      requireAtLeast("--trials", trials, 1);
      return SmallExperiment.run(
          new SmallExperiment.Config(
              nodes, keys, trials, SmallExperiment.Config.defaults().routers()),
          context);
    }
  }

  @Command(
      name = "all",
      description =
          "Runs every experiment with its defaults and writes <name>.md, <name>.csv and"
              + " <name>.png for each into DIR; prints the Markdown too.")
  static final class All implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin RunOptions runOptions;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "DIR",
        description = "Directory for the files (created if missing).")
    Path out;

    @Option(
        names = "--quick",
        description = "Small sizes, for a smoke test in seconds; not for the docs.")
    boolean quick;

    @Override
    public Integer call() throws IOException {
      RunContext context = runOptions.context(spec);
      Files.createDirectories(out);
      PrintWriter stdout = spec.commandLine().getOut();
      long start = System.nanoTime();
      for (Function<RunContext, Report> experiment : experiments(quick)) {
        Report report = experiment.apply(context);
        report.writeMarkdown(out.resolve(report.name() + ".md"));
        report.writeCsv(out.resolve(report.name() + ".csv"));
        report.writePng(out.resolve(report.name() + ".png"));
        stdout.print(report.markdown());
        stdout.println();
        stdout.flush();
      }
      context
          .progress()
          .say(
              String.format(
                  Locale.ROOT,
                  "all: done in %.1f s on %d threads; files in %s",
                  (System.nanoTime() - start) / 1e9,
                  context.threads(),
                  out));
      return 0;
    }

    /** Every experiment, with its defaults or, for {@code --quick}, small sizes. */
    static List<Function<RunContext, Report>> experiments(boolean quick) {
      List<Function<RunContext, Report>> list = new ArrayList<>();
      if (!quick) {
        list.add(c -> BalanceExperiment.run(BalanceExperiment.Config.defaults(), c));
        list.add(c -> CompareExperiment.run(CompareExperiment.Config.defaults(), c));
        list.add(c -> DisruptExperiment.run(DisruptExperiment.Config.defaults(), c));
        list.add(c -> MaglevExperiment.run(MaglevExperiment.Config.defaults(), c));
        list.add(c -> JumpExperiment.run(JumpExperiment.Config.defaults(), c));
        list.add(c -> BoundedExperiment.run(BoundedExperiment.Config.defaults(), c));
        list.add(c -> SmallExperiment.run(SmallExperiment.Config.defaults(), c));
        return list;
      }
      list.add(
          c ->
              BalanceExperiment.run(
                  new BalanceExperiment.Config(new int[] {10, 100}, new int[] {1, 100}, 3), c));
      list.add(
          c ->
              CompareExperiment.run(
                  new CompareExperiment.Config(20, 20_000, CompareExperiment.Config.allRouters()),
                  c));
      list.add(
          c ->
              DisruptExperiment.run(
                  new DisruptExperiment.Config(20, 5_000, 2, CompareExperiment.Config.allRouters()),
                  c));
      list.add(
          c ->
              MaglevExperiment.run(
                  new MaglevExperiment.Config(50, new int[] {5003}, new int[] {1, 5}, 2), c));
      list.add(c -> JumpExperiment.run(new JumpExperiment.Config(new int[] {10, 1000}, 5_000), c));
      list.add(
          c ->
              BoundedExperiment.run(
                  new BoundedExperiment.Config(20, 50, 1_000, 20_000, 1.1, new double[] {0.25}),
                  c));
      list.add(
          c ->
              SmallExperiment.run(
                  new SmallExperiment.Config(
                      new int[] {5}, 5_000, 3, SmallExperiment.Config.defaults().routers()),
                  c));
      return list;
    }
  }
}
