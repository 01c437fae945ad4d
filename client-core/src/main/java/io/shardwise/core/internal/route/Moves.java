package io.shardwise.core.internal.route;

import io.shardwise.core.internal.health.Member;
import io.shardwise.routing.HashTag;
import java.util.Arrays;

/**
 * Where a key that moved in a change is read and written: the decision only, without I/O, from one
 * {@link Topology} snapshot and one instant (the phases of {@link Transition}).
 *
 * <p>A key <i>moved</i> when its set of replicas (its first N servers, N being each placement's own
 * replica count; with one, the key's node) differs before and after a change; the order alone does
 * not count. From its replica sets in the topology and in each change's previous placement:
 *
 * <ul>
 *   <li>the <b>serving placement</b>: the topology, or while the latest change settles and the key
 *       moved in it, the placement before (as a client that has not applied the change routes it);
 *   <li>the <b>sources</b>: previous replicas of changes still warming that are not replicas now,
 *       latest change first, read in turn after every serving replica missed;
 *   <li>the <b>clears</b>: where a write also deletes the key because a read may look there: the
 *       sources, and while settling the new replicas that do not serve (clients already warming read
 *       them first); one that is out or whose delete fails is marked instead, one that takes the
 *       write is left out;
 *   <li>the <b>former owners</b>: previous replicas of changes only remembered, where a write leaves
 *       a mark ({@code Failback#markOldCopy}), so that their value is never read again;
 *   <li>the <b>owners</b>: the key's replicas in the topology; those that <b>arrived</b> in the
 *       latest change are read first, so that a hit elsewhere is copied to them.
 * </ul>
 */
public final class Moves {

  private Moves() {}

  /** The decision for one key, in the terms above; {@code copies}: whether a hit on a source may be copied to the owners now. */
  public record Move(
      Topology serving, Member[] owners, Member[] arrived, Member[] sources, Member[] clears, Member[] formerOwners, boolean copies) {

    /**
     * Whether the key is routed on {@code current} alone: served there, nothing else read, written
     * or marked, no warm-up copy to race with (a key whose set grew is copied to the replica that
     * arrived).
     */
    public boolean plain(Topology current) {
      return marksOnly(current) && formerOwners.length == 0;
    }

    /** Whether a write of the key touches nothing but its serving replicas and the marks of its former owners. */
    public boolean marksOnly(Topology current) {
      return serving == current && sources.length == 0 && clears.length == 0 && arrived.length == 0;
    }

    /** Whether a read of the key may look beyond its serving replicas, or copy to one that arrived. */
    public boolean readsElsewhere(Topology current) {
      return sources.length != 0 || serving != current || arrived.length != 0;
    }
  }

  /**
   * The route of {@code key} on {@code t} at {@code nowNanos}, or null when {@code t} has no history.
   * Each placement has its own replica count: a change of it moves replica sets as a router's does.
   */
  public static Move route(Topology t, String key, long nowNanos) {
    Transition[] history = t.history;
    if (history.length == 0) {
      return null;
    }
    long hash = t.hash(key);
    String hasher = t.nodes.size() > 1 ? t.router.hasher().name() : null;
    Member[] owners = replicasOf(t, key, hash, hasher, t.hashTag);
    Member[][] before = new Member[history.length][];
    int room = owners.length;
    for (int i = 0; i < history.length; i++) {
      before[i] = replicasOf(history[i].previous, key, hash, hasher, t.hashTag);
      room += before[i].length;
    }
    Transition latest = history[0];
    boolean settling = latest.phase(nowNanos) == Transition.Phase.SETTLING && !sameSet(before[0], owners);
    Topology serving = settling ? latest.previous : t;
    Member[] servingSet = settling ? before[0] : owners;

    Member[] sources = new Member[room];
    Member[] clears = new Member[room];
    Member[] formers = new Member[room];
    int sourceCount = 0;
    int clearCount = 0;
    int formerCount = 0;
    if (settling) {
      for (Member m : owners) {
        if (!Member.in(servingSet, m)) {
          clears[clearCount++] = m; // read first by clients already warming
          if (heldBefore(before, m)) {
            sources[sourceCount++] = m; // the key moves back to it: see heldBefore
          }
        }
      }
    }
    for (int i = settling ? 1 : 0; i < history.length; i++) {
      boolean warming = history[i].phase(nowNanos) == Transition.Phase.WARMING;
      for (Member m : before[i]) {
        if (Member.in(servingSet, m) || Member.in(owners, m)) {
          continue;
        }
        if (warming) {
          if (!Member.in(sources, sourceCount, m)) {
            sources[sourceCount++] = m;
          }
          if (!Member.in(clears, clearCount, m)) {
            clears[clearCount++] = m;
          }
        } else if (!Member.in(formers, formerCount, m)) {
          formers[formerCount++] = m;
        }
      }
    }
    // A former owner that is also a source or a clear (of a later change) is deleted at once.
    int kept = 0;
    for (int i = 0; i < formerCount; i++) {
      if (!Member.in(sources, sourceCount, formers[i]) && !Member.in(clears, clearCount, formers[i])) {
        formers[kept++] = formers[i];
      }
    }
    Member[] arrived = new Member[owners.length];
    int arrivedCount = 0;
    if (latest.inWindow(nowNanos)) {
      for (Member m : owners) {
        if (!Member.in(before[0], m)) {
          arrived[arrivedCount++] = m;
        }
      }
    }
    return new Move(
        serving,
        owners,
        trim(arrived, arrivedCount),
        trim(sources, sourceCount),
        trim(clears, clearCount),
        trim(formers, kept),
        latest.copies(nowNanos));
  }

  /**
   * Whether {@code m} is a replica of {@code key} on {@code t} or in a placement it still remembers,
   * where a spilled copy is never deleted ({@code BoundedReads#afterWrites}).
   */
  public static boolean holds(Topology t, String key, Member m) {
    long hash = t.hash(key);
    String hasher = t.nodes.size() > 1 ? t.router.hasher().name() : null;
    for (int i = -1; i < t.history.length; i++) {
      if (Member.in(replicasOf(i < 0 ? t : t.history[i].previous, key, hash, hasher, t.hashTag), m)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The replicas of {@code key} in placement {@code p}, primary first, reusing {@code hash} where
   * {@code p} hashes alike: the same hasher and hash tag (another tag hashes another part of the key).
   */
  private static Member[] replicasOf(Topology p, String key, long hash, String hasher, HashTag tag) {
    return p.replicaMembers(hasher != null && hasher.equals(p.router.hasher().name()) && tag.equals(p.hashTag) ? hash : p.hash(key));
  }

  /**
   * Whether {@code m} was a replica of the key before a change earlier than the latest ({@code
   * before} from index 1): the key moves back to it (a change reversed). While the latest change
   * settles it is read after the serving replicas miss: every write since the key left it deleted
   * or marked its copy, and writes while settling delete it.
   */
  private static boolean heldBefore(Member[][] before, Member m) {
    for (int i = 1; i < before.length; i++) {
      if (Member.in(before[i], before[i].length, m)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code a} and {@code b} hold the same members, by identity, in any order. */
  public static boolean sameSet(Member[] a, Member[] b) {
    if (a.length != b.length) {
      return false;
    }
    for (Member m : a) {
      if (!Member.in(b, m)) {
        return false;
      }
    }
    return true;
  }

  private static Member[] trim(Member[] a, int n) {
    return n == 0 ? Member.NONE : Arrays.copyOf(a, n);
  }
}
