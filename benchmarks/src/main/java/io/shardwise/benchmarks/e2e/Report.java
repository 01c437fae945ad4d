package io.shardwise.benchmarks.e2e;

import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/** Markdown tables of a run's results. */
final class Report {

  private Report() {}

  /** The ratio table: one row per scenario, Shardwise against its peer. */
  static String results(List<ScenarioResult> results) {
    StringBuilder out = new StringBuilder();
    out.append("| scenario | peer | peer rate | Shardwise rate | Shardwise / peer: median (min–max)")
        .append(" | target | peer p50 / p99 µs | Shardwise p50 / p99 µs | latency of |\n")
        .append("|---|---|--:|--:|---|---|--:|--:|---|\n");
    for (ScenarioResult r : results) {
      Scenario s = r.scenario;
      if (s.comparesNearCache()) {
        continue;
      }
      double[] ratios = r.ratios(1);
      double median = ScenarioResult.median(ratios);
      String unit = s.workload().unit() + "/s";
      out.append("| ").append(s.title())
          .append(" | ").append(r.names.get(0))
          .append(" | ").append(rate(ScenarioResult.median(r.rates(0)))).append(' ').append(unit)
          .append(" | ").append(rate(ScenarioResult.median(r.rates(1)))).append(' ').append(unit)
          .append(" | ").append(ratioRange(ratios))
          .append(" | ≥ ").append(fixed(s.target(), 2)).append(": ")
          .append(median >= s.target() ? "met" : "**missed**")
          .append(" | ").append(percentiles(r.latency(0)))
          .append(" | ").append(percentiles(r.latency(1)))
          .append(" | ").append(s.workload().timedStep())
          .append(" |\n");
    }
    return out.toString();
  }

  /**
   * The near-cache scenarios: every client against the bare client (contender 0) and against
   * Shardwise without a near cache (contender 1), per round then the median; the share of gets
   * answered locally (1 - server reads / gets, all rounds together); latency per command; client
   * JVM CPU per command. A near cache's target is against the bare client on a skewed stream, and
   * against Shardwise without it on the uniform one.
   */
  static String near(List<ScenarioResult> results) {
    StringBuilder out = new StringBuilder();
    out.append("| scenario | client | ops/s | / bare: median (min–max) | / Shardwise: median (min–max)")
        .append(" | local hits | p50 / p99 µs | client CPU µs / op | target |\n")
        .append("|---|---|--:|---|---|--:|--:|--:|---|\n");
    for (ScenarioResult r : results) {
      Scenario s = r.scenario;
      if (!s.comparesNearCache()) {
        continue;
      }
      for (int c = 0; c < r.contenders(); c++) {
        double hits = r.localHitRatio(c);
        String target = "";
        if (c >= 2 && s.target() > 0) {
          double[] against = s.nearTargetAgainstBare() ? r.ratios(c) : r.ratios(c, 1);
          double median = ScenarioResult.median(against);
          target = "≥ " + fixed(s.target(), 2) + (s.nearTargetAgainstBare() ? " x bare" : " x Shardwise")
              + ": " + (median >= s.target() ? "met" : "**missed**");
        }
        out.append("| ").append(s.title())
            .append(" | ").append(r.names.get(c))
            .append(" | ").append(rate(ScenarioResult.median(r.rates(c))))
            .append(" | ").append(c == 0 ? "" : ratioRange(r.ratios(c)))
            .append(" | ").append(c < 2 ? "" : ratioRange(r.ratios(c, 1)))
            .append(" | ").append(Double.isNaN(hits) ? "–" : fixed(100 * hits, 1) + "%")
            .append(" | ").append(percentiles(r.latency(c)))
            .append(" | ").append(fixed(r.perUnit(c, Measurement::cpuNanos) / 1000, 2))
            .append(" | ").append(target)
            .append(" |\n");
      }
    }
    return out.toString();
  }

  /** Where the clients spend: CPU and allocation of the client JVM, and the servers' count. */
  static String costs(List<ScenarioResult> results) {
    StringBuilder out = new StringBuilder();
    out.append("| scenario | client | client JVM CPU µs / unit | allocated bytes / unit")
        .append(" | server commands / unit | server bytes in / unit | errors | wrong values |\n")
        .append("|---|---|--:|--:|--:|--:|--:|--:|\n");
    for (ScenarioResult r : results) {
      for (int c = 0; c < r.contenders(); c++) {
        out.append("| ").append(r.scenario.id())
            .append(" | ").append(r.names.get(c))
            .append(" | ").append(fixed(r.perUnit(c, Measurement::cpuNanos) / 1000, 2))
            .append(" | ").append(fixed(r.perUnit(c, Measurement::allocatedBytes), 0))
            .append(" | ").append(fixed(r.perUnit(c, Measurement::serverCommands), 3))
            .append(" | ").append(fixed(r.perUnit(c, Measurement::serverBytesIn), 1))
            .append(" | ").append(r.errors(c))
            .append(" | ").append(r.wrongValues(c))
            .append(" |\n");
      }
    }
    return out.toString();
  }

  /** Every round, to show drift and how the alternation cancels it. */
  static String rounds(List<ScenarioResult> results) {
    StringBuilder out = new StringBuilder();
    out.append("| scenario | round | order | contender | rate | / peer | p50 / p99 µs |\n")
        .append("|---|--:|---|---|--:|--:|--:|\n");
    for (ScenarioResult r : results) {
      for (int i = 0; i < r.rounds.size(); i++) {
        List<Measurement> round = r.rounds.get(i);
        for (int c = 0; c < r.contenders(); c++) {
          Measurement m = round.get(c);
          out.append("| ").append(r.scenario.id())
              .append(" | ").append(i + 1)
              .append(" | ").append(r.peerFirst.get(i) ? "peer first" : "peer last")
              .append(" | ").append(r.names.get(c))
              .append(" | ").append(rate(m.rate()))
              .append(" | ").append(c == 0 ? "" : fixed(m.rate() / round.get(0).rate(), 3))
              .append(" | ").append(percentiles(m.latency()))
              .append(" |\n");
        }
      }
    }
    return out.toString();
  }

  /** Extra contenders ({@code --breakdown}) against the peer. */
  static String breakdown(List<ScenarioResult> results) {
    StringBuilder out = new StringBuilder();
    out.append("| scenario | contender | rate | / peer: median (min–max) | p50 / p99 µs |\n")
        .append("|---|---|--:|---|--:|\n");
    for (ScenarioResult r : results) {
      if (r.scenario.comparesNearCache()) {
        continue;
      }
      for (int c = 1; c < r.contenders(); c++) {
        out.append("| ").append(r.scenario.id())
            .append(" | ").append(r.names.get(c))
            .append(" | ").append(rate(ScenarioResult.median(r.rates(c))))
            .append(" | ").append(ratioRange(r.ratios(c)))
            .append(" | ").append(percentiles(r.latency(c)))
            .append(" |\n");
      }
    }
    return out.toString();
  }

  private static String ratioRange(double[] ratios) {
    return "**" + fixed(ScenarioResult.median(ratios), 3) + "** ("
        + fixed(ScenarioResult.min(ratios), 3) + "–" + fixed(ScenarioResult.max(ratios), 3) + ")";
  }

  private static String percentiles(Histogram h) {
    return micros(h.getValueAtPercentile(50)) + " / " + micros(h.getValueAtPercentile(99));
  }

  private static String micros(long nanos) {
    return nanos >= 100_000 ? fixed(nanos / 1000.0, 0) : fixed(nanos / 1000.0, 1);
  }

  private static String rate(double perSecond) {
    return String.format(Locale.ROOT, "%,.0f", perSecond);
  }

  static String fixed(double value, int decimals) {
    return Double.isNaN(value) ? "–" : String.format(Locale.ROOT, "%." + decimals + "f", value);
  }
}
