package io.shardwise.core.internal.route;

import io.shardwise.core.internal.health.Member;
import io.shardwise.routing.HashTag;
import java.util.Arrays;

/**
 * Where a key that moved in a server-list change is read and written: the decision only, pure
 * and without I/O, from one {@link Topology} snapshot and one instant (the phases of {@link
 * Transition}). The routing client executes it.
 *
 * <p>For a key, each change of the topology's {@link Topology#history} names the node that owned
 * it before that change. From them:
 *
 * <ul>
 *   <li>the <b>serving placement</b>: the topology itself, or, while the most recent change is
 *       settling and the key moved in it, the placement before it (as a client that has not
 *       applied the change yet routes the key);
 *   <li>the <b>sources</b>: the previous owners of changes still warming, most recent first, read
 *       in turn after a miss on the serving node (so that a change made while another is warming
 *       keeps the first one's keys warm);
 *   <li>the <b>clears</b>: where a write of the key also deletes it at once, because a read looks
 *       there: the sources, and the new owner while the key is served by the previous placement.
 *       The node that takes the write is left out ({@link #clearsBesides}): a write never deletes
 *       what it writes;
 *   <li>the <b>former owners</b>: previous owners of changes only remembered, where a write leaves
 *       a mark instead (see {@link Failback#markOldCopy}), so that the value they still hold is
 *       never read once the key moves back to them or fails over to them.
 * </ul>
 */
public final class MovedKeys {

  private MovedKeys() {}

  /** The decision for one key. */
  public static final class Move {
    /** The placement the key is read and written on now. */
    public final Topology serving;
    /** The key's node in {@link #serving}. */
    public final int servingPrimary;
    /** The key's node in the current topology, where a warm-up copy goes. */
    public final Member owner;
    /** Previous owners read after a miss on the serving node, in order; none is the serving node. */
    public final Member[] sources;
    /** Nodes a write of the key deletes it on, besides the one that takes the write. */
    public final Member[] clears;
    /** Remembered previous owners a write of the key marks, besides the one that takes it. */
    public final Member[] formerOwners;
    /** Whether a hit on a source may be copied to {@link #owner} now. */
    public final boolean copies;

    Move(
        Topology serving,
        int servingPrimary,
        Member owner,
        Member[] sources,
        Member[] clears,
        Member[] formerOwners,
        boolean copies) {
      this.serving = serving;
      this.servingPrimary = servingPrimary;
      this.owner = owner;
      this.sources = sources;
      this.clears = clears;
      this.formerOwners = formerOwners;
      this.copies = copies;
    }

    /** Whether the key is served by the placement before the most recent change (it is settling). */
    public boolean settling(Topology current) {
      return serving != current;
    }

    /** Whether anything besides the serving node is read or written for this key. */
    public boolean touchesOthers() {
      return sources.length != 0 || clears.length != 0 || formerOwners.length != 0;
    }

    /** {@link #clears} without {@code target}, the node that takes the write. */
    public Member[] clearsBesides(Member target) {
      return without(clears, target);
    }

    /** {@link #formerOwners} without {@code target}. */
    public Member[] formerOwnersBesides(Member target) {
      return without(formerOwners, target);
    }
  }

  private static final Member[] NONE = new Member[0];

  /**
   * The route of {@code key} on {@code t} at {@code nowNanos}, or null when {@code t} has no
   * history (the key is routed by {@code t} alone).
   */
  public static Move route(Topology t, String key, long nowNanos) {
    Transition[] history = t.history;
    if (history.length == 0) {
      return null;
    }
    long hash = t.hash(key);
    int primary = t.router.primary(hash);
    Member owner = t.members[primary];
    String hasher = t.nodes.size() > 1 ? t.router.hasher().name() : null;
    Member[] previousOwners = new Member[history.length];
    for (int i = 0; i < history.length; i++) {
      Topology p = history[i].previous;
      previousOwners[i] = p.members[primaryOf(p, key, hash, hasher, t.hashTag)];
    }
    Transition latest = history[0];
    boolean settling = latest.phase(nowNanos) == Transition.Phase.SETTLING && previousOwners[0] != owner;
    Topology serving = settling ? latest.previous : t;
    int servingPrimary = settling ? primaryOf(latest.previous, key, hash, hasher, t.hashTag) : primary;
    Member servingNode = serving.members[servingPrimary];

    Member[] sources = NONE;
    Member[] clears = NONE;
    Member[] formers = NONE;
    int sourceCount = 0;
    int clearCount = 0;
    int formerCount = 0;
    if (settling) {
      clears = new Member[history.length + 1];
      clears[clearCount++] = owner; // read first by clients already warming
      if (heldBefore(previousOwners, owner)) {
        sources = new Member[history.length];
        sources[sourceCount++] = owner;
      }
    }
    for (int i = settling ? 1 : 0; i < history.length; i++) {
      Member before = previousOwners[i];
      if (before == servingNode || before == owner) {
        continue;
      }
      if (history[i].phase(nowNanos) == Transition.Phase.WARMING) {
        if (contains(sources, sourceCount, before)) {
          continue;
        }
        if (sources == NONE) {
          sources = new Member[history.length];
        }
        sources[sourceCount++] = before;
        if (clears == NONE) {
          clears = new Member[history.length + 1];
        }
        if (!contains(clears, clearCount, before)) {
          clears[clearCount++] = before;
        }
      } else if (!contains(formers, formerCount, before)
          && !contains(sources, sourceCount, before)
          && !contains(clears, clearCount, before)) {
        if (formers == NONE) {
          formers = new Member[history.length];
        }
        formers[formerCount++] = before;
      }
    }
    // A former owner that is also a source or a clear (of a later change) is deleted at once.
    formers = removeAll(formers, formerCount, sources, sourceCount, clears, clearCount);
    return new Move(
        serving,
        servingPrimary,
        owner,
        trim(sources, sourceCount),
        trim(clears, clearCount),
        formers,
        latest.copies(nowNanos));
  }

  /**
   * Whether {@code owner}, the key's node now, was its node before an earlier change of the history
   * than the most recent one ({@code previousOwners} from index 1): the key moves back to it, as in
   * a change reversed within its settle or warm-up. While the most recent change settles, such an
   * owner is read after a miss on the serving node: it holds the value written before the key left
   * it, every later write of the key deleted it there (a source or clear) or marked it old (a former
   * owner), and writes while settling delete it there too.
   */
  private static boolean heldBefore(Member[] previousOwners, Member owner) {
    for (int i = 1; i < previousOwners.length; i++) {
      if (previousOwners[i] == owner) {
        return true;
      }
    }
    return false;
  }

  /**
   * The node of {@code key} in placement {@code p}, reusing {@code hash} where {@code p} hashes alike:
   * the same hasher, and the same hash tag (a change of the tag hashes another part of the key).
   */
  private static int primaryOf(Topology p, String key, long hash, String hasher, HashTag tag) {
    if (p.nodes.size() == 1) {
      return 0;
    }
    if (hasher != null && hasher.equals(p.router.hasher().name()) && tag.equals(p.hashTag)) {
      return p.router.primary(hash);
    }
    return p.primary(key);
  }

  private static boolean contains(Member[] a, int n, Member m) {
    for (int i = 0; i < n; i++) {
      if (a[i] == m) {
        return true;
      }
    }
    return false;
  }

  private static Member[] removeAll(Member[] a, int n, Member[] b, int nb, Member[] c, int nc) {
    if (n == 0) {
      return NONE;
    }
    Member[] out = new Member[n];
    int k = 0;
    for (int i = 0; i < n; i++) {
      if (!contains(b, nb, a[i]) && !contains(c, nc, a[i])) {
        out[k++] = a[i];
      }
    }
    return trim(out, k);
  }

  private static Member[] trim(Member[] a, int n) {
    return n == 0 ? NONE : n == a.length ? a : Arrays.copyOf(a, n);
  }

  private static Member[] without(Member[] a, Member m) {
    if (!contains(a, a.length, m)) {
      return a;
    }
    Member[] out = new Member[a.length - 1];
    int k = 0;
    for (Member x : a) {
      if (x != m) {
        out[k++] = x;
      }
    }
    return out;
  }
}
