package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.ReplicaMoves;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.spill.BoundedReads;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * For {@link ReplicaGets}: a getMulti of keys stored on N replicas. Each key goes to the first
 * replica of its read order, one request per node; the keys that missed or failed go to their next
 * replica, one request per node and round, at most N rounds. Keys whose replicas changed in a change
 * being taken over are read one by one, as a get of each is ({@link ReplicaGets#moved}).
 */
final class ReplicaMultiGets<V> {

  /** A read of a key that moves, as {@link ReplicaGets} does it. */
  @FunctionalInterface
  interface MovedRead {
    CompletableFuture<CachedValue> read(Topology t, ReplicaMoves.Move move, String key);
  }

  private final Requests requests;
  private final Routes routes;
  private final MultiGets<V> multiGets;
  private final Repairs repairs;
  private final ClientMetrics metrics;
  private final ValueCodec<V> codec;
  private final MovedRead moved;

  ReplicaMultiGets(
      Requests requests,
      Routes routes,
      MultiGets<V> multiGets,
      Repairs repairs,
      ClientMetrics metrics,
      ValueCodec<V> codec,
      MovedRead moved) {
    this.requests = requests;
    this.routes = routes;
    this.multiGets = multiGets;
    this.repairs = repairs;
    this.metrics = metrics;
    this.codec = codec;
    this.moved = moved;
  }

  /** A key's outcome in a replicated getMulti: a hit, a miss, or an error (the last one seen). */
  private static final Object MISS = new Object();

  /**
   * Sends a getMulti of {@code distinct} on {@code t}: each key to the first replica of its read
   * order, one request per node; then the keys that missed or failed to their next replica, one
   * request per node and round, at most N rounds. Keys with no replica available go where the
   * failure mode says.
   */
  PendingGetMulti<V> start(Topology t, Set<String> distinct) {
    if (t.replicas == 1 && t.bounded == null && !t.readsHistory()) {
      // One replica, nothing spilling or moving: one round, each key on its node as MultiGets reads
      // it (the rounds below decide the same with more work). Releases t.
      return multiGets.start(t, distinct);
    }
    Multi run;
    Map<String, CompletableFuture<CachedValue>> moving = null;
    try {
      Set<String> rest = distinct;
      if (t.readsHistory()) {
        // Keys whose replicas changed in a change being taken over are read one by one, as a get
        // of each is; the others in the rounds of one request per node.
        long now = System.nanoTime();
        for (String key : distinct) {
          ReplicaMoves.Move move = ReplicaMoves.route(t, key, now);
          if (move != null && move.readsElsewhere(t)) {
            if (moving == null) {
              moving = new LinkedHashMap<>();
              rest = new LinkedHashSet<>(distinct);
            }
            moving.put(key, moved.read(t, move, key));
            rest.remove(key);
          }
        }
      }
      run = new Multi(t, rest);
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    if (moving == null) {
      run.done.whenComplete((x, y) -> t.exit());
      return new PendingGetMulti<>(run.done, run::result);
    }
    List<CompletableFuture<?>> parts = new ArrayList<>(moving.values());
    parts.add(run.done);
    CompletableFuture<Void> done = Requests.allOf(parts).handle((x, y) -> (Void) null);
    done.whenComplete((x, y) -> t.exit());
    Map<String, CompletableFuture<CachedValue>> movingReads = moving;
    return new PendingGetMulti<>(done, () -> merge(t, distinct, run.result(), movingReads));
  }

  /** The outcome of each of {@code keys}, in order: from the rounds, or from its own read. */
  private MultiResult<V> merge(
      Topology t, Set<String> keys, MultiResult<V> rounds, Map<String, CompletableFuture<CachedValue>> moving) {
    MultiResult.Builder<V> out = MultiResult.builder(keys.size());
    for (String key : keys) {
      CompletableFuture<CachedValue> read = moving.get(key);
      if (read == null) {
        if (rounds.values().containsKey(key)) {
          out.hit(key, rounds.values().get(key));
        } else if (rounds.errors().containsKey(key)) {
          out.error(key, rounds.errors().get(key));
        } else {
          out.miss(key);
        }
        continue;
      }
      Member any = t.members[t.primary(key)];
      Throwable failure = read.handle((v, x) -> x).join();
      if (failure != null) {
        out.error(key, requests.asShardwise(any, failure));
        continue;
      }
      CachedValue cv = read.join();
      if (cv == null) {
        out.miss(key);
        continue;
      }
      try {
        out.hit(key, codec.decode(cv));
      } catch (RuntimeException e) {
        out.error(key, requests.asShardwise(any, e));
      }
    }
    return out.build();
  }

  /** One replicated getMulti. */
  private final class Multi {
    final Topology t;
    final String[] keys;
    /** Per key: the replicas to read, in order; null for a key decided without reading. */
    final int[][] order;
    final int[][] ranks;
    /** Per key: a {@link CachedValue} hit, {@link #MISS}, or a {@link ShardwiseException}. */
    final Object[] outcome;
    /** Whether a replica of the key answered with a miss. */
    final boolean[] missed;
    /** Per key: the node whose answer is its outcome. */
    final int[] from;
    /**
     * With bounded loads, per key whose replicas were all over their caps: the record of the copy
     * its read leaves on the node it spilled to ({@code order[k][0]}, rank -1), once that missed.
     */
    final BoundedReads.Spill[] spills;
    /** With bounded loads, per key that spills: its copy record, taken when the read was planned. */
    final BoundedReads.Spill[] planned;
    final long[] generations;
    /** With repair: per key, its generation noted before it was read, and the replicas that missed. */
    final long[] repairGenerations;
    final List<List<Member>> missedOn;
    final List<String> noReplica = new ArrayList<>();
    PendingGetMulti<V> elsewhere;
    final CompletableFuture<Void> done;

    Multi(Topology t, Set<String> distinct) {
      this.t = t;
      int n = distinct.size();
      keys = distinct.toArray(new String[0]);
      order = new int[n][];
      ranks = new int[n][];
      outcome = new Object[n];
      missed = new boolean[n];
      from = new int[n];
      spills = t.bounded == null ? null : new BoundedReads.Spill[n];
      planned = t.bounded == null ? null : new BoundedReads.Spill[n];
      generations = t.bounded == null ? null : new long[n];
      repairGenerations = repairs.enabled(t) ? new long[n] : null;
      missedOn = repairs.enabled(t) ? new ArrayList<>(Collections.nCopies(n, null)) : null;
      List<Integer> first = new ArrayList<>(n);
      for (int k = 0; k < n; k++) {
        String key = keys[k];
        long hash = t.hash(key);
        Routes.Plan p = routes.readPlan(t, key, hash);
        if (p.readCount == 0) {
          if (p.writeCount == 0) {
            noReplica.add(key);
          } else {
            metrics.oldCopySkipped(t.nodes.get(p.writes[0]));
            outcome[k] = MISS;
          }
          continue;
        }
        int skip = p.spill >= 0 ? 1 : 0;
        order[k] = new int[skip + p.readCount];
        ranks[k] = new int[skip + p.readCount];
        if (skip == 1) {
          order[k][0] = p.spill;
          ranks[k][0] = -1;
          // Noted before any replica is read: a write confirmed after this read began, even one
          // whose replica the plan still reads, moves it and no copy of an older value is kept.
          planned[k] = t.bounded.spillFor(key);
          generations[k] = planned[k] == null ? 0 : planned[k].generation.get();
        }
        for (int i = 0; i < p.readCount; i++) {
          order[k][skip + i] = p.reads[i];
          ranks[k][skip + i] = Routes.rank(p, p.reads[i]);
        }
        if (repairGenerations != null) {
          repairGenerations[k] = repairs.generation(key);
        }
        first.add(k);
      }
      CompletableFuture<Void> rounds = round(first, 0);
      if (noReplica.isEmpty()) {
        done = rounds;
      } else {
        t.active.increment(); // released by the single-copy getMulti
        elsewhere = multiGets.start(t, Set.copyOf(noReplica));
        done = CompletableFuture.allOf(rounds, elsewhere.done);
      }
    }

    /** Reads each key of {@code pending} on its replica of index {@code r}, then the next round. */
    CompletableFuture<Void> round(List<Integer> pending, int r) {
      if (pending.isEmpty()) {
        return CompletableFuture.completedFuture(null);
      }
      List<List<Integer>> byNode = new ArrayList<>(Collections.nCopies(t.members.length, null));
      for (int k : pending) {
        int node = order[k][r];
        List<Integer> list = byNode.get(node);
        if (list == null) {
          list = new ArrayList<>();
          byNode.set(node, list);
        }
        list.add(k);
        if (ranks[k][r] < 0) {
          metrics.redirected(t.nodes.get(order[k][r + 1]), t.nodes.get(node), "spill");
        } else if (t.replicated) {
          metrics.replicaRead(t.members[node].node, ranks[k][r]);
        }
      }
      List<CompletableFuture<List<Integer>>> replies = new ArrayList<>();
      for (int i = 0; i < byNode.size(); i++) {
        List<Integer> indexes = byNode.get(i);
        if (indexes != null) {
          replies.add(readOn(i, indexes, r));
        }
      }
      return Requests.allOf(replies)
          .thenCompose(
              x -> {
                List<Integer> next = new ArrayList<>();
                for (CompletableFuture<List<Integer>> f : replies) {
                  next.addAll(f.join());
                }
                return round(next, r + 1);
              });
    }

    /** One node's batch of round {@code r}; completes with the keys that go on to the next round. */
    CompletableFuture<List<Integer>> readOn(int node, List<Integer> indexes, int r) {
      Member m = t.members[node];
      List<String> nodeKeys = new ArrayList<>(indexes.size());
      for (int k : indexes) {
        nodeKeys.add(keys[k]);
      }
      routes.sent(m);
      return requests
          .inParts(m, nodeKeys, null, true, part -> requests.send(t, node, r == 0 ? "getMulti" : "getMultiReplica", c -> c.getMulti(part)))
          .thenApply(
              reply -> {
                m.inFlight.decrementAndGet();
                int answered = nodeKeys.size() - reply.failedCount(nodeKeys.size());
                if (answered > 0) {
                  int hits = reply.replies().size();
                  metrics.reads(m.node, hits, answered - hits);
                }
                List<Integer> next = new ArrayList<>();
                for (int k : indexes) {
                  String key = keys[k];
                  Throwable failure = reply.failure(key);
                  CachedValue cv = failure == null ? reply.replies().get(key) : null;
                  if (cv != null) {
                    outcome[k] = cv;
                    from[k] = node;
                    if (missedOn != null && missedOn.get(k) != null) {
                      repairs.afterRead(key, cv, repairGenerations[k], m, missedOn.get(k));
                    }
                    // Not from a replica whose copy was marked old since the plan: the write that
                    // marked it may be done, and a copy of this value would outlive it.
                    if (spills != null && spills[k] != null && !m.holdsOldCopy(key)) {
                      t.bounded.leaveCopy(spills[k], generations[k], key, t.members[order[k][0]], cv, requests);
                    }
                    continue;
                  }
                  if (ranks[k][r] < 0) {
                    // No copy on the spill node (or it failed): the replicas next, then a copy there.
                    spills[k] = planned[k];
                    next.add(k);
                    continue;
                  }
                  if (failure == null) {
                    missed[k] = true;
                    outcome[k] = MISS;
                    if (missedOn != null) {
                      if (missedOn.get(k) == null) {
                        missedOn.set(k, new ArrayList<>(order[k].length - 1));
                      }
                      missedOn.get(k).add(m);
                    }
                  } else if (!missed[k]) {
                    outcome[k] = requests.asShardwise(m, failure);
                  }
                  if (r + 1 < order[k].length) {
                    metrics.replicaFailover(m.node, t.nodes.get(order[k][r + 1]), failure == null ? "miss" : "error");
                    next.add(k);
                  }
                }
                return next;
              });
    }

    MultiResult<V> result() {
      MultiResult.Builder<V> result = MultiResult.builder(keys.length);
      MultiResult<V> other = elsewhere == null ? null : elsewhere.result();
      for (int k = 0; k < keys.length; k++) {
        String key = keys[k];
        Object o = outcome[k];
        if (o == null) {
          // no replica available: the single-copy getMulti's outcome
          if (other.errors().containsKey(key)) {
            result.error(key, other.errors().get(key));
          } else if (other.values().containsKey(key)) {
            result.hit(key, other.values().get(key));
          } else {
            result.miss(key);
          }
        } else if (o == MISS) {
          result.miss(key);
        } else if (o instanceof ShardwiseException e) {
          result.error(key, e);
        } else {
          V value;
          try {
            value = codec.decode((CachedValue) o);
          } catch (RuntimeException e) {
            result.error(key, requests.asShardwise(t.members[from[k]], e));
            continue;
          }
          result.hit(key, value);
        }
      }
      return result.build();
    }
  }
}
