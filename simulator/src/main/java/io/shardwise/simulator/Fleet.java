package io.shardwise.simulator;

import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Simulated server lists. Node {@code i} is named {@code <prefix>-n<i>}, where the prefix carries
 * the seed and the trial, so every seed and trial gives an independent ring; its address is a
 * distinct random {@code 10.x.y.z:11211} from the trial's random stream, which matters for ketama
 * (libketama hashes the address, not the name). The addresses are labels only: nothing connects to
 * them.
 */
final class Fleet {

  static final int PORT = 11211;

  private final String prefix;
  private final SplittableRandom random;
  private final Set<String> hosts = new HashSet<>();
  private int next;

  private Fleet(String prefix, SplittableRandom random) {
    this.prefix = prefix;
    this.random = random;
  }

  /**
   * A fleet whose nodes are named {@code <prefix>-n<i>}, with addresses drawn from {@code random}.
   */
  static Fleet of(String prefix, SplittableRandom random) {
    return new Fleet(prefix, random);
  }

  /** The next {@code count} nodes: indexes continue from the nodes made before. */
  List<Node> nodes(int count) {
    List<Node> nodes = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      nodes.add(node());
    }
    return nodes;
  }

  /** The next node: a new name and a new address. */
  Node node() {
    String host;
    do {
      host =
          "10." + random.nextInt(256) + "." + random.nextInt(256) + "." + (1 + random.nextInt(254));
    } while (!hosts.add(host));
    return Node.named(prefix + "-n" + next++, host, PORT, 1);
  }

  /** {@code nodes} without the node at {@code index}. */
  static List<Node> without(List<Node> nodes, int index) {
    List<Node> rest = new ArrayList<>(nodes);
    rest.remove(index);
    return rest;
  }

  /** {@code nodes} followed by {@code extra}. */
  static List<Node> with(List<Node> nodes, Node extra) {
    List<Node> all = new ArrayList<>(nodes);
    all.add(extra);
    return all;
  }
}
