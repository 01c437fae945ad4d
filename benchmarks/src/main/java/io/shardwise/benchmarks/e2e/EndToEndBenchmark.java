package io.shardwise.benchmarks.e2e;

import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Shardwise against the bare clients it wraps, side by side in one JVM on the same local servers,
 * reported as ratios (DESIGN.md section 11; {@code docs/benchmarks.md}).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.e2e.EndToEndBenchmark \
 *     --duration 10s --warmup 5s --rounds 5 --threads 8
 * </pre>
 *
 * <p>Scenarios ({@code --scenario}, default all): {@code memcached-sync}, {@code memcached-async},
 * {@code redis-sync} and {@code redis-async} on one server against bare spymemcached / Lettuce;
 * {@code memcached-getmulti} (4 servers) and {@code memcached-getmulti-100} (100 servers) against
 * spymemcached's ketama client; {@code redis-getmulti} (4 servers) against bare Lettuce with a
 * connection per server and one {@code MGET} per server; {@code memcached-replicas-set},
 * {@code memcached-replicas-get}, {@code redis-replicas-set} and {@code redis-replicas-get} (5
 * servers): Shardwise with two replicas per key against Shardwise with one (see {@link Scenario});
 * {@code memcached-copies-set} and {@code redis-copies-set}: the same for a bare client (a
 * spymemcached client per server, Lettuce with a connection per server) writing each key to two
 * servers against one, the cost of the second request without Shardwise; {@code
 * memcached-near-zipf-0.99}, {@code memcached-near-zipf-1.1}, {@code memcached-near-uniform} and
 * the same for {@code redis-near-*} (3 servers): bare spymemcached (ketama) or bare Lettuce (a
 * connection per server), Shardwise without a near cache, and Shardwise with each near cache of
 * {@code --near}, on a Zipf or uniform key stream with {@code --get-percent} gets.
 *
 * <p>For each scenario it starts (or reuses) the servers, opens the peer and Shardwise on them with
 * the same timeout, writes the data set, checks that both read and write the same data, warms both
 * up, then runs them one after the other for several rounds, alternating which goes first, with
 * the same threads, key sequence and values. It prints Markdown tables: rate ratios (median and
 * range over rounds), HdrHistogram p50/p99, and each client's CPU and allocation per unit of work.
 * Progress goes to standard error.
 *
 * <p>Exit codes: 0 done; 1 a client returned a wrong value, failed requests or failed a
 * correctness check (the numbers are then worthless); 2 bad arguments.
 */
@Command(
    name = "EndToEndBenchmark",
    description = {
      "Runs Shardwise and bare spymemcached / Lettuce alternately against the same local servers"
          + " (started here) and prints Markdown tables of ops/s ratios and latency percentiles."
    })
public final class EndToEndBenchmark implements Callable<Integer> {

  /** Exit code for bad arguments. */
  static final int EXIT_USAGE = 2;

  /** Exit code when a client returned wrong data or failed. */
  static final int EXIT_INCORRECT = 1;

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  @Option(
      names = "--duration",
      defaultValue = "10s",
      converter = DurationConverter.class,
      description = "Timed run per client per round (default ${DEFAULT-VALUE}); e.g. 10s, 500ms, 1m.")
  Duration duration;

  @Option(
      names = "--warmup",
      defaultValue = "5s",
      converter = DurationConverter.class,
      description = "Untimed run per client before the rounds (default ${DEFAULT-VALUE}).")
  Duration warmup;

  @Option(
      names = "--rounds",
      defaultValue = "5",
      description = "Timed rounds; each runs every client once (default ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--threads",
      defaultValue = "8",
      description = "Load threads, the same for every client (default ${DEFAULT-VALUE}).")
  int threads;

  @Option(
      names = "--scenario",
      split = ",",
      paramLabel = "ID",
      description = {
        "Scenarios to run (default all): memcached-sync, memcached-async, redis-sync,"
            + " redis-async, memcached-getmulti, memcached-getmulti-100, redis-getmulti,"
            + " memcached-replicas-set, memcached-replicas-get, redis-replicas-set,"
            + " redis-replicas-get, memcached-copies-set, redis-copies-set,"
            + " memcached-near-zipf-0.99, memcached-near-zipf-1.1, memcached-near-uniform,"
            + " redis-near-zipf-0.99, redis-near-zipf-1.1, redis-near-uniform."
      })
  List<String> scenarios;

  @Option(
      names = "--timeout",
      defaultValue = "1s",
      converter = DurationConverter.class,
      description = "Operation timeout of every client, peer and Shardwise (default ${DEFAULT-VALUE}).")
  Duration timeout;

  @Option(
      names = "--keys",
      defaultValue = "10000",
      description = "Keys in the data set, written before each scenario (default ${DEFAULT-VALUE}).")
  int keys;

  @Option(
      names = "--value-bytes",
      defaultValue = "100",
      description = "Size of every value (default ${DEFAULT-VALUE}).")
  int valueBytes;

  @Option(
      names = "--seed",
      defaultValue = "20240601",
      description = "Seed of values and key sequences (default ${DEFAULT-VALUE}).")
  long seed;

  @Option(
      names = "--get-percent",
      defaultValue = "98",
      description = {
        "Percent of commands that are gets in the near-cache scenarios, the rest sets (default"
            + " ${DEFAULT-VALUE}); the other sync scenarios alternate get and set."
      })
  int getPercent;

  @Option(
      names = "--near",
      split = ",",
      defaultValue = "hot,all",
      paramLabel = "CACHE",
      description = {
        "Near caches measured in the near-cache scenarios, each a Shardwise client of its own"
            + " (default ${DEFAULT-VALUE}): hot (NearCacheOptions.defaults(): hot keys only), hot:N"
            + " (hot keys, threshold N recent reads), all (every key read); a suffix /D such as"
            + " all/10s sets the near cache's max staleness (without it Redis's default, and 1s"
            + " with memcached, which has none); norefresh: before any of them turns refresh-ahead"
            + " off."
      })
  List<String> near;

  @Option(
      names = "--breakdown",
      description = {
        "Also run Shardwise's backend alone (a NodeConnection without the routing client) in the"
            + " single-node scenarios, to split Shardwise's cost between backend and client; and,"
            + " over several memcached nodes, bare spymemcached with one client per server"
            + " (Shardwise's layout), to split the cost of that layout from Shardwise's own. The"
            + " Redis multi-node peer has that layout already and gets no third client."
      })
  boolean breakdown;

  private final PrintWriter out;
  private final PrintWriter err;
  private List<NearVariant> nearVariants = List.of();

  EndToEndBenchmark(PrintWriter out, PrintWriter err) {
    this.out = out;
    this.err = err;
  }

  public static void main(String[] args) {
    quietLogging();
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    CommandLine cli = new CommandLine(new EndToEndBenchmark(out, err));
    cli.setOut(out);
    cli.setErr(err);
    cli.setParameterExceptionHandler(
        (e, ignored) -> {
          err.println("EndToEndBenchmark: " + e.getMessage());
          return EXIT_USAGE;
        });
    System.exit(cli.execute(args));
  }

  /** WARN and above only; spymemcached through SLF4J whichever client loads it first. */
  private static void quietLogging() {
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    if (System.getProperty("net.spy.log.LoggerImpl") == null) {
      System.setProperty("net.spy.log.LoggerImpl", "net.spy.memcached.compat.log.SLF4JLogger");
    }
  }

  @Override
  public Integer call() throws Exception {
    List<Scenario> selected;
    try {
      selected = selectedScenarios();
      checkArguments();
    } catch (IllegalArgumentException e) {
      err.println("EndToEndBenchmark: " + e.getMessage());
      return EXIT_USAGE;
    }
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    double loadBefore = os.getSystemLoadAverage();
    Instant started = Instant.now();
    Dataset data = new Dataset(keys, valueBytes, seed);
    List<ScenarioResult> results = new ArrayList<>();
    boolean correct = true;
    try (Servers servers = new Servers()) {
      for (Scenario scenario : selected) {
        ScenarioResult result = runScenario(scenario, servers, data);
        results.add(result);
        correct &= result.clean();
      }
    } catch (IllegalStateException e) {
      err.println("EndToEndBenchmark: correctness check failed: " + e.getMessage());
      correct = false;
    }
    double loadAfter = os.getSystemLoadAverage();
    printReport(results, started, loadBefore, loadAfter, os.getAvailableProcessors());
    if (!correct) {
      err.println(
          "EndToEndBenchmark: a client failed requests or returned wrong values; see the cost table");
      return EXIT_INCORRECT;
    }
    return 0;
  }

  private List<Scenario> selectedScenarios() {
    if (scenarios == null || scenarios.isEmpty()) {
      return List.of(Scenario.values());
    }
    Set<Scenario> chosen = new LinkedHashSet<>();
    for (String id : scenarios) {
      chosen.add(Scenario.of(id));
    }
    return List.copyOf(chosen);
  }

  private void checkArguments() {
    if (rounds < 1) {
      throw new IllegalArgumentException("--rounds must be >= 1 but was " + rounds);
    }
    if (threads < 1) {
      throw new IllegalArgumentException("--threads must be >= 1 but was " + threads);
    }
    if (duration.toMillis() < 100) {
      throw new IllegalArgumentException("--duration must be >= 100ms but was " + duration);
    }
    if (warmup.isNegative()) {
      throw new IllegalArgumentException("--warmup must be >= 0 but was " + warmup);
    }
    if (timeout.toMillis() < 1) {
      throw new IllegalArgumentException("--timeout must be >= 1ms but was " + timeout);
    }
    if (keys < Workload.BATCH || keys > 100_000) {
      throw new IllegalArgumentException("--keys must be in 100..100000 but was " + keys);
    }
    if (getPercent < 0 || getPercent > 100) {
      throw new IllegalArgumentException("--get-percent must be in 0..100 but was " + getPercent);
    }
    nearVariants = near.stream().map(NearVariant::of).toList();
    if (valueBytes < 1 || valueBytes > 16_384) {
      throw new IllegalArgumentException(
          "--value-bytes must be in 1..16384 (no compression on either side) but was " + valueBytes);
    }
  }

  private ScenarioResult runScenario(Scenario scenario, Servers servers, Dataset data)
      throws Exception {
    err.println("== " + scenario.id() + ": " + scenario.title());
    Scenario.Setup setup = scenario.open(servers, timeout, breakdown, nearVariants);
    List<Contender> contenders = setup.contenders();
    KeyStream keyStream = scenario.keys(data.size(), seed);
    int gets = scenario.comparesNearCache() ? getPercent : -1;
    try {
      for (Contender c : contenders) {
        awaitReady(c);
      }
      Correctness.populate(contenders.get(scenario.comparesReplicas() || scenario.comparesBareCopies() ? contenders.size() - 1 : 0), data);
      String verified = Correctness.verify(scenario, contenders, data, seed);
      err.println("   verified: " + verified);
      List<String> names = contenders.stream().map(Contender::name).toList();
      ScenarioResult result = new ScenarioResult(scenario, names, verified);
      if (!warmup.isZero()) {
        for (Contender c : contenders) {
          err.println("   warmup " + c.name());
          timedRun(scenario, c, data, keyStream, gets, warmup, seed - 1, setup);
          String events = c.drainEvents();
          if (!events.isEmpty()) {
            err.println("     inside " + c.name() + " during warmup: " + events);
          }
        }
      }
      for (int round = 0; round < rounds; round++) {
        boolean peerFirst = round % 2 == 0;
        Measurement[] measured = new Measurement[contenders.size()];
        for (int k = 0; k < contenders.size(); k++) {
          int c = peerFirst ? k : contenders.size() - 1 - k;
          measured[c] =
              timedRun(scenario, contenders.get(c), data, keyStream, gets, duration, seed + round, setup);
          err.printf(
              Locale.ROOT,
              "   round %d %-34s %,12.0f %s/s  p50 %6.1f µs  p99 %7.1f µs%s%s%n",
              round + 1,
              contenders.get(c).name(),
              measured[c].rate(),
              scenario.workload().unit(),
              measured[c].latency().getValueAtPercentile(50) / 1000.0,
              measured[c].latency().getValueAtPercentile(99) / 1000.0,
              Double.isNaN(measured[c].localHitRatio()) || !scenario.comparesNearCache()
                  ? ""
                  : String.format(Locale.ROOT, "  local hits %.1f%%", 100 * measured[c].localHitRatio()),
              measured[c].clean()
                  ? ""
                  : "  errors " + measured[c].errors() + ", wrong values "
                      + measured[c].wrongValues() + ", first: " + measured[c].firstError());
          String events = contenders.get(c).drainEvents();
          if (!events.isEmpty()) {
            err.println("     inside " + contenders.get(c).name() + ": " + events);
          }
        }
        result.rounds.add(List.of(measured));
        result.peerFirst.add(peerFirst);
      }
      return result;
    } finally {
      for (Contender c : contenders) {
        try {
          c.close();
        } catch (RuntimeException e) {
          err.println("   could not close " + c.name() + ": " + e);
        }
      }
    }
  }

  /** Collects the previous run's garbage first, so that no client pays for another's. */
  private Measurement timedRun(
      Scenario scenario,
      Contender c,
      Dataset data,
      KeyStream keyStream,
      int gets,
      Duration length,
      long runSeed,
      Scenario.Setup setup)
      throws InterruptedException {
    System.gc();
    Thread.sleep(200);
    Servers.Counters before = setup.serverCounters().get();
    Measurement m = LoadRunner.run(c, scenario.workload(), data, keyStream, gets, threads, length, runSeed);
    return m.withServerCounts(setup.serverCounters().get().minus(before));
  }

  /** Waits until {@code c} answers (Redis connections are made in the background). */
  private static void awaitReady(Contender c) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (true) {
      try {
        c.get("e2e:ready");
        return;
      } catch (RuntimeException e) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(c.name() + " did not answer within 10 s: " + e, e);
        }
        Thread.sleep(50);
      } catch (Exception e) {
        throw new IllegalStateException(c.name() + " failed: " + e, e);
      }
    }
  }

  private void printReport(
      List<ScenarioResult> results, Instant started, double loadBefore, double loadAfter, int cores) {
    out.println("## End-to-end run, " + started);
    out.println();
    out.printf(
        Locale.ROOT,
        "%d cores, %s %s; %d threads per client, %d rounds of %s per client after %s warmup;"
            + " %d keys, %d-byte values, timeout %s; system load average %.2f before, %.2f after.%n",
        cores,
        System.getProperty("java.vm.name"),
        System.getProperty("java.version"),
        threads,
        rounds,
        human(duration),
        human(warmup),
        keys,
        valueBytes,
        human(timeout),
        loadBefore,
        loadAfter);
    out.println();
    if (results.isEmpty()) {
      out.println("No scenario completed.");
      return;
    }
    if (results.stream().anyMatch(r -> !r.scenario.comparesNearCache())) {
      out.println(Report.results(results));
    }
    if (results.stream().anyMatch(r -> r.scenario.comparesNearCache())) {
      out.printf(
          Locale.ROOT,
          "Near-cache scenarios: %d%% gets, %d%% sets; near caches %s.%n%n",
          getPercent,
          100 - getPercent,
          near);
      out.println(Report.near(results));
    }
    out.println("Checked before timing:");
    out.println();
    for (ScenarioResult r : results) {
      out.println("- " + r.scenario.id() + ": " + r.verification);
    }
    out.println();
    out.println(Report.costs(results));
    if (results.stream().anyMatch(r -> r.contenders() > 2 && !r.scenario.comparesNearCache())) {
      out.println(Report.breakdown(results));
    }
    out.println(Report.rounds(results));
  }

  private static String human(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + " s" : ms + " ms";
  }

  /** {@code 10s}, {@code 500ms}, {@code 2m}, or ISO-8601 ({@code PT10S}). */
  static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
    private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m)");

    @Override
    public Duration convert(String value) {
      Matcher m = SHORT.matcher(value.strip().toLowerCase(Locale.ROOT));
      if (m.matches()) {
        long n = Long.parseLong(m.group(1));
        switch (m.group(2)) {
          case "ms":
            return Duration.ofMillis(n);
          case "s":
            return Duration.ofSeconds(n);
          default:
            return Duration.ofMinutes(n);
        }
      }
      try {
        return Duration.parse(value.strip());
      } catch (DateTimeParseException e) {
        throw new CommandLine.TypeConversionException(
            "expected a duration such as 10s, 500ms, 2m or PT10S but got '" + value + "'");
      }
    }
  }
}
