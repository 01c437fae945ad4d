package io.shardwise.benchmarks.e2e;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToLongFunction;
import org.HdrHistogram.Histogram;

/**
 * The timed rounds of one scenario: {@code rounds.get(r).get(c)} is contender {@code c}'s run in
 * round {@code r}; contender 0 is the peer, 1 is Shardwise.
 */
final class ScenarioResult {

  final Scenario scenario;
  final List<String> names;
  final String verification;
  final List<List<Measurement>> rounds = new ArrayList<>();
  final List<Boolean> peerFirst = new ArrayList<>();

  ScenarioResult(Scenario scenario, List<String> names, String verification) {
    this.scenario = scenario;
    this.names = List.copyOf(names);
    this.verification = verification;
  }

  int contenders() {
    return names.size();
  }

  /** Contender {@code c}'s rate over the peer's, per round. */
  double[] ratios(int c) {
    return ratios(c, 0);
  }

  /** Contender {@code c}'s rate over contender {@code base}'s, per round. */
  double[] ratios(int c, int base) {
    return rounds.stream().mapToDouble(r -> r.get(c).rate() / r.get(base).rate()).toArray();
  }

  /**
   * The share of contender {@code c}'s gets answered without a server request, all rounds
   * together, or NaN when it does not count its requests.
   */
  double localHitRatio(int c) {
    long gets = 0;
    long serverGets = 0;
    for (List<Measurement> round : rounds) {
      Measurement m = round.get(c);
      if (m.serverGets() < 0) {
        return Double.NaN;
      }
      gets += m.gets();
      serverGets += m.serverGets();
    }
    return gets == 0 ? Double.NaN : 1.0 - (double) serverGets / gets;
  }

  double[] rates(int c) {
    return rounds.stream().mapToDouble(r -> r.get(c).rate()).toArray();
  }

  /** Every round's latencies of contender {@code c} together. */
  Histogram latency(int c) {
    Histogram all = new Histogram(3);
    for (List<Measurement> round : rounds) {
      all.add(round.get(c).latency());
    }
    return all;
  }

  /** Sum of a per-run quantity of contender {@code c} over every round, per unit of work. */
  double perUnit(int c, ToLongFunction<Measurement> quantity) {
    long total = 0;
    long units = 0;
    for (List<Measurement> round : rounds) {
      Measurement m = round.get(c);
      if (quantity.applyAsLong(m) < 0) {
        return Double.NaN;
      }
      total += quantity.applyAsLong(m);
      units += m.units();
    }
    return units == 0 ? Double.NaN : (double) total / units;
  }

  long errors(int c) {
    return rounds.stream().mapToLong(r -> r.get(c).errors()).sum();
  }

  long wrongValues(int c) {
    return rounds.stream().mapToLong(r -> r.get(c).wrongValues()).sum();
  }

  boolean clean() {
    return rounds.stream().allMatch(r -> r.stream().allMatch(Measurement::clean));
  }

  static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  static double min(double[] values) {
    return Arrays.stream(values).min().orElse(Double.NaN);
  }

  static double max(double[] values) {
    return Arrays.stream(values).max().orElse(Double.NaN);
  }
}
