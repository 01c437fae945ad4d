package io.shardwise.core.internal.route;

import io.shardwise.client.LoadReport;
import io.shardwise.client.TopologyChange;
import io.shardwise.client.TopologyStatus;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.spill.BoundedReads;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * A snapshot of the fleet: the nodes, the router built for them and the {@link Member} at each
 * router index, with what is built per server list (the failover order, the bounded-load state),
 * and the server-list changes it came from that moved keys still need ({@link #history}). The
 * client holds the current one by reference and replaces it whole when the server list changes or
 * a change is forgotten; a request reads it once and uses that snapshot to the end.
 *
 * <p>{@link #active} counts the operations using this snapshot, so that the client knows when
 * one that was replaced is no longer used and the members only it referred to can be closed.
 */
public final class Topology {

  public final List<Node> nodes;
  public final Router router;
  public final HashTag hashTag;
  public final Member[] members;
  public final FailoverOrder order;
  /** Whether the member at an index is available; one object, so walks allocate nothing. */
  public final IntPredicate available;
  /** Null when bounded loads are off. */
  public final BoundedReads bounded;
  /**
   * The changes this topology came from, most recent first, while keys that moved in them may be
   * read or marked on their previous node (see {@link Transition}); empty for a client whose list
   * never changed, and never null. Each change's previous placement has no history of its own.
   */
  public final Transition[] history;
  /** How many servers store each key: the first this many of its preference list. */
  public final int replicas;
  /**
   * Whether a key may have more than one copy: more than one replica here, or in a placement of the
   * history. The policies that only copies need (counting on every replica, marking a replica whose
   * write failed, repairs) apply then.
   */
  public final boolean replicated;
  /**
   * Until when ({@link System#nanoTime()}) a previous placement is still read: the end of the most
   * recent change's warm-up. Reads after it need no history.
   */
  private final long readsHistoryUntilNanos;
  public final LongAdder active = new LongAdder();
  /** When this topology was replaced; set once, on the topology thread. */
  public long replacedAtNanos;

  private static final Transition[] NO_HISTORY = new Transition[0];

  /** A placement with one copy of each key and no history. */
  /** The first topology of a client: one member per server, connected and admitted. */
  public static Topology initial(
      Router router, HashTag hashTag, Member[] members, BoundedOptions bounded, int replicas, LongSupplier clock, Failback failback) {
    BoundedReads reads =
        bounded.enabled() ? new BoundedReads(router, bounded, clock, i -> members[i].available(), failback) : null;
    return new Topology(router, hashTag, members, reads, replicas);
  }

  public Topology(Router router, HashTag hashTag, Member[] members, BoundedReads bounded) {
    this(router, hashTag, members, bounded, 1);
  }

  /** A placement with no history, each key on {@code replicas} servers. */
  public Topology(Router router, HashTag hashTag, Member[] members, BoundedReads bounded, int replicas) {
    this(router, hashTag, members, new FailoverOrder(router), bounded, NO_HISTORY, replicas);
  }

  private Topology(
      Router router,
      HashTag hashTag,
      Member[] members,
      FailoverOrder order,
      BoundedReads bounded,
      Transition[] history,
      int replicas) {
    if (replicas < 1) {
      throw new IllegalArgumentException("replicas must be >= 1 but was " + replicas);
    }
    this.replicas = replicas;
    boolean anyReplicated = replicas > 1;
    for (Transition change : history) {
      anyReplicated |= change.previous.replicas > 1;
    }
    this.replicated = anyReplicated;
    this.nodes = router.nodes();
    this.router = router;
    this.hashTag = hashTag;
    this.members = members;
    this.order = order;
    this.bounded = bounded;
    this.history = history;
    this.readsHistoryUntilNanos = history.length == 0 ? 0 : history[0].warmUntilNanos();
    this.available = i -> members[i].available();
    if (members.length != nodes.size()) {
      throw new IllegalArgumentException(members.length + " members for " + nodes.size() + " nodes");
    }
  }

  /** The same placement with another history (most recent change first). */
  public Topology withHistory(Transition[] changes) {
    return new Topology(router, hashTag, members, order, bounded, changes.length == 0 ? NO_HISTORY : changes.clone(), replicas);
  }

  /** The same placement with {@code replacement} at each index (a server added back), no history. */
  public Topology withMembers(Member[] replacement) {
    return new Topology(router, hashTag, replacement, order, bounded, NO_HISTORY, replicas);
  }

  /** The same placement, without history. */
  public Topology placement() {
    return history.length == 0 ? this : withHistory(NO_HISTORY);
  }

  /** The most recent change, or null. */
  public Transition latest() {
    return history.length == 0 ? null : history[0];
  }

  /** Whether a read at {@code nowNanos} may need a previous placement (a change is settling or warming). */
  public boolean readsHistory(long nowNanos) {
    return history.length != 0 && nowNanos - readsHistoryUntilNanos < 0;
  }

  /** {@link #readsHistory(long)} now; reads no clock when there is no history. */
  public boolean readsHistory() {
    return history.length != 0 && System.nanoTime() - readsHistoryUntilNanos < 0;
  }

  /**
   * Whether {@code other} places every key as this one does: the same router over the same servers
   * in the same order, with the same names and weights, the same hash tag and as many replicas.
   */
  public boolean samePlacement(Topology other) {
    return nodes.equals(other.nodes)
        && router.describe().equals(other.router.describe())
        && hashTag.equals(other.hashTag)
        && replicas == other.replicas;
  }

  /**
   * The routing hash of {@code key}: of its hash tag if it has one. Allocation free. With a
   * single node every hash leads to it, so none is computed.
   */
  public long hash(String key) {
    return nodes.size() == 1 ? 0 : hashTag.hash(router.hasher(), key);
  }

  /** Index of the node {@code key} is routed to when every node is healthy. Allocation free. */
  public int primary(String key) {
    return router.primary(hash(key));
  }

  /** The members at {@code nodes[from]} to {@code nodes[to - 1]}, in that order. */
  public Member[] members(int[] nodes, int from, int to) {
    if (to <= from) {
      return Member.NONE;
    }
    Member[] out = new Member[to - from];
    for (int i = from; i < to; i++) {
      out[i - from] = members[nodes[i]];
    }
    return out;
  }

  /** The members that are the replicas of a key with this hash, primary first. */
  public Member[] replicaMembers(long hash) {
    int[] nodes = new int[Math.min(replicas, this.nodes.size())];
    return members(nodes, 0, router.replicas(hash, replicas, nodes));
  }

  public int indexOf(Node node) {
    int i = nodes.indexOf(node);
    if (i < 0) {
      throw new IllegalArgumentException(node + " is not a node of this client; nodes: " + nodes);
    }
    return i;
  }

  /**
   * Adds the members an operation that uses this topology may send to at {@code nowNanos}: its own,
   * and those of the previous placements still read (settling or warming). A previous placement
   * that is only remembered needs no connection: its members are only marked.
   */
  public void collectMembers(java.util.Set<Member> into, long nowNanos) {
    java.util.Collections.addAll(into, members);
    for (Transition change : history) {
      if (change.inWindow(nowNanos)) {
        java.util.Collections.addAll(into, change.previous.members);
      }
    }
  }

  /** The load of each node over the window, with bounded loads; zeros without. */
  public LoadReport loadReport() {
    if (bounded == null || !bounded.spills()) {
      List<LoadReport.NodeLoad> lines = new ArrayList<>();
      for (Node n : nodes) {
        lines.add(new LoadReport.NodeLoad(n, 0, 0, 0, 0));
      }
      return new LoadReport(false, 0, lines, Map.of());
    }
    return bounded.report(nodes);
  }

  /**
   * Where this topology's most recent change is at now, with {@code lastChange} and the warm-up's
   * reads, hits and copies so far.
   */
  public TopologyStatus status(TopologyChange lastChange, long reads, long hits, long copies) {
    TopologyStatus.Phase phase = TopologyStatus.Phase.STABLE;
    Instant ends = null;
    Transition tr = latest();
    if (tr != null) {
      switch (tr.phase(System.nanoTime())) {
        case SETTLING:
          phase = TopologyStatus.Phase.SETTLING;
          ends = tr.change.appliedAt().plusNanos(tr.settleUntilNanos() - tr.startNanos());
          break;
        case WARMING:
          phase = TopologyStatus.Phase.WARMING;
          ends = tr.change.appliedAt().plusNanos(tr.warmUntilNanos() - tr.startNanos());
          break;
        default:
          break;
      }
    }
    return new TopologyStatus(nodes, lastChange, phase, ends, reads, hits, copies);
  }

  /** An operation that counted itself on this topology ({@link #active}) is done with it. */
  public void exit() {
    active.decrement();
  }
}
