package io.shardwise.core.internal.health;

import io.shardwise.core.FailoverOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

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

  OldCopyDeletes(FailoverOptions options) {
    this.options = options;
  }

  /** Deletes the marked old copies (and retries those that failed); run periodically on the health thread. */
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
   * Deletes the copies marked old on {@code node} and clears the marks the deletes covered; fails if
   * a delete failed. Also a step of the rejoin ({@code rejoin}, see {@link Failback#rejoin}): a
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
    CompletableFuture<Void> deletes;
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
          if (failure == null) {
            copies.cleaned(marked);
          }
          cleaning.set(null);
          if (failure == null) {
            mine.complete(null);
          } else {
            mine.completeExceptionally(failure);
          }
        });
    return mine;
  }

  /** Deletes {@code keys} on {@code node} in batches; completes when all are confirmed. */
  CompletableFuture<Void> deleteOn(Member node, List<String> keys) {
    List<CompletableFuture<?>> parts = new ArrayList<>();
    for (int i = 0; i < keys.size(); i += DELETE_CHUNK) {
      List<String> chunk = new ArrayList<>(keys.subList(i, Math.min(keys.size(), i + DELETE_CHUNK)));
      parts.add(step(node.connection.deleteMulti(chunk)));
    }
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  /** A request of a rejoin step or of a sweep: it fails if not done within the probe timeout. */
  <T> CompletableFuture<T> step(CompletableFuture<T> f) {
    return f.orTimeout(options.probeTimeout().toNanos(), TimeUnit.NANOSECONDS);
  }
}
