package io.shardwise.core.internal.health;

import io.shardwise.client.NodeUnavailableException;
import io.shardwise.core.FailoverOptions;
import io.shardwise.spi.BatchReply;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiConsumer;

/**
 * The deletes of old copies, for {@link Failback}: the copies marked old on a node ({@link
 * DirtyCopies}), deleted one run at a time per node and their marks cleared once the deletes are
 * confirmed, by the periodic sweep (which retries what failed), after a readmission on the nodes
 * that took the returning node's keys, and as a step of the rejoin; and any keys on a node, in
 * chunks, each within the probe timeout.
 */
final class OldCopyDeletes {

  private static final int DELETE_CHUNK = 1000;

  private final FailoverOptions options;
  private volatile BiConsumer<Member, Collection<String>> deleted = (m, keys) -> {};

  OldCopyDeletes(FailoverOptions options) {
    this.options = options;
  }

  /** {@code listener} is told of the marked copies deleted on a member, once confirmed. */
  void onDeleted(BiConsumer<Member, Collection<String>> listener) {
    deleted = listener;
  }

  /** Deletes the marked old copies (and retries those not confirmed); run periodically on the health thread. */
  void sweep(Iterable<Member> members) {
    for (Member node : members) {
      deleteOldCopies(node);
    }
  }

  /**
   * Deletes the marked old copies on {@code node} (if it is available) and clears the marks the
   * deletes covered. Called after a readmission and by the periodic sweep, which retries what
   * failed.
   */
  void deleteOldCopies(Member node) {
    if (node.available()) {
      deleteMarked(node, false);
    }
  }

  /**
   * Deletes the copies marked old on {@code node} and clears the marks of the deletes the node
   * confirmed, key by key; fails if a delete was not confirmed (its mark stays, for the next run). Also a step of the rejoin ({@code rejoin}, see {@link Failback#rejoin}): a
   * copy left old by a replica write that failed on the node before it was ejected is gone before
   * the node serves again, for other processes too; a rejoin that finds a sweep's deletes under way
   * waits for them, then deletes what is still marked, where a sweep leaves the work to the sweep
   * under way.
   */
  CompletableFuture<Void> deleteMarked(Member node, boolean rejoin) {
    DirtyCopies copies = node.failback.dirty;
    AtomicReference<CompletableFuture<Void>> cleaning = node.failback.cleaning;
    CompletableFuture<Void> mine = new CompletableFuture<>();
    while (true) {
      if (copies.isEmpty() || node.retired) {
        return CompletableFuture.completedFuture(null);
      }
      CompletableFuture<Void> running = cleaning.get();
      if (running == null) {
        if (cleaning.compareAndSet(null, mine)) {
          break;
        }
        continue;
      }
      return rejoin
          ? running.handle((r, x) -> (Void) null).thenCompose(x -> deleteMarked(node, true))
          : CompletableFuture.completedFuture(null);
    }
    Map<String, Long> marked = new HashMap<>();
    CompletableFuture<Deleted> deletes;
    try {
      deletes =
          copies.handOff(
              () -> {
                marked.putAll(copies.snapshot());
                return deleteOn(node, DirtyCopies.keys(marked));
              });
    } catch (RuntimeException e) {
      deletes = CompletableFuture.failedFuture(e);
    }
    deletes.whenComplete(
        (done, failure) -> {
          Throwable unconfirmed = failure;
          if (failure == null) {
            // Only the marks whose delete the node confirmed: the others stay, and are retried.
            Map<String, Long> confirmed = new HashMap<>();
            for (String key : done.confirmed()) {
              confirmed.put(key, marked.get(key));
            }
            copies.cleaned(confirmed);
            unconfirmed = done.failure(node);
            if (!confirmed.isEmpty()) {
              deleted.accept(node, confirmed.keySet());
            }
          }
          cleaning.set(null);
          if (unconfirmed == null) {
            mine.complete(null);
          } else {
            mine.completeExceptionally(unconfirmed);
          }
        });
    return mine;
  }

  /**
   * What a run of deletes on a node confirmed: a key counts as deleted only when the node answered
   * its own delete, not when the batch it was sent in completed.
   *
   * @param confirmed the keys whose delete the node confirmed
   * @param failed how many keys were not confirmed (their batch failed, or their own delete)
   * @param firstFailure the reason of one of them, or null when all were confirmed
   * @param batchesFailed whether every key's batch failed as a whole (the node refused or did not
   *     answer them), so that {@code firstFailure} says why for all
   */
  record Deleted(List<String> confirmed, int failed, Throwable firstFailure, boolean batchesFailed) {

    /**
     * Null when every delete was confirmed; the failure of the batches when each failed as a whole;
     * else a failure that says how many deletes were not confirmed and why one was not.
     */
    Throwable failure(Member node) {
      if (failed == 0) {
        return null;
      }
      if (batchesFailed) {
        return firstFailure;
      }
      return new NodeUnavailableException(
          node.node,
          failed + " of " + (failed + confirmed.size()) + " deletes of old copies were not confirmed; first: "
              + firstFailure.getMessage(),
          firstFailure);
    }
  }

  /**
   * Deletes {@code keys} on {@code node} in batches; completes, never exceptionally, with the keys
   * whose own delete the node confirmed and why the others were not.
   */
  CompletableFuture<Deleted> deleteOn(Member node, List<String> keys) {
    List<CompletableFuture<Deleted>> parts = new ArrayList<>();
    for (int i = 0; i < keys.size(); i += DELETE_CHUNK) {
      List<String> chunk = new ArrayList<>(keys.subList(i, Math.min(keys.size(), i + DELETE_CHUNK)));
      CompletableFuture<BatchReply<Boolean>> sent;
      try {
        sent = node.connection.deleteMulti(chunk);
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
      parts.add(step(sent).handle((reply, failure) -> confirmedOf(chunk, reply, failure)));
    }
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]))
        .thenApply(
            x -> {
              List<String> confirmed = new ArrayList<>(keys.size());
              int failed = 0;
              Throwable first = null;
              boolean batchesFailed = true;
              for (CompletableFuture<Deleted> part : parts) {
                Deleted d = part.join();
                confirmed.addAll(d.confirmed());
                failed += d.failed();
                first = first == null ? d.firstFailure() : first;
                batchesFailed &= d.batchesFailed();
              }
              return new Deleted(confirmed, failed, first, batchesFailed && !parts.isEmpty());
            });
  }

  /** What the reply to the delete of {@code chunk} confirmed ({@code failure}: of the whole batch). */
  private static Deleted confirmedOf(List<String> chunk, BatchReply<Boolean> reply, Throwable failure) {
    if (failure != null) {
      Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
      return new Deleted(List.of(), chunk.size(), cause, true);
    }
    List<String> confirmed = new ArrayList<>(chunk.size());
    Throwable first = null;
    for (String key : chunk) {
      if (reply.confirmed(key)) {
        confirmed.add(key);
      } else if (first == null) {
        first = reply.failure(key);
        if (first == null) {
          first = new IllegalStateException("the reply to the batch named no outcome for " + key);
        }
      }
    }
    return new Deleted(confirmed, chunk.size() - confirmed.size(), first, false);
  }

  /** A request of a rejoin step or of a sweep: it fails if not done within the probe timeout. */
  <T> CompletableFuture<T> step(CompletableFuture<T> f) {
    return f.orTimeout(options.probeTimeout().toNanos(), TimeUnit.NANOSECONDS);
  }
}
