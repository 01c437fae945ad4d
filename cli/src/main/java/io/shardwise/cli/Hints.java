package io.shardwise.cli;

import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * What the sample says when no mode places every key: a server order or a renaming under which a
 * mode would, two or three placements that together do (several writers, or a list before a
 * resize), the keys the best mode misses. Pure.
 */
final class Hints {

  /** Modes tried in a new order of the list, the most keys relabeled first. */
  private static final int RELABELED_MODES = 20;
  /** Modes a cover is taken from, best first. */
  private static final int COVER_MODES = 40;
  /** Share of the keys a finding must explain (the rest: strays such as failover writes). */
  static final double EXPLAINS = 0.99;

  private Hints() {}

  /**
   * {@code mode} puts the key it places on its list's server {@code p} on the sample's server
   * {@code mapping[p]} instead, for {@code hits} keys; {@code order} is the list in the clients'
   * order if re-ordering reproduces it ({@code reordered} keys then sit where the mode puts
   * them), or null when only a renaming would (a continuum hashes the servers' names).
   */
  record Relabeling(Detection.Score mode, int[] mapping, int hits, List<Node> order, int reordered) {}

  /**
   * The mode that places the most keys, nearly all, once its servers are relabeled one for one:
   * one that a new order of the list reproduces if there is one (a placement by position), else
   * the first (a placement by name).
   */
  static Optional<Relabeling> relabeling(Sample sample, List<Detection.Score> scores) {
    List<Detection.Score> relabeled = scores.stream()
        .filter(s -> s.relabeled() > s.hits() && s.relabeled() >= EXPLAINS * sample.size())
        .sorted(Comparator.comparingInt(Detection.Score::relabeled).reversed())
        .limit(RELABELED_MODES)
        .collect(Collectors.toList());
    Relabeling first = null;
    for (Detection.Score mode : relabeled) {
      int[] mapping = sample.mostlyOn(sample.placements(mode.router(), mode.tag()));
      List<Node> order = reordered(sample.nodes(), mapping);
      int reordered;
      try {
        reordered = hitSet(sample, sample.placements(mode.spec().build(order), mode.tag()), order).cardinality();
      } catch (IllegalArgumentException e) {
        reordered = 0;
      }
      if (reordered >= mode.relabeled()) {
        return Optional.of(new Relabeling(mode, mapping, mode.relabeled(), order, reordered));
      }
      if (first == null) {
        first = new Relabeling(mode, mapping, mode.relabeled(), null, reordered);
      }
    }
    return Optional.ofNullable(first);
  }

  /** {@code nodes} with {@code nodes[mapping[p]]} at p, the servers no key maps to where room is left. */
  private static List<Node> reordered(List<Node> nodes, int[] mapping) {
    Node[] order = new Node[nodes.size()];
    boolean[] taken = new boolean[nodes.size()];
    for (int p = 0; p < mapping.length; p++) {
      if (mapping[p] >= 0) {
        order[p] = nodes.get(mapping[p]);
        taken[mapping[p]] = true;
      }
    }
    int next = 0;
    for (int s = 0; s < nodes.size(); s++) {
      if (!taken[s]) {
        while (order[next] != null) {
          next++;
        }
        order[next] = nodes.get(s);
      }
    }
    return Arrays.asList(order);
  }

  /** A placement, and how many keys it places that the parts before it in a cover did not. */
  record Part(String name, int added, int alike) {}

  /**
   * Two or three placements that together place the most keys: taken greedily from the best
   * modes and, for the best mode, its placement on the list without each server (keys written
   * before that server was added).
   */
  static List<Part> cover(Sample sample, List<Detection.Score> scores) {
    List<String> names = new ArrayList<>();
    List<BitSet> placed = new ArrayList<>();
    for (Detection.Score mode : scores.subList(0, Math.min(COVER_MODES, scores.size()))) {
      names.add(mode.name());
      placed.add(hitSet(sample, sample.placements(mode.router(), mode.tag()), sample.nodes()));
    }
    Detection.Score best = scores.get(0);
    List<Node> nodes = sample.nodes();
    for (int s = 0; s < nodes.size() && nodes.size() > 1; s++) {
      List<Node> without = new ArrayList<>(nodes);
      without.remove(s);
      try {
        Router router = best.spec().build(without);
        names.add(best.name() + " on the list without " + nodes.get(s).address()
            + " (keys written before it was added)");
        placed.add(hitSet(sample, sample.placements(router, best.tag()), without));
      } catch (IllegalArgumentException e) {
        // the mode cannot place the shorter list; nothing to learn from it
      }
    }
    List<Part> parts = new ArrayList<>();
    BitSet covered = new BitSet(sample.size());
    for (int step = 0; step < 3; step++) {
      int choice = -1;
      int gain = 0;
      for (int m = 0; m < placed.size(); m++) {
        BitSet more = (BitSet) placed.get(m).clone();
        more.andNot(covered);
        if (more.cardinality() > gain) {
          gain = more.cardinality();
          choice = m;
        }
      }
      if (choice < 0 || (step > 0 && gain < 0.01 * sample.size())) {
        break;
      }
      int alike = 0;
      for (int m = 0; m < placed.size(); m++) {
        if (m != choice && placed.get(m).equals(placed.get(choice))) {
          alike++;
        }
      }
      parts.add(new Part(names.get(choice), gain, alike));
      covered.or(placed.get(choice));
    }
    return parts;
  }

  /** The keys that sit where {@code placed}, indexes into {@code on}, puts them. */
  private static BitSet hitSet(Sample sample, int[] placed, List<Node> on) {
    int[] index = new int[on.size()];
    for (int j = 0; j < on.size(); j++) {
      index[j] = sample.nodes().indexOf(on.get(j));
    }
    BitSet hits = new BitSet(sample.size());
    for (int i = 0; i < sample.size(); i++) {
      if (index[placed[i]] == sample.server(i)) {
        hits.set(i);
      }
    }
    return hits;
  }

  /** Up to {@code limit} keys {@code mode} misses: their index in the sample and where it puts them. */
  static List<int[]> misses(Sample sample, Detection.Score mode, int limit) {
    int[] placed = sample.placements(mode.router(), mode.tag());
    List<int[]> misses = new ArrayList<>();
    for (int i = 0; i < sample.size() && misses.size() < limit; i++) {
      if (placed[i] != sample.server(i)) {
        misses.add(new int[] {i, placed[i]});
      }
    }
    return misses;
  }

  /**
   * The hash tags worth scoring besides none: the bracket pairs that select a part of at least 1%
   * of the sampled keys.
   */
  static List<HashTag> tags(Sample sample) {
    List<HashTag> tags = new ArrayList<>();
    for (String pair : List.of("{}", "[]", "()", "<>")) {
      HashTag tag = HashTag.of(pair);
      int with = 0;
      for (int i = 0; i < sample.size(); i++) {
        String key = new String(sample.key(i), StandardCharsets.UTF_8);
        if (!tag.routingKey(key).equals(key)) {
          with++;
        }
      }
      if (with > 0 && with >= 0.01 * sample.size()) {
        tags.add(tag);
      }
    }
    return tags;
  }
}
