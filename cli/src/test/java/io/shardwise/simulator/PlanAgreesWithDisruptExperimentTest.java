package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.cli.ShardwiseCli;
import io.shardwise.routing.Node;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@code shardwise plan} on the fleets of the simulator's {@code disrupt} experiment, with the
 * same key hashes, counts the same moves as the experiment, router by router. In this package to
 * reach the experiment's trial setup, which is package-private.
 */
class PlanAgreesWithDisruptExperimentTest {

  private static final long SEED = 11;
  private static final int NODES = 12;
  private static final int KEYS = 20_000;

  @Test
  void planMovesExactlyTheKeysTheDisruptExperimentMoves() {
    List<RouterChoice> choices = CompareExperiment.Config.allRouters();
    Table table =
        DisruptExperiment.run(
                new DisruptExperiment.Config(NODES, KEYS, 1, choices),
                new RunContext(SEED, 2, Progress.none()))
            .table();
    DisruptExperiment.Trial trial = DisruptExperiment.Trial.of(SEED, 0, NODES);
    assertThat(table.rowCount()).isEqualTo(choices.size());
    for (int r = 0; r < choices.size(); r++) {
      RouterChoice choice = choices.get(r);
      assertThat(table.value(r, "router")).isEqualTo(choice.label());
      String[] router = planRouter(choice);
      String removed = serverList(trial.shrunk(choice));
      String grown = serverList(trial.grown());
      String base = serverList(trial.nodes());

      String removal = plan(base, removed, router, trial.hashSeed());
      assertThat(number(removal, "moved"))
          .as(choice.label() + " removal")
          .isEqualTo(keys(table, r, "removal_moved"));
      Node gone = trial.nodes().get(trial.removed(choice));
      assertThat(keysOf(removal, "from", label(gone)))
          .as(choice.label() + " removed node's keys")
          .isEqualTo(keys(table, r, "removal_needed"));

      String addition = plan(base, grown, router, trial.hashSeed());
      assertThat(number(addition, "moved"))
          .as(choice.label() + " addition")
          .isEqualTo(keys(table, r, "addition_moved"));
      assertThat(keysOf(addition, "to", label(trial.extra())))
          .as(choice.label() + " new node's keys")
          .isEqualTo(keys(table, r, "addition_needed"));
    }
  }

  /** The plan options that build the same router as {@code choice}. */
  private static String[] planRouter(RouterChoice choice) {
    switch (choice.family()) {
      case KETAMA:
        return new String[] {"--router", "ketama", "--compat", "libketama"};
      case RING:
        return new String[] {"--router", "ring", "--points", Integer.toString(choice.parameter())};
      case MULTIPROBE:
        return new String[] {"--router", "multiprobe", "--probes", Integer.toString(choice.parameter())};
      case MAGLEV:
        return new String[] {"--router", "maglev", "--table-size", Integer.toString(choice.parameter())};
      default:
        return new String[] {"--router", choice.family().name().toLowerCase(java.util.Locale.ROOT)};
    }
  }

  private static String plan(String from, String to, String[] router, long seed) {
    List<String> args =
        new ArrayList<>(
            List.of("plan", "--from", from, "--to", to, "--sample", Integer.toString(KEYS),
                "--seed", Long.toString(seed), "--format", "json", "--top", "1000"));
    args.addAll(List.of(router));
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = ShardwiseCli.run(args.toArray(String[]::new), new PrintWriter(out, true), new PrintWriter(err, true));
    assertThat(err.toString()).isEmpty();
    assertThat(code).isZero();
    return out.toString();
  }

  private static String serverList(List<Node> nodes) {
    return nodes.stream().map(Node::toString).collect(Collectors.joining(","));
  }

  private static String label(Node node) {
    return node.name() + "=" + node.address();
  }

  /** The experiment's fraction of keys in a column, back as a key count (one trial). */
  private static long keys(Table table, int row, String column) {
    return Math.round(table.number(row, column) * KEYS);
  }

  private static long number(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\": (\\d+)").matcher(json);
    assertThat(m.find()).as(name).isTrue();
    return Long.parseLong(m.group(1));
  }

  /** Keys of the flows whose {@code side} ("from" or "to") is {@code server}. */
  private static long keysOf(String json, String side, String server) {
    Matcher m =
        Pattern.compile("\"from\": \"([^\"]+)\",\\s*\"to\": \"([^\"]+)\",\\s*\"keys\": (\\d+)").matcher(json);
    long sum = 0;
    while (m.find()) {
      if (m.group(side.equals("from") ? 1 : 2).equals(server)) {
        sum += Long.parseLong(m.group(3));
      }
    }
    return sum;
  }
}
