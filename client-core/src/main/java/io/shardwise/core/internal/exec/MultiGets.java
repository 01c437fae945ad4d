package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Moves;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.spill.BoundedReads;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.stream.IntStream;

/**
 * getMulti over the keys' preference lists, for any replica count: each key has the read order a
 * get of it has ({@link Routes#readPlan}, {@link Gets#unreadable}), and round r sends each key
 * still unanswered to the r-th node of its order, one request per node (with N replicas at most N
 * rounds, and one more for a spill). Keys that move are read as a get of each is ({@link
 * Gets#read}). Each key's outcome is what happened to that key.
 */
final class MultiGets<V> {

  /** {@link Multi#ranks}: the node a read spills to, ahead of the replicas. */
  private static final int SPILL = -1;
  /** {@link Multi#ranks}: the node the failure mode sends a key to whose replicas are all out. */
  private static final int FAILOVER = -2;
  /** A key's outcome: a miss (a {@link CachedValue} is a hit, a {@link ShardwiseException} an error). */
  private static final Object MISS = new Object();
  private static final BiConsumer<String, CachedValue> NO_OFFERS = (key, value) -> {};
  /** No key goes on to the next round. */
  private static final int[] NONE_NEXT = new int[0];

  private final Gets<V> gets;
  private final ValueCodec<V> codec;

  MultiGets(Gets<V> gets, ValueCodec<V> codec) {
    this.gets = gets;
    this.codec = codec;
  }

  /** Sends a getMulti of {@code distinct} on {@code t}, released when it is done, and returns at once. */
  PendingGetMulti<V> start(Topology t, Set<String> distinct, BiConsumer<String, CachedValue> read) {
    Multi run;
    try {
      run = new Multi(t, distinct, read);
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    run.done.whenComplete((x, y) -> t.exit());
    return new PendingGetMulti<>(run.done, run::result);
  }

  /** Adds {@code key}'s outcome to {@code out}: a value read on {@code source} is handed to {@code read} and decoded there. */
  private void add(MultiResult.Builder<V> out, String key, Object outcome, Member source, BiConsumer<String, CachedValue> read) {
    if (outcome == null || outcome == MISS) {
      out.miss(key);
    } else if (outcome instanceof ShardwiseException e) {
      out.error(key, e);
    } else {
      read.accept(key, (CachedValue) outcome);
      try {
        out.hit(key, codec.decode((CachedValue) outcome));
      } catch (RuntimeException e) {
        out.error(key, gets.requests.asShardwise(source, e)); // a value that cannot be decoded is that key's error
      }
    }
  }

  /** The keys at {@code indexes}, without a copy. */
  private static final class KeysAt extends AbstractList<String> implements RandomAccess {
    private final String[] keys;
    private final int[] indexes;

    KeysAt(String[] keys, int[] indexes) {
      this.keys = keys;
      this.indexes = indexes;
    }

    @Override
    public String get(int i) {
      return keys[indexes[i]];
    }

    @Override
    public int size() {
      return indexes.length;
    }
  }

  /** One getMulti on one topology: per key state in flat arrays. */
  private final class Multi {
    final Topology t;
    final String[] keys;
    /** Entries per key: its replicas, and a spill node ahead of them under bounded loads. */
    final int width;
    /** Per key, {@link #width} entries: the nodes to read, in order, {@link #lengths} of them used (null: 1 each). */
    final int[] order;
    /** Per entry of {@link #order}: the node's rank among the key's replicas, {@link #SPILL} or {@link #FAILOVER}; null with no copies or spills. */
    final int[] ranks;
    final int[] lengths;
    /** Per key: a {@link CachedValue} hit, {@link #MISS}, or a {@link ShardwiseException}. */
    final Object[] outcome;
    /** Per key: the node whose answer is its outcome. */
    final int[] from;
    /** With bounded loads, per key that spills: its copy record and generation ({@link Gets#leaveSpillCopy}). */
    final BoundedReads.Spill[] planned;
    final long[] generations;
    /** With repair: per key, its generation noted before it was read, and the replicas that missed. */
    final long[] repairGenerations;
    final List<Member>[] missedOn;
    /** On a topology with a history: per key whose replicas changed, its own read ({@link Gets#read}). */
    final CompletableFuture<CachedValue>[] moving;
    final CompletableFuture<Void> done;
    /** Handed each value read as the result is built (the near cache's offers). */
    final BiConsumer<String, CachedValue> read;

    @SuppressWarnings({"unchecked", "rawtypes"})
    Multi(Topology t, Set<String> distinct, BiConsumer<String, CachedValue> read) {
      this.t = t;
      this.read = read == null ? NO_OFFERS : read;
      int n = distinct.size();
      keys = distinct.toArray(new String[0]);
      width = t.replicas + (t.bounded == null ? 0 : 1);
      order = new int[n * width];
      // Ranks tell a spill, the replica read and the replicas that missed: none with one replica.
      ranks = t.replicated || t.bounded != null ? new int[n * width] : null;
      lengths = width == 1 ? null : new int[n];
      outcome = new Object[n];
      from = width == 1 ? order : new int[n]; // with one node per key, the node answered is the one read
      planned = t.bounded == null ? null : new BoundedReads.Spill[n];
      generations = t.bounded == null ? null : new long[n];
      boolean repair = gets.repairs.enabled(t);
      repairGenerations = repair ? new long[n] : null;
      missedOn = repair ? new List[n] : null;
      moving = t.readsHistory() ? new CompletableFuture[n] : null;
      List<CompletableFuture<?>> own = moving == null ? null : new ArrayList<>();
      long now = moving == null ? 0 : System.nanoTime();
      int[] first = null; // the keys read in the first round; null while they are keys 0 to count - 1
      int count = 0;
      for (int k = 0; k < n; k++) {
        Moves.Move move = moving == null ? null : Moves.route(t, keys[k], now);
        boolean sent;
        if (move != null && move.readsElsewhere(t)) {
          own.add(moving[k] = gets.read(t, move, keys[k]));
          sent = false;
        } else {
          sent = plan(k);
        }
        if (!sent && first == null) {
          first = new int[n];
          Arrays.setAll(first, i -> i); // keys 0 to k - 1 were all read
        } else if (sent && first != null) {
          first[count] = k;
        }
        count += sent ? 1 : 0;
      }
      CompletableFuture<Void> rounds = round(first, count, 0);
      if (own == null || own.isEmpty()) {
        done = rounds;
      } else {
        own.add(rounds);
        done = Requests.allOf(own).handle((x, y) -> (Void) null);
      }
    }

    /** Fills in key {@code k}'s read order; false for a key decided without reading. */
    private boolean plan(int k) {
      String key = keys[k];
      long hash = t.hash(key);
      Routes.Plan p = gets.routes.readPlan(t, key, hash);
      int row = k * width;
      if (p.readCount == 0) {
        int node = gets.unreadable(t, key, hash, p);
        if (node == Routes.NONE || node == Routes.OLD_COPY) {
          outcome[k] = node == Routes.NONE ? gets.routes.unavailable(t, t.router.primary(hash), key) : MISS;
          return false;
        }
        order[row] = node;
        if (ranks != null) {
          ranks[row] = FAILOVER;
        }
        if (lengths != null) {
          lengths[k] = 1;
        }
        return true;
      }
      int at = row;
      if (p.spill >= 0) {
        order[at] = p.spill;
        ranks[at++] = SPILL;
        // Noted before any replica is read: a write confirmed after this read began, even one whose
        // replica the plan still reads, moves it and no copy of an older value is kept.
        planned[k] = t.bounded.spillFor(key);
        generations[k] = planned[k] == null ? 0 : planned[k].generation.get();
      }
      for (int i = 0; i < p.readCount; i++) {
        order[at] = p.reads[i];
        if (ranks != null) {
          ranks[at] = t.replicas == 1 ? 0 : Routes.rank(p, p.reads[i]);
        }
        at++;
      }
      if (lengths != null) {
        lengths[k] = at - row;
      }
      if (repairGenerations != null) {
        repairGenerations[k] = gets.repairs.generation(key);
      }
      return true;
    }

    /** Reads each of the first {@code count} keys of {@code pending} (null: 0 to count - 1) on the r-th node of its order, then the next round. */
    CompletableFuture<Void> round(int[] pending, int count, int r) {
      if (count == 0) {
        return CompletableFuture.completedFuture(null);
      }
      // One batch per node, and a second one there for keys read after their spill node missed
      // (reported as getMultiFallback): group g is node g / 2, read after a spill when g is odd.
      int[] perNode = new int[2 * t.members.length];
      for (int i = 0; i < count; i++) {
        int k = pending == null ? i : pending[i];
        int at = k * width + r;
        perNode[group(k, r)]++;
        int rank = ranks == null ? 0 : ranks[at];
        if (rank == SPILL) {
          gets.metrics.redirected(t.nodes.get(order[at + 1]), t.nodes.get(order[at]), "spill");
        } else if (t.replicated && rank >= 0) {
          gets.metrics.replicaRead(t.members[order[at]].node, rank);
        }
      }
      int[][] byNode = new int[perNode.length][];
      for (int i = 0; i < count; i++) {
        int k = pending == null ? i : pending[i];
        int g = group(k, r);
        if (byNode[g] == null) {
          byNode[g] = new int[perNode[g]];
          perNode[g] = 0;
        }
        byNode[g][perNode[g]++] = k;
      }
      List<CompletableFuture<int[]>> replies = new ArrayList<>();
      for (int g = 0; g < byNode.length; g++) {
        if (byNode[g] != null) {
          replies.add(readOn(g / 2, byNode[g], r, r == 0 ? "getMulti" : g % 2 == 1 ? "getMultiFallback" : "getMultiReplica"));
        }
      }
      return Requests.allOf(replies)
          .thenCompose(
              x -> {
                int c = 0;
                for (CompletableFuture<int[]> f : replies) {
                  c += f.join().length;
                }
                return c == 0 ? CompletableFuture.completedFuture(null) : round(replies.stream().flatMapToInt(f -> IntStream.of(f.join())).toArray(), c, r + 1);
              });
    }

    /** Key {@code k}'s batch in round {@code r} ({@link #round}). */
    private int group(int k, int r) {
      boolean afterSpill = r > 0 && ranks != null && ranks[k * width] == SPILL; // a spill comes first
      return 2 * order[k * width + r] + (afterSpill ? 1 : 0);
    }

    /** One node's batch of round {@code r}; completes with the keys that go on to the next round. */
    CompletableFuture<int[]> readOn(int node, int[] indexes, int r, String operation) {
      Member m = t.members[node];
      List<String> nodeKeys = new KeysAt(keys, indexes);
      gets.routes.sent(m);
      return gets.requests
          .inParts(m, nodeKeys, null, true, part -> gets.requests.send(t, node, operation, c -> c.getMulti(part)))
          .thenApply(
              reply -> {
                m.inFlight.decrementAndGet();
                int answered = nodeKeys.size() - reply.failedCount(nodeKeys.size());
                if (answered > 0) {
                  int hits = reply.replies().size();
                  gets.metrics.reads(m.node, hits, answered - hits);
                }
                int[] next = NONE_NEXT;
                int c = 0;
                for (int k : indexes) {
                  if (!answer(k, node, r, reply)) {
                    next = next.length == 0 ? new int[indexes.length] : next;
                    next[c++] = k;
                  }
                }
                return c == next.length ? next : Arrays.copyOf(next, c);
              });
    }

    /** Key {@code k}'s answer from {@code node} in round {@code r}; false if it goes on to the next round. */
    private boolean answer(int k, int node, int r, NodeReply<CachedValue> reply) {
      String key = keys[k];
      Member m = t.members[node];
      int at = k * width + r;
      Throwable failure = reply.failure(key);
      CachedValue cv = failure == null ? reply.replies().get(key) : null;
      if (cv != null) {
        outcome[k] = cv;
        from[k] = node;
        if (missedOn != null && missedOn[k] != null) {
          gets.repairs.afterRead(key, cv, repairGenerations[k], m, missedOn[k]);
        }
        int row = k * width;
        if (r > 0 && ranks != null && ranks[row] == SPILL) { // read past the spill node, which missed
          gets.leaveSpillCopy(t, key, cv, order[row], planned[k], generations[k], order, row + 1, row + lengths[k]);
        }
        return true;
      }
      if (ranks != null && ranks[at] == SPILL) {
        return false; // no copy on the spill node (or it failed): the replicas next, then a copy there
      }
      if (failure == null) {
        outcome[k] = MISS; // a miss stays the outcome whatever the replicas after it fail with
        if (missedOn != null && ranks[at] >= 0) {
          if (missedOn[k] == null) {
            missedOn[k] = new ArrayList<>(width - 1);
          }
          missedOn[k].add(m);
        }
      } else if (outcome[k] != MISS) {
        outcome[k] = gets.requests.asShardwise(m, failure);
      }
      if (lengths != null && r + 1 < lengths[k]) {
        gets.metrics.replicaFailover(m.node, t.nodes.get(order[at + 1]), failure == null ? "miss" : "error");
        return false;
      }
      return true;
    }

    MultiResult<V> result() {
      MultiResult.Builder<V> result = MultiResult.builder(keys.length);
      for (int k = 0; k < keys.length; k++) {
        if (moving == null || moving[k] == null) {
          add(result, keys[k], outcome[k], t.members[from[k]], read);
        } else {
          Member primary = t.members[t.primary(keys[k])];
          add(result, keys[k], gets.requests.outcomeOf(moving[k], primary), primary, read);
        }
      }
      return result.build();
    }
  }
}
