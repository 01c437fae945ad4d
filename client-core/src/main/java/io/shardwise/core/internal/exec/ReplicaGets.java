package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.ReplicaMoves;
import io.shardwise.core.internal.route.ReplicaRoutes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.spill.BoundedReads;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Executes reads of keys stored on N replicas ({@link ReplicaRoutes}): a read goes to one
 * available replica whose copy is not marked old, and on a miss, an error or a timeout to the next,
 * before the caller sees a miss (as mcrouter's {@code MissFailoverRoute}). getMulti does this per
 * key, in at most N rounds of one request per node. With no replica available the read goes where
 * the failure mode sends a read whose node is out ({@link Reads}).
 */
public final class ReplicaGets<V> {

  private final Requests requests;
  private final ReplicaRoutes routes;
  private final Reads reads;
  private final MultiGets<V> multiGets;
  private final WarmUp warmUp;
  private final ClientMetrics metrics;
  private final ValueCodec<V> codec;

  public ReplicaGets(
      Requests requests,
      ReplicaRoutes routes,
      Reads reads,
      MultiGets<V> multiGets,
      WarmUp warmUp,
      ClientMetrics metrics,
      ValueCodec<V> codec) {
    this.warmUp = warmUp;
    this.requests = requests;
    this.routes = routes;
    this.reads = reads;
    this.multiGets = multiGets;
    this.metrics = metrics;
    this.codec = codec;
  }

  /** A read of {@code key} on {@code t}, which the caller counted itself on and which this read releases. */
  public <R> CompletableFuture<R> get(Topology t, String key, Function<CachedValue, R> decode) {
    CompletableFuture<R> f;
    try {
      ReplicaMoves.Move move = t.readsHistory() ? ReplicaMoves.route(t, key, System.nanoTime()) : null;
      if (move != null && move.readsElsewhere(t)) {
        f = moved(t, move, key).thenApply(decode);
        f.whenComplete((v, x) -> t.exit());
        return f;
      }
      long hash = t.hash(key);
      ReplicaRoutes.Plan p = routes.readPlan(t, key, hash);
      if (p.readCount == 0) {
        if (p.writeCount == 0) {
          f = null; // every replica is out: the failure mode decides, below
        } else {
          metrics.oldCopySkipped(t.nodes.get(p.writes[0])); // every replica up holds a copy marked old
          f = CompletableFuture.<CachedValue>completedFuture(null).thenApply(decode);
        }
      } else {
        int[] order = Arrays.copyOf(p.reads, p.readCount);
        int[] ranks = new int[order.length];
        for (int i = 0; i < order.length; i++) {
          ranks[i] = ReplicaRoutes.rank(p, order[i]);
        }
        f = (p.spill >= 0
                ? reads.spilled(t, key, order[0], p.spill, () -> tryFrom(t, key, order, ranks, 0, false))
                : tryFrom(t, key, order, ranks, 0, false))
            .thenApply(decode);
      }
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    if (f == null) {
      return reads.get(t, key, decode); // releases t itself
    }
    f.whenComplete((v, x) -> t.exit());
    return f;
  }

  /**
   * A read of a key whose replicas changed in a change still being taken over ({@link
   * ReplicaMoves}): on the replicas of its serving placement in turn (those of the placement before
   * the change while it settles; else the replicas that arrived in the change first), then, after
   * a miss on each, on its sources in turn. Once copies are due (see {@link WarmUp}), a hit is
   * copied to the replicas of the key that answered a miss before it, so that a key warms onto
   * every replica that arrived. A read of a key that moves does not spill (bounded loads).
   */
  private CompletableFuture<CachedValue> moved(Topology t, ReplicaMoves.Move move, String key) {
    long generation = warmUp.generation(key);
    Topology serving = move.serving;
    ReplicaRoutes.Plan p = routes.readPlan(serving, key, serving.hash(key));
    if (p.readCount == 0) {
      // Every replica out (the failure mode decides), or each up one holds a copy marked old.
      CompletableFuture<CachedValue> first =
          p.writeCount == 0 ? reads.unreplicated(serving, key) : CompletableFuture.completedFuture(null);
      return first.thenCompose(
          found -> found != null ? CompletableFuture.completedFuture(found) : fromSources(move, key, 0, NO_MEMBERS, generation));
    }
    int[] order = new int[p.readCount];
    int k = 0;
    boolean copies = move.copies && serving == t;
    if (copies) {
      for (int i = 0; i < p.readCount; i++) {
        if (contains(move.arrived, t.members[p.reads[i]])) {
          order[k++] = p.reads[i];
        }
      }
    }
    for (int i = 0; i < p.readCount; i++) {
      if (!copies || !contains(move.arrived, t.members[p.reads[i]])) {
        order[k++] = p.reads[i];
      }
    }
    int[] ranks = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      ranks[i] = ReplicaRoutes.rank(p, order[i]);
    }
    return warmRead(serving, move, key, order, ranks, 0, copies ? new ArrayList<>(order.length) : null, false, generation);
  }

  /**
   * Reads {@code key} on {@code order[i]} and then the next replicas, then the sources; {@code
   * missedOn} (null when no copy is due) collects the replicas that answered a miss, where a hit
   * is copied.
   */
  private CompletableFuture<CachedValue> warmRead(
      Topology t,
      ReplicaMoves.Move move,
      String key,
      int[] order,
      int[] ranks,
      int i,
      List<Member> missedOn,
      boolean missed,
      long generation) {
    Member m = t.members[order[i]];
    return getOn(t, key, order[i], ranks[i]).handle(
            (value, failure) -> {
              m.inFlight.decrementAndGet();
              if (value != null) {
                if (missedOn != null) {
                  for (Member owner : missedOn) {
                    warmUp.copy(key, value, generation, m, owner, requests);
                  }
                }
                return CompletableFuture.completedFuture(value);
              }
              if (failure == null && missedOn != null) {
                missedOn.add(m);
              }
              boolean anyMiss = missed || failure == null;
              if (i + 1 < order.length) {
                metrics.replicaFailover(m.node, t.nodes.get(order[i + 1]), failure == null ? "miss" : "error");
                return warmRead(t, move, key, order, ranks, i + 1, missedOn, anyMiss, generation);
              }
              if (!anyMiss) {
                return CompletableFuture.<CachedValue>failedFuture(failure);
              }
              Member[] copyTo = missedOn == null ? NO_MEMBERS : missedOn.toArray(NO_MEMBERS);
              return fromSources(move, key, 0, copyTo, generation);
            })
        .thenCompose(Function.identity());
  }

  private static boolean contains(Member[] a, Member m) {
    for (Member x : a) {
      if (x == m) {
        return true;
      }
    }
    return false;
  }

  private static final Member[] NO_MEMBERS = new Member[0];

  /** Reads {@code key} on the sources of {@code move} from {@code index}, until one has it. */
  private CompletableFuture<CachedValue> fromSources(
      ReplicaMoves.Move move, String key, int index, Member[] copyTo, long generation) {
    for (int i = index; i < move.sources.length; i++) {
      Member before = move.sources[i];
      if (!before.available() || before.retired() || before.holdsOldCopy(key)) {
        continue;
      }
      int next = i + 1;
      return requests
          .send(before, "warmUpGet", c -> c.get(key))
          .handle(
              (old, failure) -> {
                if (failure == null) {
                  warmUp.read(before, move.owners[0], old != null);
                }
                if (old != null) {
                  for (Member owner : copyTo) {
                    warmUp.copy(key, old, generation, before, owner, requests);
                  }
                }
                return old;
              })
          .thenCompose(
              old -> old != null
                  ? CompletableFuture.completedFuture(old)
                  : fromSources(move, key, next, copyTo, generation));
    }
    return CompletableFuture.completedFuture(null);
  }

  /** A get of {@code key} sent to replica {@code node} (of rank {@code rank}), counted as sent there. */
  private CompletableFuture<CachedValue> getOn(Topology t, String key, int node, int rank) {
    Member m = t.members[node];
    metrics.replicaRead(m.node, rank);
    routes.sent(m);
    try {
      return requests.send(t, node, "get", c -> c.get(key), true);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Reads {@code key} on {@code order[i]}, then on the next replicas after a miss or a failure. */
  private CompletableFuture<CachedValue> tryFrom(Topology t, String key, int[] order, int[] ranks, int i, boolean missed) {
    Member m = t.members[order[i]];
    return getOn(t, key, order[i], ranks[i]).handle(
            (value, failure) -> {
              m.inFlight.decrementAndGet();
              if (value != null) {
                return CompletableFuture.completedFuture(value);
              }
              if (i + 1 == order.length) {
                return failure == null || missed
                    ? CompletableFuture.<CachedValue>completedFuture(null)
                    : CompletableFuture.<CachedValue>failedFuture(failure);
              }
              metrics.replicaFailover(m.node, t.nodes.get(order[i + 1]), failure == null ? "miss" : "error");
              return tryFrom(t, key, order, ranks, i + 1, missed || failure == null);
            })
        .thenCompose(Function.identity());
  }

  // ---- getMulti --------------------------------------------------------------------------------

  /** A key's outcome in a replicated getMulti: a hit, a miss, or an error (the last one seen). */
  private static final Object MISS = new Object();

  /**
   * Sends a getMulti of {@code distinct} on {@code t}: each key to the first replica of its read
   * order, one request per node; then the keys that missed or failed to their next replica, one
   * request per node and round, at most N rounds. Keys with no replica available go where the
   * failure mode says.
   */
  public PendingGetMulti<V> start(Topology t, Set<String> distinct) {
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
            moving.put(key, moved(t, move, key));
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
    final long[] generations;
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
      generations = t.bounded == null ? null : new long[n];
      List<Integer> first = new ArrayList<>(n);
      for (int k = 0; k < n; k++) {
        String key = keys[k];
        long hash = t.hash(key);
        ReplicaRoutes.Plan p = routes.readPlan(t, key, hash);
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
        }
        for (int i = 0; i < p.readCount; i++) {
          order[k][skip + i] = p.reads[i];
          ranks[k][skip + i] = ReplicaRoutes.rank(p, p.reads[i]);
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
        } else {
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
          .inParts(m, nodeKeys, null, part -> requests.send(t, node, r == 0 ? "getMulti" : "getMultiReplica", c -> c.getMulti(part)))
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
                    if (spills != null && spills[k] != null) {
                      t.bounded.leaveCopy(spills[k], generations[k], key, t.members[order[k][0]], cv, requests);
                    }
                    continue;
                  }
                  if (ranks[k][r] < 0) {
                    // No copy on the spill node (or it failed): the replicas next, then a copy there.
                    spills[k] = t.bounded.spillFor(key);
                    generations[k] = spills[k] == null ? 0 : spills[k].generation.get();
                    next.add(k);
                    continue;
                  }
                  if (failure == null) {
                    missed[k] = true;
                    outcome[k] = MISS;
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
