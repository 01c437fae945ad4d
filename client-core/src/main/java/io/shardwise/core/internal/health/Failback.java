package io.shardwise.core.internal.health;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.RejoinPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * The failback protocol: what keeps a node that comes back, and the nodes that took its keys while
 * it was out, from serving a value older than one this client wrote.
 *
 * <p>Key K lives on node A; A is ejected; K is written on B instead; A returns still holding the
 * old K (twemproxy issue 472). And the mirror image: once A is back and K is rewritten there, B's
 * copy is the old one, and it is read again during A's next outage. So:
 *
 * <ol>
 *   <li>A write of K that goes to B because A (and any node between them in K's order) is out is
 *       recorded in the journal of each node it skipped before it is sent, and carries at most the
 *       failover TTL, so that a copy nobody deletes (this process ended, another process reads it)
 *       expires soon.
 *   <li>Before A is readmitted, every key in its journal is deleted on A (or A is emptied, with the
 *       {@link RejoinPolicy#FLUSH flush} policy). Then, under A's fence, the journal is emptied
 *       into the skipped-to nodes' {@link DirtyCopies}, and A turns healthy.
 *   <li>A read that fails over to B for a key whose copy there is marked is answered as a miss
 *       until the copy's delete is confirmed.
 * </ol>
 *
 * <p>The fence. A redirected write holds the read side of the fence of each node it skips while
 * it records its key and hands the request to its connection; the readmission holds the write
 * side while it checks that A holds no journaled key any more and flips A to healthy. So every
 * redirected write is either journaled and queued before the flip (and the deletes that follow on
 * B are queued behind it: a connection is one ordered stream), or routed after it, to A. Without
 * the fence a write routed just before a readmission could land on B after B's copy was deleted.
 *
 * <p>A journal is bounded; when one is full, writes that would skip its node fail with a {@link
 * NodeUnavailableException} saying so, rather than being sent unrecorded: an unrecorded write
 * could leave an older value on A to be read when it returns.
 */
public final class Failback {

  /** Rounds of deletes outside the fence before the last one is done inside it. */
  private static final int OPEN_ROUNDS = 4;

  private final FailoverOptions options;
  private final ClientMetrics metrics;
  private final boolean tracking;
  /** Stamps of old-copy marks: readmissions, and writes of moved keys. */
  private final AtomicLong stamps = new AtomicLong();
  private final Executor healthThread;
  private final OldCopyDeletes deletes;
  /** Asked first in a rejoin step: {@link #checkBeforeRejoin}. */
  private volatile Function<Member, CompletableFuture<Void>> beforeRejoin = m -> CompletableFuture.completedFuture(null);
  /** Told of the keys whose copies a member lost, by a rejoin or a sweep: see {@link #onCopiesDeleted}. */
  private volatile BiConsumer<Member, Collection<String>> copiesDeleted = (m, keys) -> {};

  /** One member's journal, old-copy marks and fence. */
  public static final class Slot {
    final Journal journal;
    public final DirtyCopies dirty;
    final ReentrantReadWriteLock fence = new ReentrantReadWriteLock();
    /** The deletes of old copies under way on the member (sweep or rejoin), or null: one at a time. */
    final AtomicReference<CompletableFuture<Void>> cleaning = new AtomicReference<>();

    Slot(int capacity) {
      this(new Journal(capacity), new DirtyCopies());
    }

    Slot(Journal journal, DirtyCopies dirty) {
      this.journal = journal;
      this.dirty = dirty;
    }
  }

  Failback(FailoverOptions options, ClientMetrics metrics, Executor healthThread) {
    this.healthThread = healthThread;
    this.options = options;
    this.metrics = metrics;
    this.tracking = options.rejoinPolicy() != RejoinPolicy.KEEP;
    this.deletes = new OldCopyDeletes(options);
  }

  /**
   * {@code listener} is told, on the health thread, of the keys whose copies on a member were
   * deleted because they were old: the journaled keys of a member just readmitted (it missed their
   * writes), and the old copies the sweep or a rejoin deleted. With replicas, their current values
   * are handed to it from the other replicas ({@code Repairs}).
   */
  public void onCopiesDeleted(BiConsumer<Member, Collection<String>> listener) {
    copiesDeleted = listener;
    deletes.onDeleted(listener);
  }

  /** Gives a new member its journal and fence. */
  void admit(Member m) {
    m.failback = new Slot(options.journalCapacity());
  }

  /**
   * Gives a server added back to the fleet a fence, and the journal and old-copy marks of its
   * earlier member: the keys written elsewhere while that one was out (deleted on the server before
   * it serves, see {@link FleetHealth#admit(Member, Member)}), and the keys whose copy on it is old
   * (deleted once it is available, and not read before).
   */
  void admit(Member m, Member earlier) {
    m.failback = new Slot(earlier.failback.journal, earlier.failback.dirty);
  }

  /**
   * The TTL of a write sent elsewhere because its node is out: {@code ttl}, at most the failover
   * TTL ({@link Duration#ZERO}, no expiry, becomes the failover TTL).
   */
  public Duration cap(Duration ttl) {
    Duration max = options.failoverTtl();
    return ttl.isZero() || ttl.compareTo(max) > 0 ? max : ttl;
  }

  /**
   * Whether the copy of {@code key} on {@code node} may be older than a value this client wrote
   * elsewhere (see {@link DirtyCopies}): a read there is answered as a miss.
   */
  public boolean isOldCopy(Member node, String key) {
    return node.failback.dirty.contains(key);
  }

  /**
   * Marks the copy of {@code key} on {@code node}, a node that owned the key before a server-list
   * change (or that a read may look at but is out), as old: this client is writing the key on
   * {@code target}. Called before the write is sent. The copy is not read on {@code node} from now
   * until a delete of it there is confirmed; the periodic sweep sends that delete once {@code node}
   * is available. The copies that writes made elsewhere while {@code node} was out are marked too.
   *
   * @return false if {@code node} holds {@link FailoverOptions#journalCapacity()} marks already
   *     (it has been out, or out of the fleet, for many writes): the mark is not recorded
   */
  public boolean markOldCopy(Member node, String key, Member target) {
    markEarlierCopies(node, key, target);
    return markOldCopy(node, key);
  }

  /**
   * Marks as old the copies of {@code key} that writes sent elsewhere while {@code node} was out
   * left on other nodes, now that a write of the key goes to {@code target}: while the node stays
   * out (or out of the fleet), a later write of the key can go to another node than the earlier
   * ones (another server list routes it elsewhere), and a read routed to an earlier one must not
   * find the older value there. The node's readmission marks them all in any case.
   */
  void markEarlierCopies(Member node, String key, Member target) {
    Member[] earlier = tracking ? node.failback.journal.targetsOf(key) : null;
    if (earlier == null) {
      return;
    }
    for (Member holder : earlier) {
      if (holder != target) {
        markOldCopy(holder, key);
      }
    }
  }

  /**
   * Marks the copy of {@code key} on {@code node}, a replica whose write of it failed while another
   * replica's succeeded, as old: it is not read there until a delete or a later write of it there
   * is confirmed (the periodic sweep sends the delete).
   *
   * @return false if the node holds {@link FailoverOptions#journalCapacity()} marks already: the
   *     mark is not recorded
   */
  public boolean markFailedCopy(Member node, String key) {
    return !tracking || markOldCopy(node, key);
  }

  /**
   * Marks the copy of {@code key} on {@code node} as old, whatever the rejoin policy: for a warm-up
   * copy of an older value that a write of the key had to delete and could not. It is not read there
   * until a delete or a later write of it there is confirmed (the periodic sweep sends the delete).
   *
   * @return false if the node holds {@link FailoverOptions#journalCapacity()} marks already: the
   *     mark is not recorded
   */
  public boolean markOldCopy(Member node, String key) {
    DirtyCopies dirty = node.failback.dirty;
    if (dirty.size() >= options.journalCapacity() && !dirty.contains(key)) {
      if (!dirty.hasOverflowed()) {
        dirty.overflowed();
        metrics.journalFull(node.node);
      }
      return false;
    }
    dirty.mark(key, stamps.incrementAndGet());
    return true;
  }

  /** Keys journaled against {@code node} while it is out. */
  int journaled(Member node) {
    return node.failback.journal.size();
  }

  // ---- writes ----------------------------------------------------------------------------------

  /** A fence for one operation; close it once its requests are sent. */
  public Fence fence() {
    return new Fence(this);
  }

  boolean tracking() {
    return tracking;
  }

  ClientMetrics metrics() {
    return metrics;
  }

  FailoverOptions options() {
    return options;
  }

  // ---- readmission -----------------------------------------------------------------------------

  /**
   * {@code check} runs first in the rejoin step of a node that answered its probe; the node stays
   * out, and is probed again, if it fails or takes longer than the probe timeout. The replicas'
   * healing reads there which run of its data the server is in, so that a server that came back
   * empty is known to be before it serves again ({@code heal.Refills}).
   */
  public void checkBeforeRejoin(Function<Member, CompletableFuture<Void>> check) {
    beforeRejoin = check;
  }

  /**
   * The rejoin step of node {@code x}, which answered its probe: the check before it, then removes
   * from it what it may hold that is older than this client's writes, then turns it healthy with
   * {@code flip} under its fence, on the health thread. Completes with what was done, in words;
   * fails (the node stays out) if the check, a delete or a flush failed or timed out.
   */
  CompletableFuture<String> rejoin(Member x, Runnable flip) {
    return CompletableFuture.completedFuture(x)
        .thenCompose(beforeRejoin)
        .orTimeout(options.probeTimeout().toNanos(), TimeUnit.NANOSECONDS)
        .thenCompose(ok -> rejoinStep(x, flip));
  }

  private CompletableFuture<String> rejoinStep(Member x, Runnable flip) {
    Journal journal = x.failback.journal;
    switch (options.rejoinPolicy()) {
      case KEEP:
        return CompletableFuture.supplyAsync(
            () -> {
              flip.run();
              return "rejoin policy keep: readmitted with its data";
            },
            healthThread);
      case FLUSH:
        if (journal.size() == 0) {
          return readmit(x, flip).thenApply(done -> "rejoin policy flush: " + done.describe("it kept its data"));
        }
        return deletes.step(x.connection.flushAll())
            .thenCompose(
                flushed -> {
                  journal.emptied();
                  return readmit(x, flip);
                })
            .thenApply(done -> "rejoin policy flush: emptied it; " + done.describe(""));
      case JOURNAL:
        return deleteRounds(x, 0)
            .thenCompose(deleted -> deletes.deleteMarked(x, true))
            .thenCompose(deleted -> readmit(x, flip))
            .thenApply(done -> "rejoin policy journal: " + done.describe("deleted them on it"));
      default:
        throw new AssertionError(options.rejoinPolicy());
    }
  }

  /** What a readmission handed over: journaled keys, and the nodes holding copies of them. */
  private record Readmitted(int keys, int copyNodes) {
    String describe(String onNode) {
      if (keys == 0) {
        return "nothing was written elsewhere while it was out";
      }
      return keys + (keys == 1 ? " key was" : " keys were") + " written elsewhere while it was out"
          + (onNode.isEmpty() ? "" : "; " + onNode) + "; their copies on " + copyNodes
          + (copyNodes == 1 ? " other node are" : " other nodes are") + " deleted next";
    }
  }

  /**
   * Deletes the journaled keys on {@code x} without holding its fence, a few rounds (writes keep
   * adding keys meanwhile); the last keys are deleted inside the fence by {@link #readmit}. A key
   * leaves the journal only once the node confirmed its own delete: one whose delete failed, or
   * whose batch did, is sent again in the next round. Fails (the node stays out) when a round had
   * deletes to send and the node confirmed none of them.
   */
  private CompletableFuture<Void> deleteRounds(Member x, int round) {
    Journal journal = x.failback.journal;
    List<String> pending = journal.pendingOnNode();
    if (pending.isEmpty() || round == OPEN_ROUNDS) {
      return CompletableFuture.completedFuture(null);
    }
    return deletes.deleteOn(x, pending)
        .thenCompose(
            done -> {
              journal.deletedOnNode(done.confirmed());
              if (done.confirmed().isEmpty()) {
                return CompletableFuture.failedFuture(done.failure(x));
              }
              return deleteRounds(x, round + 1);
            });
  }

  /**
   * The last step, on the health thread, inside {@code x}'s fence: deletes on {@code x} the keys
   * journaled since the last round, and again those whose delete a batch cut short left
   * unconfirmed (redirected writes wait meanwhile: at most the probe timeout),
   * hands the journal over to the nodes that hold the copies, and flips {@code x} to healthy.
   * Then starts deleting those copies. Fails, leaving {@code x} out, unless the node confirmed the
   * delete of every key still journaled.
   */
  private CompletableFuture<Readmitted> readmit(Member x, Runnable flip) {
    return CompletableFuture.supplyAsync(
        () -> {
          Journal journal = x.failback.journal;
          Map<String, Member[]> moved;
          ReentrantReadWriteLock.WriteLock fence = x.failback.fence.writeLock();
          fence.lock();
          try {
            // Nothing is journaled meanwhile: the keys pending are those whose delete A has not
            // confirmed yet. Those of a batch cut short are sent again, within the probe timeout.
            long deadline = System.nanoTime() + options.probeTimeout().toNanos();
            List<String> late = journal.pendingOnNode();
            while (!late.isEmpty()) {
              OldCopyDeletes.Deleted done = await(deletes.deleteOn(x, late), deadline);
              journal.deletedOnNode(done.confirmed());
              Throwable unconfirmed = done.failure(x);
              if (unconfirmed == null) {
                break;
              }
              if (done.confirmed().isEmpty() || System.nanoTime() - deadline >= 0) {
                throw new CompletionException(unconfirmed); // stays out; the keys stay journaled
              }
              late = journal.pendingOnNode();
            }
            moved = journal.drain();
            long stamp = stamps.incrementAndGet();
            moved.forEach(
                (key, targets) -> {
                  for (Member t : targets) {
                    t.failback.dirty.mark(key, stamp);
                  }
                });
            if (!moved.isEmpty()) {
              copiesDeleted.accept(x, moved.keySet()); // queued before the flip, copied once it serves
            }
            flip.run();
          } finally {
            fence.unlock();
          }
          Set<Member> holders = new LinkedHashSet<>();
          moved.values().forEach(targets -> holders.addAll(Arrays.asList(targets)));
          holders.forEach(deletes::deleteOldCopies);
          return new Readmitted(moved.size(), holders.size());
        },
        healthThread);
  }

  /** The periodic sweep of the old copies of {@code members} ({@link OldCopyDeletes#sweep}). */
  void sweep(Iterable<Member> members) {
    deletes.sweep(members);
  }

  /** Waits for a step on the calling thread, until {@code deadline} ({@link System#nanoTime()}). */
  private static <T> T await(CompletableFuture<T> f, long deadline) {
    try {
      return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new CompletionException(e.getCause());
    } catch (TimeoutException e) {
      throw new CompletionException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CompletionException(e);
    }
  }
}
