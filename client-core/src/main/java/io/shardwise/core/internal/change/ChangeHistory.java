package io.shardwise.core.internal.change;

import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.route.Transition;
import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a server-list change keeps of the ones before it ({@link Topology#history}): which previous
 * placements are still remembered, for how long, and the members of servers that come back; and
 * how much a change moves.
 */
final class ChangeHistory {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");
  /** Most previous placements remembered; the oldest is forgotten beyond it. */
  static final int MAX_HISTORY = 8;
  /** Keys sampled to measure the share that a change moves. */
  private static final int SAMPLE = 10_000;

  private ChangeHistory() {}

  /**
   * The history a new topology keeps, most recent first: without changes forgotten, without a
   * placement equal to a more recent one, at most {@link #MAX_HISTORY}; the members of servers added
   * back are the new ones ({@code earlier} maps each new member to the one it replaces). A change
   * whose previous placement is the new one (a change reversed) is kept: no key differs from it,
   * but it tells that the keys moving back are held by their owners ({@code Moves}), which reads
   * look at while the reversal settles.
   */
  static List<Transition> kept(List<Transition> history, Map<Member, Member> earlier) {
    Map<Member, Member> replacing = new HashMap<>();
    earlier.forEach((added, before) -> replacing.put(before, added));
    List<Transition> out = new ArrayList<>();
    long nowNanos = System.nanoTime();
    for (Transition change : history) {
      if (change.forgotten(nowNanos)) {
        continue;
      }
      boolean repeated = false;
      for (Transition newer : out) {
        repeated |= newer.previous.samePlacement(change.previous);
      }
      if (repeated) {
        continue;
      }
      if (out.size() == MAX_HISTORY) {
        LOG.warn(
            "servers changed: the placement of {} nodes left at {} is forgotten ({} placements are"
                + " remembered): a server that held keys under it and gets them back may serve a value"
                + " older than one written since, until that key is written again or expires",
            change.previous.nodes.size(),
            change.change.appliedAt(),
            MAX_HISTORY);
        continue;
      }
      Member[] members = change.previous.members.clone();
      boolean substituted = false;
      for (int i = 0; i < members.length; i++) {
        Member added = replacing.get(members[i]);
        if (added != null) {
          members[i] = added;
          substituted = true;
        }
      }
      out.add(substituted ? change.withPrevious(change.previous.withMembers(members)) : change);
    }
    return out;
  }

  /** The members that the history of {@code t} remembers and that are no longer open, by identity. */
  static Map<String, Member> remembered(Topology t, Map<String, Member> open) {
    Map<String, Member> out = new HashMap<>();
    for (Transition change : t.history) {
      for (Member m : change.previous.members) {
        String id = Member.identity(m.node);
        if (!open.containsKey(id)) {
          out.putIfAbsent(id, m); // the most recent change first
        }
      }
    }
    return out;
  }

  /**
   * Gives each change of {@code history} whose warm-up has ended the time it is forgotten ({@link
   * Transition#forgetAfter}, with the longest TTL written so far); returns the delay until the next
   * change is forgotten, 0 if one is forgotten already, or {@link Long#MAX_VALUE} for none.
   */
  static long forgetTimes(Transition[] history, long now, long retention) {
    long next = Long.MAX_VALUE;
    for (Transition change : history) {
      if (change.inWindow(now)) {
        continue; // reviewed when its warm-up ends
      }
      change.forgetAfter(retention);
      if (change.forgetAtNanos() != Long.MAX_VALUE) {
        next = Math.min(next, Math.max(0, change.forgetAtNanos() - now));
      }
    }
    return next;
  }

  static Set<String> identities(List<Node> nodes) {
    Set<String> out = new HashSet<>();
    nodes.forEach(n -> out.add(Member.identity(n)));
    return out;
  }

  /**
   * The share of a fixed sample of keys whose replica set (the servers that store the key: its
   * server, with one replica) differs between {@code a} and {@code b}, so that a change of the
   * replica count, which keeps every key's primary, counts the keys that gain or lose a server.
   * When the hash tag changes, the sample keys carry a tag (of {@code b}, else of {@code a}): the
   * share is that of the keys with a tag, the ones such a change moves.
   */
  static double movedShare(Topology a, Topology b) {
    String tag = b.hashTag.isEnabled() ? b.hashTag.toString() : a.hashTag.toString();
    boolean tagged = !a.hashTag.equals(b.hashTag);
    int[] inA = new int[a.members.length];
    int[] inB = new int[b.members.length];
    int moved = 0;
    for (int i = 0; i < SAMPLE; i++) {
      String key = tagged ? "shardwise:" + tag.charAt(0) + "sample:" + i + tag.charAt(1) + ":key" : "shardwise:sample:" + i;
      int na = a.router.replicas(a.hash(key), a.replicas, inA);
      int nb = b.router.replicas(b.hash(key), b.replicas, inB);
      boolean same = na == nb;
      for (int x = 0; x < na && same; x++) {
        boolean found = false;
        for (int y = 0; y < nb && !found; y++) {
          found = a.members[inA[x]] == b.members[inB[y]];
        }
        same = found;
      }
      if (!same) {
        moved++;
      }
    }
    return moved / (double) SAMPLE;
  }
}
