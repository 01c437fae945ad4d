package io.shardwise.core.internal.heal;

import io.shardwise.client.ClientMetrics;
import io.shardwise.core.internal.health.Member;
import io.shardwise.spi.ServerRun;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Servers that came back empty, and their refill. Every check interval ({@link
 * io.shardwise.core.ReplicaRepair#checkInterval()}, 5 s by default) each serving member
 * is asked which run of its data it is in ({@link ServerRun}: memcached {@code stats}, Redis {@code
 * INFO}); a run id different from the last one read means the server restarted or was flushed
 * since. From then on, until the refill ends, its keys count as missing copies:
 *
 * <ul>
 *   <li>the estimate of what it lacks is the keys it held at the last check before, less those it
 *       holds now (all the server's keys: on a shared fleet, other applications' too, which this
 *       client does not put back);
 *   <li>reads of the keys it is a replica of try it first ({@link Member#refilling}), and their
 *       read repairs into it count as cause {@code refill}, not {@code read}: each read that misses
 *       there and hits on another replica puts the copy back. Nothing scans the other servers for
 *       its keys (docs/replicas.md says why);
 *   <li>the refill ends when the estimate falls to 1% of what it held, or when a whole interval
 *       passes without a refill copy (what is still missing is not being read).
 * </ul>
 *
 * <p>Checks and their outcomes run on the health thread; the counts are read from any thread.
 */
public final class Refills {

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.health");

  /** The estimate at or below which a refill ends, as a share of what the server held. */
  static final double DONE_SHARE = 0.01;

  private final Executor healthThread;
  private final ClientMetrics metrics;
  private final Map<Member, Watch> watches = new ConcurrentHashMap<>();

  public Refills(Executor healthThread, ClientMetrics metrics) {
    this.healthThread = healthThread;
    this.metrics = metrics;
  }

  /** What is known of one member's runs; changed on the health thread only. */
  private static final class Watch {
    /** The run the last check read, null before one did. */
    ServerRun last;
    /** The items held at the last check before it came back empty, while a refill is under way. */
    long heldBefore;
    /** Keys missing, while a refill is under way; 0 otherwise. */
    volatile long missing;
    volatile boolean refilling;
    /** Refill copies made (read on any thread). */
    final java.util.concurrent.atomic.LongAdder copied = new java.util.concurrent.atomic.LongAdder();
    /** {@link #copied} at the previous check. */
    long copiedAtLastCheck;
    /** {@link #copied} when the refill under way started. */
    long copiedAtStart;
  }

  /**
   * Checks each of {@code members} that serves now; called every check interval on the health
   * thread. A check that fails is skipped: the failure detector counts the server's
   * failures, not this.
   */
  public void check(Collection<Member> members) {
    watches.keySet().removeIf(Member::retired);
    // A member no longer checked (its topology has one replica now) is not refilled any more.
    watches.forEach(
        (m, w) -> {
          if (w.refilling && !members.contains(m)) {
            w.refilling = false;
            m.refilling = false;
            w.missing = 0;
            w.last = null;
          }
        });
    for (Member m : members) {
      if (!m.available() || m.retired()) {
        continue;
      }
      m.connection
          .serverRun()
          .whenComplete(
              (run, failure) -> {
                if (failure == null && run != null) {
                  healthThread.execute(() -> observe(m, run));
                }
              });
    }
  }

  /**
   * Reads the run {@code m} is in before it is readmitted after an outage (see {@link
   * io.shardwise.core.internal.health.Failback#checkBeforeRejoin}): a server that restarted or
   * was flushed while it was out is refilling from the moment it serves, not from the next check:
   * its first reads already try it first and put its copies back. Completes on the health thread.
   */
  public CompletableFuture<Void> checkBeforeServing(Member m) {
    return m.connection
        .serverRun()
        .thenAcceptAsync(
            run -> {
              if (run != null) {
                observe(m, run);
              }
            },
            healthThread);
  }

  /** {@code m} answered {@code run}: a new run starts a refill; a refill under way is updated. */
  void observe(Member m, ServerRun run) {
    if (m.retired()) {
      return;
    }
    Watch w = watches.computeIfAbsent(m, x -> new Watch());
    ServerRun before = w.last;
    w.last = run;
    if (before != null && !before.id().equals(run.id())) {
      // Emptied again during its refill: what it held before the first still counts.
      w.heldBefore = w.refilling ? Math.max(w.heldBefore, before.items()) : before.items();
      long missing = Math.max(0, w.heldBefore - run.items());
      metrics.cameBackEmpty(m.node, missing); // counted before the status shows it
      w.missing = missing;
      w.copiedAtLastCheck = w.copied.sum();
      if (!w.refilling) {
        w.copiedAtStart = w.copiedAtLastCheck;
      }
      w.refilling = true;
      m.refilling = true;
      LOG.info(
          "{} came back empty or was flushed ({} -> {}): it held {} keys before and holds {};"
              + " about {} copies are missing, put back by the read repairs of the keys read",
          m.node.name(),
          before.id(),
          run.id(),
          w.heldBefore,
          run.items(),
          w.missing);
      return;
    }
    if (!w.refilling) {
      return;
    }
    long copied = w.copied.sum();
    w.missing = Math.max(0, w.heldBefore - run.items());
    boolean done = w.missing <= w.heldBefore * DONE_SHARE;
    boolean idle = copied == w.copiedAtLastCheck;
    w.copiedAtLastCheck = copied;
    if (done || idle) {
      w.refilling = false;
      m.refilling = false;
      LOG.info(
          "{}: refill ended ({}): {} keys held, against {} before it came back empty; {} copies put back",
          m.node.name(),
          done ? "99% of its keys are back" : "no refill copy since the previous check",
          run.items(),
          w.heldBefore,
          copied - w.copiedAtStart);
      w.missing = 0;
    }
  }

  /** How many members' runs were read. */
  public int watched() {
    return watches.size();
  }

  /** Whether a refill of {@code m} is under way. */
  public boolean refilling(Member m) {
    Watch w = watches.get(m);
    return w != null && w.refilling;
  }

  /** A refill copy was made to {@code m}. */
  void copied(Member m) {
    Watch w = watches.get(m);
    if (w != null) {
      w.copied.increment();
    }
  }

  /** The estimate of the copies {@code m} lacks while a refill is under way; 0 otherwise. */
  public long missing(Member m) {
    Watch w = watches.get(m);
    return w == null ? 0 : w.missing;
  }

  /** Starts the checks of {@code members} on {@code scheduler} (the health thread). */
  public void start(java.util.concurrent.ScheduledExecutorService scheduler, Duration interval, Supplier<Collection<Member>> members) {
    long nanos = interval.toNanos();
    scheduler.scheduleWithFixedDelay(() -> check(members.get()), nanos / 5, nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }
}
