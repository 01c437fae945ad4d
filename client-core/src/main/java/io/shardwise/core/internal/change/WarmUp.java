package io.shardwise.core.internal.change;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeException;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.health.Sender;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Copies of moved keys made while warming up (see {@link Transition}), with the TTL the original
 * has left where the backend tells it (at most the copy TTL), and what keeps a copy from
 * outliving a write of its key in this process. The protocol is the one {@link BoundedReads} uses
 * for spilled copies, with striped generations instead of one per key:
 *
 * <ul>
 *   <li>a write of a key that moved bumps the key's generation before it sends anything, and again
 *       once its requests are done (a read that started during the write may have read the old
 *       value on the previous node before the write's delete reached it), then waits for the copies
 *       of the key under way; so does a write of any key while copies are under way (it may run on
 *       a topology replaced meanwhile); a write that deletes the key deletes it again on the new node
 *       if a copy was sent from a read that started after its first bump ({@link #copiedSince});
 *   <li>a read notes the generation before it reads; it makes a copy only if the generation has
 *       not moved, registers the copy first, and deletes its copy if the generation moved while it
 *       was being written;
 *   <li>a copy that one of these deletes cannot remove (its node is out, or the request failed) is
 *       marked old on its node ({@link #keptCopy}): no read takes it until the sweep's delete of it
 *       is confirmed. If the mark cannot be recorded either, the write fails.
 * </ul>
 *
 * <p>So once a write has completed, no copy of an older value remains readable, and a read that
 * starts afterwards cannot see one. Striping makes unrelated keys share a generation now and then: a
 * copy is then skipped (a miss later), never kept wrongly.
 */
public final class WarmUp {

  private static final int STRIPES = 4096;

  private final AtomicLongArray generations = new AtomicLongArray(STRIPES);
  /** Per stripe, the generation of the latest copy sent (noted before its {@code add} is sent). */
  private final AtomicLongArray sent = new AtomicLongArray(STRIPES);
  /** Per stripe, the counter updates under way ({@link #countingBegins}). */
  private final java.util.concurrent.atomic.AtomicIntegerArray counting =
      new java.util.concurrent.atomic.AtomicIntegerArray(STRIPES);
  private final ConcurrentHashMap<String, Set<CompletableFuture<Void>>> copying = new ConcurrentHashMap<>();
  private final Duration copyTtl;
  private final ClientMetrics metrics;
  private final Failback failback;
  public final java.util.concurrent.atomic.LongAdder reads = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder hits = new java.util.concurrent.atomic.LongAdder();
  public final java.util.concurrent.atomic.LongAdder copies = new java.util.concurrent.atomic.LongAdder();
  /** Told the key of each copy that ends, written, undone or not sent (the near cache); null when none is. */
  private volatile Consumer<String> copyEnded;

  public WarmUp(Duration copyTtl, ClientMetrics metrics, Failback failback) {
    this.copyTtl = copyTtl;
    this.metrics = metrics;
    this.failback = failback;
  }

  private static int stripe(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }

  /** Counts a read on a moved key's previous node, and tells the metrics. */
  public void read(Member previous, Member owner, boolean hit) {
    reads.increment();
    if (hit) {
      hits.increment();
    }
    metrics.warmUpRead(previous.node, owner.node, hit);
  }

  public long generation(String key) {
    return generations.get(stripe(key));
  }

  /** What {@link #readGeneration} notes while copies of the key are under way: matches none. */
  public static final long NO_COPY = Long.MIN_VALUE;

  /**
   * The generation a read notes before it reads a value it may copy ({@link #copy}); {@link
   * #NO_COPY} while copies of the key are under way. A replica may then hold a copy that a write
   * came in between and that is about to be undone: read and copied on to another replica after
   * the write had moved the generation for the last time, it would outlive the write (seen in the
   * failback model with replicas and bounded loads: a handoff read a read repair's copy that was
   * undone a moment later, and copied it to the replica coming back). A copy that started after the
   * generation was read noted the same generation or a later one, so the write that undoes it moves
   * this read's generation too.
   */
  public long readGeneration(String key) {
    long generation = generation(key);
    return isCopying(key) ? NO_COPY : generation;
  }

  /** Whether copies of {@code key} are under way (registered, not yet finished or undone). */
  public boolean isCopying(String key) {
    return !copying.isEmpty() && copying.containsKey(key);
  }

  /**
   * A counter update of {@code key} begins: until {@link #countingEnds}, a copy of the key that lands
   * is undone. The value a copy carries may already hold the update (read on a replica it reached
   * first) while the update is still on its way to the copy's target, where it would count a second
   * time; a set would only write its value again, but an increment adds.
   */
  public void countingBegins(String key) {
    counting.incrementAndGet(stripe(key));
  }

  /** A counter update of {@code key} is done with (see {@link #countingBegins}). */
  public void countingEnds(String key) {
    counting.decrementAndGet(stripe(key));
  }

  /** Moves the key's generation on; returns the new generation. */
  public long bump(String key) {
    return generations.incrementAndGet(stripe(key));
  }

  /**
   * Whether a copy of {@code key} from a read that noted {@code generation} or later may have been
   * sent: a write that removes the key (a delete) and bumped to {@code generation} deletes it on
   * the new node again, once its requests are done and the copies under way have finished. Such a
   * copy read the old value on the previous node before the write's delete reached it, and was
   * added after the write's delete on the new node, before the write's second bump could stop it.
   */
  public boolean copiedSince(String key, long generation) {
    return sent.get(stripe(key)) >= generation;
  }

  /** Whether copies are being written now: writes of any key then wait for them. */
  public boolean copying() {
    return !copying.isEmpty();
  }

  /**
   * Copies {@code value}, read on the key's previous node when the generation was {@code
   * generation}, to {@code owner} with {@code add} (never over a value written there), unless a
   * write of the key came in between; a warm-up copy, with at most the copy TTL.
   */
  public void copy(String key, CachedValue value, long generation, Member previous, Member owner, Sender sender) {
    copy(key, value, generation, previous, owner, sender, WARM_UP_REQUESTS, this::ttlOfCopy, this::warmUpCopied);
  }

  /** The names of a copy's requests in the metrics: reading the TTL, the add, the undo. */
  public record CopyRequests(String ttl, String add, String undo) {}

  private static final CopyRequests WARM_UP_REQUESTS = new CopyRequests("warmUpTtl", "warmUpCopy", "warmUpUndo");

  private void warmUpCopied(Member owner) {
    copies.increment();
    metrics.warmUpCopied(owner.node);
  }

  /**
   * Copies {@code value}, read on {@code source} when the key's generation was {@code generation},
   * to {@code target} with {@code add}, by the protocol above: not at all if a write of the key came
   * in between, and undone if one comes while the copy is written or a counter update of the key
   * is under way when it lands ({@link #countingBegins}). The copy's TTL is {@code ttlOf}
   * of what the source says the original has left (null when it cannot tell); {@code copied} is
   * told of each copy stored; {@code requests} names the requests in the metrics. Completes when
   * the copy is done with: true when the target holds a value of the key (the copy, or a value
   * written there first, which the add did not replace), false when the copy was skipped, undone or
   * failed; fails if an undo could not be marked.
   */
  public CompletableFuture<Boolean> copy(
      String key,
      CachedValue value,
      long generation,
      Member source,
      Member target,
      Sender sender,
      CopyRequests requests,
      UnaryOperator<Duration> ttlOf,
      Consumer<Member> copied) {
    if (generation(key) != generation) {
      return NOT_COPIED;
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    CompletableFuture<Boolean> held = new CompletableFuture<>();
    copying.compute(
        key,
        (k, set) -> {
          Set<CompletableFuture<Void>> s = set != null ? set : ConcurrentHashMap.newKeySet();
          s.add(done);
          return s;
        });
    if (generation(key) != generation) { // a writer that bumps after this check waits for done
      finish(key, done);
      return NOT_COPIED;
    }
    sender
        .send(source, requests.ttl(), c -> c.remainingTtl(key))
        .handle((left, failure) -> ttlOf.apply(failure == null ? left : null))
        .thenCompose(
            ttl -> {
              sent.accumulateAndGet(stripe(key), generation, Math::max); // before the add is sent
              return sender.send(target, requests.add(), c -> c.add(key, value, ttl));
            })
        .whenComplete(
            (stored, failure) -> {
              if (failure == null && Boolean.TRUE.equals(stored)) {
                copied.accept(target);
              }
              // Undone if a write came in between, unless the add was refused: then the value there
              // is not the copy (it may be the write's), and deleting it would lose it.
              boolean refused = failure == null && Boolean.FALSE.equals(stored);
              if ((generation(key) != generation || counting.get(stripe(key)) > 0) && !refused) {
                sender
                    .send(target, requests.undo(), c -> c.delete(key))
                    .whenComplete((x, undoFailure) -> finish(key, done, undoFailure == null ? null : keptCopy(target, key, undoFailure)));
                held.complete(false);
              } else {
                finish(key, done);
                held.complete(failure == null);
              }
            });
    return done.thenCombine(held, (x, h) -> h);
  }

  private static final CompletableFuture<Boolean> NOT_COPIED = CompletableFuture.completedFuture(false);

  /**
   * The TTL of a copy: what the original has left when its server tells (so that a copy never
   * outlives it), at most the copy TTL (which bounds a copy another client's write raced with).
   */
  Duration ttlOfCopy(Duration left) {
    return left == null || left.isZero() || left.compareTo(copyTtl) > 0 ? copyTtl : left;
  }

  /** The warm-up copy TTL: the longest a copy whose original's TTL is unknown may live. */
  public Duration copyTtl() {
    return copyTtl;
  }

  /**
   * A copy of {@code key} on {@code owner} that a write came in between and that could not be
   * deleted: marked old there ({@link Failback#markOldCopy(Member, String)}), so that no read takes
   * it before the sweep's delete is confirmed. Returns null, or if the mark could not be recorded
   * (the node holds as many marks as it may), the failure for the writes waiting for the copy.
   */
  public Throwable keptCopy(Member owner, String key, Throwable failure) {
    if (failback.markOldCopy(owner, key)) {
      return null;
    }
    return new NodeException(
        owner.node,
        "the key was written, but a warm-up copy of its older value could not be deleted (" + failure
            + ") and the node holds too many old copies to mark it; write it again",
        failure);
  }

  private void finish(String key, CompletableFuture<Void> done) {
    finish(key, done, null);
  }

  /**
   * Has {@code ended} told the key of each copy that ends from now on: a copy is this client's
   * write of the key too, and the near cache drops what it kept of the key, as for any write.
   */
  public void onCopyEnded(Consumer<String> ended) {
    this.copyEnded = ended;
  }

  /** Ends a copy; the writes waiting for it fail with {@code failure} if it is not null. */
  private void finish(String key, CompletableFuture<Void> done, Throwable failure) {
    Consumer<String> ended = copyEnded;
    if (ended != null) {
      ended.accept(key);
    }
    copying.computeIfPresent(
        key,
        (k, set) -> {
          set.remove(done);
          return set.isEmpty() ? null : set;
        });
    if (failure == null) {
      done.complete(null);
    } else {
      done.completeExceptionally(failure);
    }
  }

  /** Completes when the copies of {@code key} under way when called are finished. */
  public CompletableFuture<Void> awaitCopies(String key) {
    Set<CompletableFuture<Void>> set = copying.isEmpty() ? null : copying.get(key);
    if (set == null) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> pending = new ArrayList<>(set);
    return CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0]));
  }
}
