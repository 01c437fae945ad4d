package io.shardwise.core.internal.route;

import io.shardwise.client.NoNodeAvailableException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.FailureMode;
import io.shardwise.core.ReplicaReads;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.spill.BoundedReads;
import io.shardwise.spi.KeyRules;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where a key's requests go on a topology snapshot, with no I/O, for single-key and multi-key
 * operations alike. The key's first N distinct servers of its preference list ({@link
 * io.shardwise.routing.Router#replicas}, N = 1 included) are its replicas, primary first, as
 * Dynamo's preference list (DeCandia et al., SOSP 2007, 4.3) and mcrouter's replicated pools; the
 * failure mode's walk goes on past them ({@link #select}). A read tries one replica picked by the
 * power of two choices first ({@link #pickFirst}), or with {@link ReplicaReads#PRIMARY} the replicas
 * in preference order; either way a replica being refilled after it came back empty comes first.
 */
public final class Routes {

  private final ReplicaReads reads;
  private final FailureMode mode;
  private final ThreadLocal<Plan> plans;

  /**
   * A key's replicas, primary first; the available ones not marked old, in the order a read tries
   * them ({@code reads}); the available ones ({@code writes}); those out, which a write is journaled
   * against ({@code out}); the node a read spills to when every replica is at its cap ({@code
   * spill}, else -1). Per thread, overwritten by the thread's next plan.
   */
  public static final class Plan {
    public final int[] replicas;
    public int count;
    public final int[] reads;
    public int readCount;
    public final int[] writes;
    public int writeCount;
    public final int[] out;
    public int outCount;
    public int spill = -1;
    private final int[] overCap; // scratch space of readPlan

    Plan(int n) {
      overCap = new int[n];
      replicas = new int[n];
      reads = new int[n];
      writes = new int[n];
      out = new int[n];
    }
  }

  /** Routes under failure mode {@code mode}, reads ordered as {@code reads} says. */
  public Routes(ReplicaReads reads, FailureMode mode) {
    this.reads = reads;
    this.mode = mode;
    this.plans = ThreadLocal.withInitial(() -> new Plan(2));
  }

  /** {@link #select}: no node is available for the key. */
  public static final int NONE = FailoverOrder.NONE;

  /** A read's node, when the only node left holds a copy that may be old: the read is a miss. */
  public static final int OLD_COPY = -2;

  /** Whether writes and reads of a key whose node is out go to the next node of its order. */
  public boolean redistributes() {
    return mode == FailureMode.REDISTRIBUTE;
  }

  /**
   * The node for a key with this hash and primary: the primary if it is available; with {@link
   * FailureMode#REDISTRIBUTE} the first available node of the key's preference order; else {@link #NONE}.
   */
  public int select(Topology t, long hash, int primary) {
    if (t.members[primary].available()) {
      return primary;
    }
    if (mode != FailureMode.REDISTRIBUTE) {
      return NONE;
    }
    return t.order.route(hash, t.available).target;
  }

  /** The error for a request of {@code key} that found no node (see {@link #select}). */
  public ShardwiseException unavailable(Topology t, int primary, String key) {
    if (mode != FailureMode.REDISTRIBUTE) {
      Member m = t.members[primary];
      return new NodeUnavailableException(
          m.node,
          "ejected (" + m.state().name().toLowerCase(Locale.ROOT) + "); failure mode "
              + mode.id() + " does not send " + KeyRules.shorten(key) + " elsewhere");
    }
    return new NoNodeAvailableException(
        "no node is available for " + KeyRules.shorten(key) + ": all " + t.members.length + " nodes are ejected");
  }

  /** Counts a read sent to {@code m} in the load the power of two choices compares. */
  public void sent(Member m) {
    m.inFlight.incrementAndGet();
    m.recentReads.record(System.nanoTime());
  }

  /** Where a write of {@code key} goes on {@code t}: {@link Plan#reads} in preference order. */
  public Plan plan(Topology t, String key, long hash) {
    int n = t.replicas;
    Plan p = plans.get();
    if (p.replicas.length < n) {
      p = new Plan(n);
      plans.set(p);
    }
    int count = t.router.replicas(hash, n, p.replicas);
    p.count = count;
    p.readCount = 0;
    p.writeCount = 0;
    p.outCount = 0;
    p.spill = -1;
    for (int i = 0; i < count; i++) {
      int node = p.replicas[i];
      Member m = t.members[node];
      if (!m.available()) {
        p.out[p.outCount++] = node;
        continue;
      }
      p.writes[p.writeCount++] = node;
      if (!m.holdsOldCopy(key)) {
        p.reads[p.readCount++] = node;
      }
    }
    return p;
  }

  /**
   * Where a read of {@code key} goes on {@code t}: {@link #plan} with {@link Plan#reads} in the
   * order the read tries them. With bounded loads, the replicas under their caps come first; only
   * when all are at their caps does the read spill past them, along the key's preference order. So
   * a hot key's reads spread over its replicas, which need no copy, before any spills.
   */
  public Plan readPlan(Topology t, String key, long hash) {
    Plan p = plan(t, key, hash);
    BoundedReads bounded = t.bounded;
    if (bounded == null || p.readCount == 0 || !bounded.subject(key, hash)) {
      if (reads == ReplicaReads.P2C && p.readCount > 1) {
        pickFirst(t, p, p.readCount);
      }
      if (p.readCount > 1) {
        refillingFirst(t, p);
      }
      return p;
    }
    // The replicas under their caps first, each part in preference order.
    long total = bounded.loads.total();
    int under = 0;
    int[] over = p.overCap;
    int overCount = 0;
    for (int i = 0; i < p.readCount; i++) {
      int node = p.reads[i];
      if (bounded.underCap(node, total)) {
        p.reads[under++] = node;
      } else {
        over[overCount++] = node;
      }
    }
    System.arraycopy(over, 0, p.reads, under, overCount);
    if (under == 0) {
      int from = p.reads[0];
      p.spill = bounded.spillPastReplicas(hash, p.replicas, p.count, from);
      if (p.spill >= 0 && t.members[p.spill].holdsOldCopy(key)) {
        p.spill = -1; // its copy may be older than a write of this process: not read
      }
    } else if (reads == ReplicaReads.P2C && under > 1) {
      pickFirst(t, p, under);
    }
    return p;
  }

  /**
   * The power of two choices (Mitzenmacher, 2001; Envoy's least-request balancer picks the same way,
   * on requests under way alone): moves the less loaded of two of the first {@code among} readable
   * replicas, drawn at random, to the front of {@link Plan#reads}; a tie goes to either. The load is
   * the reads sent over the last second, which balances the servers over time, plus the requests
   * under way, which steer reads away from a server that stalls before its count says anything.
   */
  private void pickFirst(Topology t, Plan p, int among) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int a = random.nextInt(among);
    int b = random.nextInt(among - 1);
    if (b >= a) {
      b++;
    }
    long now = System.nanoTime();
    long loadA = load(t.members[p.reads[a]], now);
    long loadB = load(t.members[p.reads[b]], now);
    int chosen = loadA < loadB ? a : loadB < loadA ? b : (random.nextBoolean() ? a : b);
    int node = p.reads[chosen];
    System.arraycopy(p.reads, 0, p.reads, 1, chosen);
    p.reads[0] = node;
  }

  /**
   * Moves a replica being refilled after it came back empty ({@link Member#refilling}) to the front
   * of {@link Plan#reads}: a miss there, a hit on the next replica, and the read repair puts the copy
   * back; read in the usual order, a key would never be repaired and would be lost with its other
   * replica. The cost: one miss's round trip per read of a key it lacks, until the refill ends.
   */
  private static void refillingFirst(Topology t, Plan p) {
    for (int i = 1; i < p.readCount; i++) {
      int node = p.reads[i];
      if (t.members[node].refilling) {
        System.arraycopy(p.reads, 0, p.reads, 1, i);
        p.reads[0] = node;
        return;
      }
    }
  }

  private static long load(Member m, long now) {
    return m.recentReads.count(now) + m.inFlight.get();
  }

  /** The rank of {@code node} among the replicas of the last {@link #plan} (0 for the primary). */
  public static int rank(Plan p, int node) {
    for (int i = 0; i < p.count; i++) {
      if (p.replicas[i] == node) {
        return i;
      }
    }
    return -1;
  }
}
