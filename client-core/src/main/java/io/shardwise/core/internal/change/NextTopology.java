package io.shardwise.core.internal.change;

import io.shardwise.client.TopologyChange;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.route.Transition;
import io.shardwise.core.internal.spill.BoundedReads;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The topology a change installs, built from the one in force: the new placement over its members,
 * the bounded-load state carried over by member (whatever the router), the change as reported, and
 * the history, with the change added when it moves keys. Pure but for the clock; the topology
 * thread installs the result.
 */
final class NextTopology {

  private NextTopology() {}

  /** The next topology, the change it makes, and whether that change moved keys. */
  record Result(Topology topology, TopologyChange change, boolean moves) {}

  static Result of(
      Topology before, Placement from, AddedServers.Prepared p, Topologies.Settings settings, Failback failback) {
    Member[] members = p.members();
    for (int i = 0; i < members.length; i++) {
      members[i].node = p.router().nodes().get(i); // a reweight or a new name keeps the member
    }
    BoundedReads bounded = boundedReads(before, members, p, settings, failback);
    Topology placementBefore = before.placement();
    Topology plain = new Topology(p.router(), p.placement().hashTag(), members, bounded, p.placement().replicas());
    double moved = ChangeHistory.movedShare(placementBefore, plain);
    // A new router or hash tag is taken over even if the sample saw no key move: others may.
    boolean moves = moved > 0 || !from.describe().equals(p.placement().describe());
    TopologyOptions options = settings.options();
    Duration window = options.settle().plus(options.warmUp());
    Set<String> beforeSet = ChangeHistory.identities(before.nodes);
    Set<String> afterSet = ChangeHistory.identities(p.list());
    List<Node> addedNodes = p.list().stream().filter(n -> !beforeSet.contains(Member.identity(n))).toList();
    List<Node> removedNodes = before.nodes.stream().filter(n -> !afterSet.contains(Member.identity(n))).toList();
    TopologyChange change =
        new TopologyChange(
            before.nodes,
            plain.nodes,
            addedNodes,
            removedNodes,
            moved,
            Instant.now(),
            moves && !window.isZero() ? window : Duration.ZERO,
            from.describe(),
            p.placement().describe());
    List<Transition> history = new ArrayList<>();
    if (moves) {
      history.add(new Transition(placementBefore, change, System.nanoTime(), options));
    }
    history.addAll(List.of(before.history));
    Topology next = plain.withHistory(ChangeHistory.kept(history, p.earlier()).toArray(new Transition[0]));
    return new Result(next, change, moves);
  }

  /**
   * The bounded-load state of the next topology, for the options the change asks for. A state in
   * force is carried over whatever the router and the options, with its registry of spilled copies,
   * so that writes delete the copies made before the change: turned off, it stays as a state that
   * spills no read ({@link BoundedReads#spills()}) until {@link Topologies} drops it once no
   * registered copy can still exist. A state
   * made anew without that registry could leave copies no write deletes, read again once bounded
   * loads are back on, or by a failover read.
   */
  private static BoundedReads boundedReads(
      Topology before, Member[] members, AddedServers.Prepared p, Topologies.Settings settings, Failback failback) {
    BoundedOptions options = p.placement().bounded();
    if (before.bounded == null) {
      return options.enabled()
          ? new BoundedReads(p.router(), options, settings.nanoClock(), i -> members[i].available(), failback)
          : null;
    }
    int[] previous = new int[members.length];
    for (int i = 0; i < members.length; i++) {
      previous[i] = indexOf(before.members, members[i]);
    }
    return before.bounded.remapped(p.router(), previous, i -> members[i].available(), options);
  }

  private static int indexOf(Member[] members, Member m) {
    for (int i = 0; i < members.length; i++) {
      if (members[i] == m) {
        return i;
      }
    }
    return -1;
  }
}
