package io.shardwise.core.internal.route;

import io.shardwise.core.internal.health.Member;
import io.shardwise.routing.HashTag;
import java.util.Arrays;

/**
 * Where a key that moved in a change is read and written: the decision only, pure and without I/O,
 * from one {@link Topology} snapshot and one instant (the phases of {@link Transition}). The
 * executors carry it out.
 *
 * <p>A key <i>moved</i> in a change when its set of replicas (its first N servers of the preference
 * list, N being each placement's own replica count) differs before and after it; the order alone
 * does not count, as every replica holds the key. With one replica, the set is the key's node. From
 * the key's replica sets in the topology and in the previous placement of each change of its
 * history:
 *
 * <ul>
 *   <li>the <b>serving placement</b>: the topology, or, while the most recent change settles and
 *       the key moved in it, the placement before it, as a client that has not applied the change
 *       yet routes the key; reads and writes go to its replicas there;
 *   <li>the <b>sources</b>: previous replicas of changes still warming that are not replicas now,
 *       most recent change first, read in turn after every serving replica missed (so that a change
 *       made while another is warming keeps the first one's keys warm);
 *   <li>the <b>clears</b>: where a write also deletes the key at once because a read may look
 *       there: the sources, and while settling the new replicas that are not serving ones (clients
 *       already warming read them first); a clear that is out, or whose delete fails, gets a mark
 *       instead. A write never deletes what it writes: a clear that takes the write is left out;
 *   <li>the <b>former owners</b>: previous replicas of changes only remembered, where a write
 *       leaves a mark instead ({@code Failback#markOldCopy}), so that the value they still hold is
 *       never read once the key moves back to them or fails over to them;
 *   <li>the <b>owners</b>: the key's replicas in the topology, and among them the ones that
 *       <b>arrived</b> in the most recent change (a read tries them first, so that a hit elsewhere
 *       is copied to them).
 * </ul>
 */
public final class Moves {

  private Moves() {}

  /** The decision for one key, in the terms above; {@code copies}: whether a hit on a source may be copied to the owners now. */
  public record Move(
      Topology serving, Member[] owners, Member[] arrived, Member[] sources, Member[] clears, Member[] formerOwners, boolean copies) {

    /** Whether the key is served by the placement before the most recent change (it is settling). */
    public boolean settling(Topology current) {
      return serving != current;
    }

    /** Whether anything besides the serving replicas is read or written for this key. */
    public boolean touchesOthers() {
      return sources.length != 0 || clears.length != 0 || formerOwners.length != 0;
    }

    /**
     * Whether the key is routed on {@code current} alone: served there, nothing else touched, no
     * warm-up copy to race with (a key whose set grew touches no other node, but is copied to the
     * replica that arrived).
     */
    public boolean plain(Topology current) {
      return serving == current && !touchesOthers() && arrived.length == 0;
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
   * The route of {@code key} on {@code t} at {@code nowNanos}, or null when {@code t} has no history
   * (the key is routed by {@code t} alone). Each placement has its own number of replicas: a change
   * of it moves replica sets as a change of router does.
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
   * Whether {@code m} takes writes of {@code key} on {@code t} or in a placement it still
   * remembers: one of its replicas there. A spilled copy is never deleted on such a node (see
   * {@code BoundedReads#afterWrites}).
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
   * {@code p} hashes alike: the same hasher, and the same hash tag (a change of the tag hashes
   * another part of the key).
   */
  private static Member[] replicasOf(Topology p, String key, long hash, String hasher, HashTag tag) {
    return p.replicaMembers(hasher != null && hasher.equals(p.router.hasher().name()) && tag.equals(p.hashTag) ? hash : p.hash(key));
  }

  /**
   * Whether {@code m} was a replica of the key before an earlier change of the history than the most
   * recent one ({@code before} from index 1): the key moves back to it, as in a change reversed
   * within its settle or warm-up. While the most recent change settles, such a replica is read after
   * a miss on the serving replicas: it holds the value written before the key left it, every later
   * write of the key deleted it there (a source or clear) or marked it old (a former owner), and
   * writes while settling delete it there too.
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
