package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.MovedKeys;
import io.shardwise.core.internal.route.Topology;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A getMulti on a topology whose most recent change is still being taken over: each key is read on
 * its serving placement (keys still settling on the placement before the change), then the keys
 * that missed are read on their sources ({@link MovedKeys}), one batch per source node and round,
 * until each is found or has no source left; hits read on a source are copied over as single reads
 * do.
 */
final class MovingGets<V> {

  private final MultiGets<V> multiGets;
  private final Requests requests;
  private final WarmUp warmUp;
  private final ValueCodec<V> codec;

  MovingGets(MultiGets<V> multiGets, Requests requests, WarmUp warmUp, ValueCodec<V> codec) {
    this.multiGets = multiGets;
    this.requests = requests;
    this.warmUp = warmUp;
    this.codec = codec;
  }

  /**
   * Sends the first round: keys still settling on the placement before the change, the others on
   * {@code t}; the keys that miss go on to their sources once it is done.
   */
  PendingGetMulti<V> start(Topology t, Set<String> distinct, long now) {
    Map<String, MovedKeys.Move> moves = new HashMap<>();
    Set<String> settling = new LinkedHashSet<>();
    for (String key : distinct) {
      MovedKeys.Move move = MovedKeys.route(t, key, now);
      if (move == null || (move.serving == t && move.sources.length == 0)) {
        continue;
      }
      moves.put(key, move);
      if (move.serving != t) {
        settling.add(key);
      }
    }
    if (moves.isEmpty()) {
      return multiGets.plain(t, distinct);
    }
    Map<String, Long> generations = new HashMap<>();
    Set<String> copyToOwner = new HashSet<>();
    moves.forEach(
        (key, move) -> {
          generations.put(key, warmUp.generation(key));
          if (move.copies && move.serving == t && t.members[move.servingPrimary].available()) {
            copyToOwner.add(key);
          }
        });
    PendingGetMulti<V> first;
    if (settling.isEmpty()) {
      first = multiGets.plain(t, distinct);
    } else {
      Set<String> stay = new LinkedHashSet<>(distinct);
      stay.removeAll(settling);
      PendingGetMulti<V> here = multiGets.plain(t, stay);
      PendingGetMulti<V> before = multiGets.plain(t.latest().previous, settling);
      first =
          new PendingGetMulti<>(
              CompletableFuture.allOf(here.done, before.done), () -> merge(distinct, here.result(), before.result()));
    }
    Map<String, Object> warmed = new ConcurrentHashMap<>();
    CompletableFuture<Void> done =
        first.done.thenCompose(
            x -> {
              List<String> missed = new ArrayList<>();
              for (String key : first.result().misses()) {
                if (moves.containsKey(key)) {
                  missed.add(key);
                }
              }
              return fromSources(moves, missed, 0, warmed, generations, copyToOwner);
            });
    return new PendingGetMulti<>(done, () -> merge(distinct, first.result(), warmed));
  }

  /**
   * One round of a moving getMulti: each of {@code keys} (all missed so far) is read on its source
   * {@code round}, one batch per source node; the keys still missing go on to the next round.
   */
  private CompletableFuture<Void> fromSources(
      Map<String, MovedKeys.Move> moves,
      List<String> keys,
      int round,
      Map<String, Object> warmed,
      Map<String, Long> generations,
      Set<String> copyToOwner) {
    Map<Member, List<String>> bySource = new LinkedHashMap<>();
    List<String> later = new ArrayList<>();
    for (String key : keys) {
      MovedKeys.Move move = moves.get(key);
      if (round >= move.sources.length) {
        continue;
      }
      Member source = move.sources[round];
      if (!source.available() || source.retired() || source.holdsOldCopy(key)) {
        later.add(key);
      } else {
        bySource.computeIfAbsent(source, m -> new ArrayList<>()).add(key);
      }
    }
    if (bySource.isEmpty() && later.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<String> stillMissing = java.util.Collections.synchronizedList(new ArrayList<>(later));
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    bySource.forEach(
        (source, batch) ->
            parts.add(
                requests
                    .inParts(source, batch, null, part -> requests.send(source, "warmUpGetMulti", c -> c.getMulti(part)))
                    .thenAccept(
                        reply -> {
                          for (String key : batch) {
                            if (reply.failure(key) != null) {
                              stillMissing.add(key); // the source could not say: try the next one
                              continue;
                            }
                            CachedValue cv = reply.replies().get(key);
                            MovedKeys.Move move = moves.get(key);
                            warmUp.read(source, move.owner, cv != null);
                            if (cv == null) {
                              stillMissing.add(key);
                              continue;
                            }
                            try {
                              warmed.put(key, new MultiGets.SecondRoundHit<>(codec.decode(cv)));
                            } catch (RuntimeException e) {
                              warmed.put(key, requests.asShardwise(source, e));
                              continue;
                            }
                            if (copyToOwner.contains(key)) {
                              warmUp.copy(key, cv, generations.get(key), source, move.owner, requests);
                            }
                          }
                        })));
    return Requests.allOf(parts)
        .thenCompose(x -> fromSources(moves, new ArrayList<>(stillMissing), round + 1, warmed, generations, copyToOwner));
  }

  /** The outcome of each key of {@code keys}, in order, from the first part that has it. */
  @SafeVarargs
  private MultiResult<V> merge(Set<String> keys, MultiResult<V>... parts) {
    MultiResult.Builder<V> out = MultiResult.builder(keys.size());
    for (String key : keys) {
      for (MultiResult<V> part : parts) {
        if (part.values().containsKey(key)) {
          out.hit(key, part.values().get(key));
          break;
        }
        if (part.errors().containsKey(key)) {
          out.error(key, part.errors().get(key));
          break;
        }
        if (part.misses().contains(key)) {
          out.miss(key);
          break;
        }
      }
    }
    return out.build();
  }

  /** {@code first}, with the outcomes of the keys read again while warming up in place of its misses. */
  private MultiResult<V> merge(Set<String> keys, MultiResult<V> first, Map<String, Object> warmed) {
    if (warmed.isEmpty()) {
      return first;
    }
    MultiResult.Builder<V> out = MultiResult.builder(keys.size());
    for (String key : keys) {
      Object again = warmed.get(key);
      if (again instanceof MultiGets.SecondRoundHit<?> hit) {
        @SuppressWarnings("unchecked")
        V value = (V) hit.value();
        out.hit(key, value);
      } else if (again instanceof ShardwiseException e) {
        out.error(key, e);
      } else if (first.values().containsKey(key)) {
        out.hit(key, first.values().get(key));
      } else if (first.errors().containsKey(key)) {
        out.error(key, first.errors().get(key));
      } else {
        out.miss(key);
      }
    }
    return out.build();
  }
}
