package io.shardwise.core.internal.route;

import io.shardwise.core.ReplicaReads;
import io.shardwise.core.internal.health.Member;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Where the requests of a key stored on N replicas go: the first N distinct servers of its
 * preference list ({@link io.shardwise.routing.Router#replicas}), primary first, as Dynamo's
 * preference list (DeCandia et al., SOSP 2007, section 4.3) and mcrouter's replicated pools. The
 * decisions alone, with no I/O: which replicas are out (a write is journaled against them), which
 * hold a copy marked old (not read), and the order a read tries the others in.
 *
 * <p>A read goes first to one replica picked by the power of two choices: of two replicas drawn at
 * random, the one with fewer requests under way (Mitzenmacher, "The Power of Two Choices in
 * Randomized Load Balancing", 2001; Envoy's least-request balancer picks the same way), then to
 * the others in preference order. With {@link ReplicaReads#PRIMARY} it tries them in preference
 * order from the primary.
 */
public final class ReplicaRoutes {

  private final int n;
  private final ReplicaReads reads;
  private final ThreadLocal<Plan> plans;

  /** A key's replicas on one topology. Per thread, reused: overwritten by the thread's next plan. */
  public static final class Plan {
    /** The replicas, primary first. */
    public final int[] replicas;
    public int count;
    /** Available replicas whose copy is not marked old, in the order a read tries them. */
    public final int[] reads;
    public int readCount;
    /** Available replicas, in preference order: where a write goes. */
    public final int[] writes;
    public int writeCount;
    /** Replicas that are out: a write is journaled against them. */
    public final int[] out;
    public int outCount;

    Plan(int n) {
      replicas = new int[n];
      reads = new int[n];
      writes = new int[n];
      out = new int[n];
    }
  }

  /**
   * @param n replicas per key, at least 2 (with 1 the client takes the single-copy path)
   */
  public ReplicaRoutes(int n, ReplicaReads reads) {
    if (n < 2) {
      throw new IllegalArgumentException("replicas must be >= 2 for replica routes but was " + n);
    }
    this.n = n;
    this.reads = reads;
    this.plans = ThreadLocal.withInitial(() -> new Plan(n));
  }

  public int replicas() {
    return n;
  }

  /** The plan of {@code key} with this hash on {@code t}: belongs to the calling thread. */
  public Plan plan(Topology t, String key, long hash) {
    Plan p = plans.get();
    int count = t.router.replicas(hash, n, p.replicas);
    p.count = count;
    p.readCount = 0;
    p.writeCount = 0;
    p.outCount = 0;
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
    if (reads == ReplicaReads.P2C && p.readCount > 1) {
      pickFirst(t, p);
    }
    return p;
  }

  /**
   * Moves the less loaded of two readable replicas drawn at random to the front of {@link
   * Plan#reads}, the others keeping their order; a tie goes to either, at random.
   */
  private static void pickFirst(Topology t, Plan p) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int a = random.nextInt(p.readCount);
    int b = random.nextInt(p.readCount - 1);
    if (b >= a) {
      b++;
    }
    int loadA = t.members[p.reads[a]].inFlight.get();
    int loadB = t.members[p.reads[b]].inFlight.get();
    int chosen = loadA < loadB ? a : loadB < loadA ? b : (random.nextBoolean() ? a : b);
    int node = p.reads[chosen];
    System.arraycopy(p.reads, 0, p.reads, 1, chosen);
    p.reads[0] = node;
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
