package io.shardwise.core.internal.exec;

import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.MovedKeys;
import io.shardwise.core.internal.route.Topology;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The keys of a multi-key write on a topology with a history, split by where they are written
 * ({@link MovedKeys}): keys still settling are written on the previous placement. Once they are
 * routed ({@link #routed}), every moved key is marked old on its former owners and deleted where
 * reads may still look, never on the node that took its write.
 */
final class MovingWrite {
  final Set<String> onPrevious = new LinkedHashSet<>();
  final Set<String> onCurrent = new LinkedHashSet<>();
  /** The node each routed key went to. */
  final Map<String, Member> targets = new ConcurrentHashMap<>();
  private final Map<String, MovedKeys.Move> moves = new HashMap<>();
  private final Map<Member, List<String>> staleCopies = new LinkedHashMap<>();
  /** The keys whose warm-up copies under way the write waits for. */
  final List<String> awaited = new ArrayList<>();
  /** For a delete: the generation each moved key was bumped to, for {@link Writes#deleteLateCopy}. */
  private final Map<String, Long> bumped = new HashMap<>();
  private final boolean removes;

  private final Requests requests;
  private final Failback failback;
  private final WarmUp warmUp;
  private final Writes writes;

  MovingWrite(
      Topology t,
      Collection<String> keys,
      boolean removes,
      Requests requests,
      Failback failback,
      WarmUp warmUp,
      Writes writes) {
    this.requests = requests;
    this.failback = failback;
    this.warmUp = warmUp;
    this.writes = writes;
    this.removes = removes;
    long now = System.nanoTime();
    boolean copying = warmUp.copying(); // then every key waits for its copies, moved or not
    for (String key : keys) {
      MovedKeys.Move move = MovedKeys.route(t, key, now);
      if (move == null || !move.touchesOthers()) {
        onCurrent.add(key);
        if (copying) {
          awaited.add(key);
        }
        continue;
      }
      moves.put(key, move);
      // Every moved key, also one whose change is only remembered now: a read routed while that
      // change was still warming may be about to copy the older value it read (see WarmUp).
      bumped.put(key, warmUp.bump(key));
      awaited.add(key);
      (move.settling(t) ? onPrevious : onCurrent).add(key);
    }
  }

  /** After the keys were routed and sent: marks and groups the deletes of their other copies. */
  void routed() {
    moves.forEach(
        (key, move) -> {
          Member target = targets.get(key);
          for (Member former : target == null ? move.formerOwners : move.formerOwnersBesides(target)) {
            failback.markOldCopy(former, key, target);
          }
          for (Member stale : target == null ? move.clears : move.clearsBesides(target)) {
            if (stale.retired() || !stale.available()) {
              failback.markOldCopy(stale, key, target);
            } else {
              staleCopies.computeIfAbsent(stale, m -> new ArrayList<>()).add(key);
            }
          }
        });
  }

  /**
   * Deletes the stale copies; completes when they and the copies under way are gone. A key whose
   * stale copy could not be deleted has its result in {@code results} (the lock of both maps)
   * replaced by an error in {@code errors}.
   */
  CompletableFuture<Void> clear(Map<String, ?> results, Map<String, ShardwiseException> errors) {
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    staleCopies.forEach(
        (stale, keys) ->
            parts.add(
                requests
                    .inParts(stale, keys, null, part -> requests.send(stale, "moveDelete", c -> c.deleteMulti(part)))
                    .thenAccept(
                        reply -> {
                          synchronized (results) {
                            for (String k : keys) {
                              if (!reply.confirmed(k) && results.remove(k) != null) {
                                errors.put(k, requests.movedCopyKept(stale, reply.unconfirmed(k, stale.node)));
                              }
                            }
                          }
                        })));
    return Requests.allOf(parts)
        .thenCompose(
            x -> {
              List<CompletableFuture<Void>> waits = new ArrayList<>();
              awaited.forEach(k -> waits.add(failsKey(k, writes.afterWarmUpWrite(k), results, errors)));
              return Requests.allOf(waits);
            })
        .thenCompose(
            x -> {
              if (!removes) {
                return CompletableFuture.completedFuture(null);
              }
              List<CompletableFuture<Void>> late = new ArrayList<>();
              bumped.forEach(
                  (k, generation) ->
                      late.add(failsKey(k, writes.deleteLateCopy(moves.get(k).owner, k, generation), results, errors)));
              return Requests.allOf(late);
            });
  }

  /**
   * {@code step} of the write of {@code key}, which fails the key alone: its result in {@code
   * results} (the lock of both maps) is replaced by the failure in {@code errors}.
   */
  private static CompletableFuture<Void> failsKey(
      String key, CompletableFuture<Void> step, Map<String, ?> results, Map<String, ShardwiseException> errors) {
    return step.handle(
        (r, failure) -> {
          if (failure != null) {
            synchronized (results) {
              if (results.remove(key) != null) {
                errors.put(key, Requests.unwrap(failure));
              }
            }
          }
          return null;
        });
  }
}
