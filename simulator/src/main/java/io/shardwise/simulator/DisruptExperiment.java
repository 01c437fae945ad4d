package io.shardwise.simulator;

import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * {@code disrupt}: how many keys move when one node leaves and when one joins, and how many of
 * those did not have to (excess moves): on removal every key of the removed node must move and no
 * other; on addition only keys that the new node takes need to.
 */
final class DisruptExperiment {

  static final String NAME = "disrupt";
  private static final long TAG = 3;

  record Config(int nodes, int keys, int trials, List<RouterChoice> routers) {
    static Config defaults() {
      return new Config(100, 1_000_000, 10, CompareExperiment.Config.allRouters());
    }
  }

  /**
   * The fleet of one trial: {@code nodes}, the node {@code extra} that joins, the node {@code
   * randomIndex} that leaves (for routers that can lose any node), and the seed of the stream of
   * key hashes ({@code new SplittableRandom(hashSeed)}, one {@code nextLong()} per key).
   */
  record Trial(List<Node> nodes, Node extra, int randomIndex, long hashSeed) {

    static Trial of(long seed, int trial, int n) {
      SplittableRandom random = Seeds.random(seed, TAG, trial);
      Fleet fleet = Fleet.of("s" + seed + "-t" + trial, random);
      List<Node> nodes = fleet.nodes(n);
      Node extra = fleet.node();
      return new Trial(nodes, extra, random.nextInt(n), Seeds.derive(seed, TAG, trial, -1));
    }

    /** The index of the node that leaves: the last one for routers that can only lose it. */
    int removed(RouterChoice choice) {
      return choice.removesLastOnly() ? nodes.size() - 1 : randomIndex;
    }

    List<Node> shrunk(RouterChoice choice) {
      return Fleet.without(nodes, removed(choice));
    }

    List<Node> grown() {
      return Fleet.with(nodes, extra);
    }
  }

  /** Key counts of one trial and router. */
  private record Moves(
      long removedShare, long movedOnRemoval, long newShare, long movedOnAddition) {}

  private DisruptExperiment() {}

  static Report run(Config config, RunContext context) {
    int n = config.nodes();
    int keys = config.keys();
    int trials = config.trials();
    long seed = context.seed();
    List<RouterChoice> choices = config.routers();
    List<Moves> results =
        context.parallel(
            NAME,
            trials * choices.size(),
            task -> {
              Trial t = Trial.of(seed, task / choices.size(), n);
              RouterChoice choice = choices.get(task % choices.size());
              int removed = t.removed(choice);
              return measure(
                  choice.build(t.nodes()),
                  choice.build(t.shrunk(choice)),
                  removed,
                  choice.build(t.grown()),
                  keys,
                  new SplittableRandom(t.hashSeed()));
            });

    Table table =
        new Table()
            .text("router", "router")
            .percent("removal: moved", "removal_moved", 3)
            .percent("removed node's share", "removal_needed", 3)
            .percent("removal: excess", "removal_excess", 3)
            .percent("addition: moved", "addition_moved", 3)
            .percent("new node's share", "addition_needed", 3)
            .percent("addition: excess", "addition_excess", 3);
    List<String> labels = new ArrayList<>();
    double[][] bars = new double[4][choices.size()];
    for (int r = 0; r < choices.size(); r++) {
      double[] sums = new double[4];
      for (int t = 0; t < trials; t++) {
        Moves m = results.get(t * choices.size() + r);
        sums[0] += m.movedOnRemoval();
        sums[1] += m.removedShare();
        sums[2] += m.movedOnAddition();
        sums[3] += m.newShare();
      }
      double scale = 1.0 / ((double) keys * trials);
      double removalMoved = sums[0] * scale;
      double removalNeeded = sums[1] * scale;
      double additionMoved = sums[2] * scale;
      double additionNeeded = sums[3] * scale;
      table.row(
          choices.get(r).label(),
          removalMoved,
          removalNeeded,
          removalMoved - removalNeeded,
          additionMoved,
          additionNeeded,
          additionMoved - additionNeeded);
      labels.add(choices.get(r).label());
      bars[0][r] = 100 * removalMoved;
      bars[1][r] = 100 * (removalMoved - removalNeeded);
      bars[2][r] = 100 * additionMoved;
      bars[3][r] = 100 * (additionMoved - additionNeeded);
    }

    List<String> setup =
        List.of(
            "n = "
                + n
                + " nodes, "
                + keys
                + " keys (random 64-bit hashes passed to `Router.primary(long)`), "
                + trials
                + " trials, seed "
                + seed
                + ". Each trial draws a new fleet (names `s"
                + seed
                + "-t<trial>-n<i>`), removes one random node (the last one for modulo and jump,"
                + " which can only lose their last bucket) and, separately, adds a node with a new"
                + " name at the end of the list. Each router is rebuilt for the new list, and a key"
                + " has moved when its node (compared as a node, not as an index) changed.",
            "Removal: every key of the removed node has to move, so excess = moved - removed"
                + " node's share. Addition: only keys the new node takes need to move, so excess ="
                + " moved - new node's share (keys that moved between old nodes). Means over the"
                + " trials.");
    List<String> notes =
        List.of(
            String.format(
                Locale.ROOT,
                "Optimum: removal moves 1/n = %.3f%% on average, addition 1/(n+1) = %.3f%%.",
                100.0 / n,
                100.0 / (n + 1)));
    return new Report(
        NAME,
        "disrupt: keys moved when a node leaves or joins, n = " + n,
        setup,
        table,
        notes,
        () ->
            Charts.bars(
                "Keys moved (log scale; a missing bar is zero), n = " + n,
                "router",
                labels,
                "keys moved (%)",
                true,
                List.of(
                    "moved on removal",
                    "excess on removal",
                    "moved on addition",
                    "excess on addition"),
                bars));
  }

  /**
   * Counts, over {@code keys} random hashes, the keys of the removed node, the keys that changed
   * node when it was removed, the keys of the added node (index n of {@code grown}) and the keys
   * that changed node when it was added.
   */
  private static Moves measure(
      Router base, Router shrunk, int removed, Router grown, int keys, SplittableRandom random) {
    KeyMoves removal = KeyMoves.between(base.nodes(), shrunk.nodes());
    KeyMoves addition = KeyMoves.between(base.nodes(), grown.nodes());
    for (int k = 0; k < keys; k++) {
      long hash = random.nextLong();
      int before = base.primary(hash);
      removal.add(before, shrunk.primary(hash));
      addition.add(before, grown.primary(hash));
    }
    int added = addition.serverAfter(base.size());
    return new Moves(
        removal.ownedBefore(removal.serverBefore(removed)),
        removal.moved(),
        addition.ownedAfter(added),
        addition.moved());
  }
}
