package io.shardwise.cli;

import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How modes that place a sample alike part once the server list changes: each mode placed on a
 * changed list, the modes grouped by where they put the sampled keys. Modes of different peers
 * agree on some lists and not on others (a port of 11211, server names, weights, the float
 * rounding of some server counts), so a tie on today's list says nothing about tomorrow's.
 */
final class Differences {

  /** A changed server list and what changed. */
  record Change(String description, List<Node> nodes) {}

  /**
   * The modes grouped by their placement of the sample on {@code change}'s list; {@code refusing}
   * the modes that cannot place that list; {@code disagreement} the largest share of sampled keys
   * two groups place on different servers.
   */
  record Split(Change change, List<List<Detection.Score>> groups, List<Detection.Score> refusing, double disagreement) {

    /** Whether the change sets some of the modes apart. */
    boolean parts() {
      return groups.size() + (refusing.isEmpty() ? 0 : 1) > 1;
    }
  }

  private Differences() {}

  /**
   * Plausible next changes of {@code nodes}: a server added (on a new port of the last server's
   * host, and for memcached on port 11211 if no server of that host has it), the last server
   * removed, the first server's weight doubled, the first server given a name.
   */
  static List<Change> changes(List<Node> nodes, boolean redis) {
    List<Change> changes = new ArrayList<>();
    Node first = nodes.get(0);
    Node last = nodes.get(nodes.size() - 1);
    Set<String> addresses = new HashSet<>();
    int port = last.port();
    for (Node n : nodes) {
      addresses.add(n.address());
      if (n.host().equals(last.host())) {
        port = Math.max(port, n.port());
      }
    }
    Node added = null;
    for (int p = port + 1; p <= 65535 && added == null; p++) {
      Node candidate = Node.of(last.host(), p);
      if (!addresses.contains(candidate.address())) {
        added = candidate;
      }
    }
    if (added != null) {
      changes.add(new Change(added.address() + " added", with(nodes, added)));
    }
    Node defaultPort = Node.of(first.host(), 11211);
    boolean hasDefaultPort = nodes.stream().anyMatch(n -> n.host().equals(first.host()) && n.port() == 11211);
    if (!redis && !hasDefaultPort && (added == null || !added.address().equals(defaultPort.address()))) {
      changes.add(new Change(defaultPort.address() + " added", with(nodes, defaultPort)));
    }
    if (nodes.size() > 1) {
      changes.add(new Change(last.address() + " removed", nodes.subList(0, nodes.size() - 1)));
    }
    List<Node> weighted = new ArrayList<>(nodes);
    weighted.set(0, first.withWeight(first.weight() * 2));
    changes.add(new Change("weight " + first.weight() * 2 + " for " + first.address(), weighted));
    if (!first.hasExplicitName()) {
      List<Node> named = new ArrayList<>(nodes);
      named.set(0, Node.named(unusedName(nodes), first.host(), first.port(), first.weight()));
      changes.add(new Change(first.address() + " named " + named.get(0).name(), named));
    }
    return changes;
  }

  private static String unusedName(List<Node> nodes) {
    for (int i = 1; ; i++) {
      String name = "cache-" + i;
      if (nodes.stream().noneMatch(n -> n.name().equals(name))) {
        return name;
      }
    }
  }

  private static List<Node> with(List<Node> nodes, Node added) {
    List<Node> more = new ArrayList<>(nodes);
    more.add(added);
    return more;
  }

  /** Places the sample with each of {@code modes} on {@code change}'s list and groups them. */
  static Split split(Sample sample, List<Detection.Score> modes, Change change) {
    List<List<Detection.Score>> groups = new ArrayList<>();
    List<int[]> placements = new ArrayList<>();
    List<Detection.Score> refusing = new ArrayList<>();
    for (Detection.Score mode : modes) {
      int[] placed;
      try {
        placed = sample.placements(mode.spec().build(change.nodes()), mode.tag());
      } catch (IllegalArgumentException e) {
        refusing.add(mode);
        continue;
      }
      int group = 0;
      while (group < groups.size() && !Arrays.equals(placements.get(group), placed)) {
        group++;
      }
      if (group == groups.size()) {
        groups.add(new ArrayList<>());
        placements.add(placed);
      }
      groups.get(group).add(mode);
    }
    int most = 0;
    for (int a = 0; a < placements.size(); a++) {
      for (int b = a + 1; b < placements.size(); b++) {
        int differ = 0;
        for (int i = 0; i < sample.size(); i++) {
          if (placements.get(a)[i] != placements.get(b)[i]) {
            differ++;
          }
        }
        most = Math.max(most, differ);
      }
    }
    return new Split(change, groups, refusing, sample.size() == 0 ? 0 : (double) most / sample.size());
  }
}
