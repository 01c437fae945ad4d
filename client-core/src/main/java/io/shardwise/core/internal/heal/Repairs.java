package io.shardwise.core.internal.heal;

import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.core.ReplicaRepair;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.health.Sender;
import io.shardwise.core.internal.route.Moves;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.spi.BatchReply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Copies that give a replica of a key back the copy it lost (Dynamo's read repair and hinted
 * handoff; DeCandia et al., SOSP 2007, sections 4.6 and 4.7), for keys stored on several replicas:
 *
 * <ul>
 *   <li><b>Read repair.</b> A read that missed on replicas of a key and then hit on another writes
 *       the value back to those that missed ({@link #afterRead}).
 *   <li><b>Handoff.</b> A replica that comes back after an outage missed the writes of the keys in
 *       its journal, and a replica whose write of a key failed has had that copy deleted: once it
 *       serves, each such key's current value is read on another replica and copied to it ({@link
 *       #handOff}), a batch at a time.
 * </ul>
 *
 * <p>Every copy goes through the warm-up copy protocol ({@link WarmUp#copy}): the key's generation
 * is noted before the value is read; the copy is an {@code add}, never over a value written there;
 * it is not made if a write of the key came in between, and undone if one comes while it is
 * written; replicated writes move the generation before and after they are sent and wait for the
 * copies under way. A copy is never read from a replica whose copy is marked old, and is made only
 * to a replica of the key in the current placement (one whose copy writers of that placement write
 * and delete), for a key that no change is moving.
 *
 * <p>All copies together are bounded by a rate ({@link ReplicaRepair#ratePerSecond()}, a
 * Resilience4j rate limiter): read repairs beyond it are dropped (a later read repairs them), and
 * a handoff waits for permits between its batches.
 */
public final class Repairs {

  /** What {@code sourceFor} answers when no other replica of the key can be read now. */
  private static final Member NONE_NOW = new Member(io.shardwise.routing.Node.of("none", 1), null);

  /** Keys read on one source replica in one request of a handoff. */
  static final int HANDOFF_BATCH = 100;

  private static final WarmUp.CopyRequests REQUESTS = new WarmUp.CopyRequests("repairTtl", "repairCopy", "repairUndo");

  private final ReplicaRepair options;
  private final WarmUp warmUp;
  private final Sender sender;
  private final ClientMetrics metrics;
  private final RateLimiter rate;
  private final Supplier<Topology> topology;
  private final Executor later;
  private final Refills refills;
  /** Read repairs, refills among them. */
  public final LongAdder readRepairs = new LongAdder();
  public final LongAdder handoffs = new LongAdder();
  public final LongAdder dropped = new LongAdder();
  /**
   * Per member, the keys waiting for a handoff, and whether a run is under way; changed under its
   * own lock, read without it only to see that it is empty.
   */
  private final Map<Member, Handoff> handoffsByMember = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * @param topology the current topology, read when a handoff batch is planned
   * @param later runs a handoff batch again once permits are due (not on an I/O thread)
   */
  public Repairs(
      ReplicaRepair options,
      WarmUp warmUp,
      Sender sender,
      ClientMetrics metrics,
      Supplier<Topology> topology,
      Executor later,
      Refills refills) {
    this.options = options;
    this.warmUp = warmUp;
    this.sender = sender;
    this.metrics = metrics;
    this.topology = topology;
    this.later = later;
    this.refills = refills;
    this.rate =
        RateLimiter.of(
            "shardwise-repairs",
            RateLimiterConfig.custom()
                .limitForPeriod(Math.max(1, options.ratePerSecond() / 10))
                .limitRefreshPeriod(Duration.ofMillis(100))
                .timeoutDuration(Duration.ZERO)
                .build());
  }

  /** Whether copies are repaired: a read notes the key's generation only then. */
  public boolean enabled() {
    return options.enabled();
  }

  /**
   * Whether requests on {@code t} take part in repairs: repair is on and a key may have another
   * copy to repair from or to (more than one replica, there or in a placement of its history).
   */
  public boolean enabled(Topology t) {
    return options.enabled() && t.replicated;
  }

  /** The key's generation, noted before a read that may repair ({@link WarmUp#readGeneration}). */
  public long generation(String key) {
    return warmUp.readGeneration(key);
  }

  /**
   * A read of {@code key}, begun at {@code generation}, missed on {@code missedOn} (replicas of the
   * key, not marked old) and then read {@code value} on {@code source}: the value is copied to each
   * of them, unless a write of the key came in between or the rate is spent.
   */
  public void afterRead(String key, CachedValue value, long generation, Member source, List<Member> missedOn) {
    if (generation == WarmUp.NO_COPY) {
      return; // copies of the key were under way when the read began: a later read repairs
    }
    for (Member target : missedOn) {
      if (!target.available() || target.retired() || source.holdsOldCopy(key)) {
        continue;
      }
      if (!rate.acquirePermission()) {
        dropped.increment();
        metrics.repairDropped(target.node, "read");
        continue;
      }
      String cause = refills.refilling(target) ? "refill" : "read";
      warmUp.copy(key, value, generation, source, target, sender, REQUESTS, this::ttlOfRepair, m -> repaired(m, cause));
    }
  }

  private void repaired(Member m, String cause) {
    (cause.equals("handoff") ? handoffs : readRepairs).increment();
    if (cause.equals("refill")) {
      refills.copied(m);
    }
    metrics.repaired(m.node, cause);
  }

  /**
   * The TTL of a repair copy: what the original has left where the server tells (so that the copy
   * never outlives it), at most the repair TTL, and the repair TTL when it does not expire; where
   * the server cannot tell, the warm-up copy TTL.
   */
  Duration ttlOfRepair(Duration left) {
    if (left == null) {
      Duration copy = warmUp.copyTtl();
      return copy.compareTo(options.ttl()) < 0 ? copy : options.ttl();
    }
    return left.isZero() || left.compareTo(options.ttl()) > 0 ? options.ttl() : left;
  }

  // ---- handoff ---------------------------------------------------------------------------------

  /**
   * {@code m} serves again without copies of {@code keys} (deleted before it was readmitted, or
   * after a write of them failed there): each key's current value is copied to it from another
   * replica, in batches paced by the rate. Keys of which {@code m} is not a replica now, or that a
   * change is moving, are left alone.
   */
  public void handOff(Member m, Collection<String> keys) {
    if (!options.enabled() || keys.isEmpty()) {
      return;
    }
    Handoff run;
    synchronized (handoffsByMember) {
      run = handoffsByMember.computeIfAbsent(m, x -> new Handoff(m));
      run.pending.addAll(keys);
      if (run.running) {
        return;
      }
      run.running = true;
    }
    later.execute(run::next);
  }

  /** Whether {@code key} waits to be handed over to {@code m}. */
  public boolean awaitsHandoff(Member m, String key) {
    if (handoffsByMember.isEmpty()) {
      return false;
    }
    synchronized (handoffsByMember) {
      Handoff run = handoffsByMember.get(m);
      return run != null && (run.pending.contains(key) || run.current.contains(key));
    }
  }

  /** The keys waiting for a handoff to one member, and how many. */
  public int handoffsPending(Member m) {
    synchronized (handoffsByMember) {
      Handoff run = handoffsByMember.get(m);
      return run == null ? 0 : run.pending.size() + run.copying;
    }
  }

  /** One member's handoff: its keys, a batch at a time. */
  private final class Handoff {
    final Member target;
    final java.util.LinkedHashSet<String> pending = new java.util.LinkedHashSet<>();
    boolean running;
    /** Keys of the batch being read and copied. */
    int copying;
    /** The keys of that batch. */
    java.util.Set<String> current = new java.util.HashSet<>();

    Handoff(Member target) {
      this.target = target;
    }

    /**
     * Takes the next batch (as many keys as there are permits, at most {@link #HANDOFF_BATCH}) while
     * the target serves; waits while it is out (it may be readmitted a moment after its keys were
     * queued, or be ejected again), and drops its keys once it left the fleet.
     */
    void next() {
      List<String> batch = new ArrayList<>(HANDOFF_BATCH);
      synchronized (handoffsByMember) {
        copying = 0;
        if (pending.isEmpty() || target.retired()) {
          pending.clear();
          running = false;
          handoffsByMember.remove(target);
          return;
        }
        java.util.Iterator<String> keys = pending.iterator();
        while (target.available() && batch.size() < HANDOFF_BATCH && keys.hasNext() && rate.acquirePermission()) {
          batch.add(keys.next());
          keys.remove();
        }
        copying = batch.size();
        current = new java.util.HashSet<>(batch);
      }
      if (batch.isEmpty()) {
        CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS, later).execute(this::next); // permits, or the target, next period
        return;
      }
      copy(batch).whenComplete((x, failure) -> later.execute(this::next));
    }

    /** Reads each key of {@code batch} on a source replica and copies it to the target. */
    CompletableFuture<Void> copy(List<String> batch) {
      Topology t = topology.get();
      if (!target.available() && !target.retired()) {
        again(batch); // out again meanwhile: copied once it serves
        return CompletableFuture.completedFuture(null);
      }
      if (target.retired() || !t.replicated) {
        return CompletableFuture.completedFuture(null);
      }
      long now = System.nanoTime();
      Map<Member, List<String>> bySource = new LinkedHashMap<>();
      int[] replicas = new int[t.replicas];
      boolean waits = false;
      for (String key : batch) {
        Moves.Move move = t.readsHistory(now) ? Moves.route(t, key, now) : null;
        if (move != null && !move.plain(t)) {
          continue; // a change is moving the key: its warm-up copies it
        }
        Member source = sourceFor(t, key, replicas);
        if (source == NONE_NOW) {
          waits = true;
          again(List.of(key)); // no other replica can be read now: later
        } else if (source != null) {
          bySource.computeIfAbsent(source, x -> new ArrayList<>()).add(key);
        }
      }
      if (bySource.isEmpty() && waits) {
        // Nothing to read now, every other replica out: the next batch after a period, not at once,
        // so that keys that wait do not spin through the rate's permits.
        return CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS, later));
      }
      List<CompletableFuture<Void>> reads = new ArrayList<>();
      bySource.forEach((source, keys) -> reads.add(readAndCopy(source, keys)));
      return CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * Keys to hand over again, at the end of the queue; a key of the batch in flight leaves it, so
     * that it is counted once ({@link #handoffsPending}).
     */
    private void again(Collection<String> keys) {
      synchronized (handoffsByMember) {
        for (String key : keys) {
          if (current.remove(key)) {
            copying--;
          }
          pending.add(key);
        }
      }
    }

    /**
     * Another replica of {@code key} to read it on, available and not marked old there; {@link
     * #NONE_NOW} if none can be read now; null if the target is not a replica of the key on {@code t}.
     */
    private Member sourceFor(Topology t, String key, int[] replicas) {
      int count = t.router.replicas(t.hash(key), t.replicas, replicas);
      boolean isReplica = false;
      Member source = null;
      for (int i = 0; i < count; i++) {
        Member m = t.members[replicas[i]];
        if (m == target) {
          isReplica = true;
        } else if (source == null && m.available() && !m.retired() && !m.holdsOldCopy(key)) {
          source = m;
        }
      }
      return !isReplica ? null : source == null ? NONE_NOW : source;
    }

    private CompletableFuture<Void> readAndCopy(Member source, List<String> keys) {
      long[] generations = new long[keys.size()];
      for (int i = 0; i < generations.length; i++) {
        generations[i] = warmUp.readGeneration(keys.get(i)); // before the read
      }
      return sender
          .send(source, "handoffGetMulti", c -> c.getMulti(keys))
          .handle(
              (BatchReply<CachedValue> reply, Throwable failure) -> {
                if (failure != null) {
                  again(keys); // the source failed: later, from it or another
                  return null;
                }
                List<CompletableFuture<Void>> copies = new ArrayList<>();
                for (int i = 0; i < generations.length; i++) {
                  String key = keys.get(i);
                  if (reply.failure(key) != null || source.holdsOldCopy(key)) {
                    again(List.of(key));
                    continue;
                  }
                  CachedValue value = reply.value(key);
                  if (value == null || target.holdsOldCopy(key)) {
                    continue; // gone from the source too, or written and failed on the target meanwhile
                  }
                  // A copy skipped or undone because a write of the key came in between is tried
                  // again: the write did not reach a target that lacked the key (a counter adds
                  // only where it exists).
                  copies.add(
                      warmUp.copy(key, value, generations[i], source, target, sender, REQUESTS, Repairs.this::ttlOfRepair, m -> repaired(m, "handoff"))
                          .handle((held, f) -> {
                            if (f != null || !Boolean.TRUE.equals(held)) {
                              again(List.of(key));
                            }
                            return (Void) null;
                          }));
                }
                return CompletableFuture.allOf(copies.toArray(new CompletableFuture<?>[0]));
              })
          .thenCompose(x -> x == null ? CompletableFuture.<Void>completedFuture(null) : x);
    }
  }
}
