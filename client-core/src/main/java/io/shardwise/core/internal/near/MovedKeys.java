package io.shardwise.core.internal.near;

import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Moves;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.route.Transition;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Which near-cache entries a topology change must drop ({@link NearCache#dropMoved}): those of the
 * keys whose servers may differ, before and after it, in any phase of any change either topology
 * remembers.
 *
 * <p>A key stays when its replica set (its first N servers, as {@code Moves} counts a move) is the
 * same members, by identity, in the topology after the change, the one before it, and the previous
 * placement of every change in either one's history: so that it was read from the same servers while
 * any of those changes settled or warmed, as it will be, and those servers' connections are the ones
 * that tracked its reads (Redis), since a member is one server's connection. Everything goes, by
 * {@link #of} returning null, when a read may have been served elsewhere: with bounded loads before
 * or after (a read spills to another server), or with a server out (a read goes to its fallback,
 * which depends on the list).
 */
public final class MovedKeys {

  private MovedKeys() {}

  /**
   * The keys whose entries {@code after} replacing {@code before} drops, or null when every entry
   * must go. The test is for {@link NearCache#dropMoved}'s sweep, after the epoch moved: it looks
   * again, at its first key, whether a server is out, so that a server ejected between this call
   * and the epoch's move, whose node event's drop came before that move, has everything dropped too
   * (one readmitted since moved the epoch again itself).
   */
  public static Predicate<String> of(Topology before, Topology after) {
    if (before.bounded != null || after.bounded != null) {
      return null;
    }
    List<Topology> others = new ArrayList<>();
    others.add(before);
    for (Transition c : before.history) {
      others.add(c.previous);
    }
    for (Transition c : after.history) {
      others.add(c.previous);
    }
    List<Topology> all = new ArrayList<>(others);
    all.add(after);
    for (Topology p : all) {
      if (p.bounded != null) {
        return null;
      }
    }
    if (anyOut(all)) {
      return null;
    }
    Topology[] earlier = others.toArray(new Topology[0]);
    return new Predicate<>() {
      /** Whether a server was out when the sweep began; null until its first key. */
      private Boolean out;

      @Override
      public boolean test(String key) {
        if (out == null) {
          out = anyOut(all);
        }
        if (out) {
          return true;
        }
        Member[] owners = after.replicaMembers(after.hash(key));
        for (Topology p : earlier) {
          if (!Moves.sameSet(owners, p.replicaMembers(p.hash(key)))) {
            return true;
          }
        }
        return false;
      }
    };
  }

  /** Whether a member of one of {@code topologies} is not available now (ejected, or not yet readmitted). */
  private static boolean anyOut(List<Topology> topologies) {
    for (Topology t : topologies) {
      if (anyOut(t)) {
        return true;
      }
    }
    return false;
  }

  /** Whether a member of {@code t} is not available now (ejected, or not yet readmitted). */
  private static boolean anyOut(Topology t) {
    for (Member m : t.members) {
      if (!m.available()) {
        return true;
      }
    }
    return false;
  }
}
