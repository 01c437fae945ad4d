package io.shardwise.spring.cache;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NodeState;
import io.shardwise.client.ShardwiseException;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cache's namespace generation: a number on the fleet that is part of every key of the cache, so
 * that advancing it clears the cache at once on memcached, which cannot list keys, and on Redis
 * alike. Entries of older generations are never read again; expiry or eviction reclaims them.
 *
 * <p><b>Replicas.</b> The number is kept in {@code R = min(3, n)} counters on distinct nodes, so
 * that losing, hanging or readmitting one node costs only that node's share of the cache. Their
 * keys are {@code <base>#<salt>}: the salts 0, 1, 2, ... are tried in turn and a key is kept when
 * its node ({@link AsyncCacheClient#nodeFor}) holds none of the keys kept before, until R nodes
 * hold one. Every process with the same server list thus picks the same keys (they are picked
 * again if the client's node list changes). When a hash tag in the cache's prefix pins all its keys
 * to one node, fewer than R are found and that node holds the only one, as it holds all the cache's
 * entries. This layout replaced a single counter at {@code <base>} before 0.1.0 was released; that
 * key is no longer read.
 *
 * <p><b>Reading.</b> A read asks every replica whose node is in service ({@link NodeState#HEALTHY})
 * for its counter, with {@code incr} by 0, and the generation is the largest answer. A replica
 * whose node is ejected is not asked (elsewhere it would be a stale or empty copy); one that fails
 * is skipped; the read fails only when no replica answers (when every replica's node is ejected,
 * all are asked and the client's failure mode decides where they go). Only {@code incr} and
 * {@code delete} touch the counters, so the value codec plays no part: a counter is the server's
 * own decimal number on memcached and on Redis.
 *
 * <p><b>No read makes a newer generation.</b> {@code incr} creates an absent counter, and the
 * value it creates it with is never taken for a newer generation: the last generation this process
 * knows (a lost replica is so put back at once), or 0 when it knows none. Counters below {@link
 * #FLOOR} (2^40, a time in 2004 in milliseconds) are placeholders, not generations. When no replica
 * holds a generation, one process, holding a lock, creates one from the clock (milliseconds, at
 * least {@link #FLOOR}): past every generation used before, unless clears came faster than one a
 * millisecond on average. The others wait for it and read it.
 *
 * <p><b>Clearing.</b> {@link #advance()} adds 1 to every replica it reaches, so concurrent clears
 * each make a new generation, and the new generation is the largest result.
 *
 * <p><b>Repair, upward only.</b> A replica behind the generation (it missed a clear while its node
 * was out, or its node came back empty and a process that knew no generation put a placeholder
 * there) is raised to the generation by adding the difference, never set, so no race can lower a
 * counter. One process at a time repairs a replica, under a lock key on the replica's own node
 * ({@code incr} to 1 takes it; it expires after {@link #LOCK_TTL}): two processes adding the same
 * difference would overshoot, which is safe (a spurious clear) but costs the whole cache. A clear
 * during a repair commutes with it: both add.
 *
 * <p><b>What is left.</b> The generation goes back only if every replica holding the newest one is
 * lost at once while no running process remembers it (every process keeps the newest generation it
 * saw, never goes back, and puts it back on replicas behind it): then the largest surviving replica
 * wins, or, if none survives, a generation is created from the clock, which is past every one used
 * before unless clears outpaced milliseconds or the creating process's clock is behind. A clear
 * made while every node holding the newest generation is out reaches only replicas that lag: its
 * generation may be older than one a returning node holds. Both need two replica nodes to fail.
 *
 * <p>The value read is reused for {@code refresh}; a clear by this process is seen at once, a clear
 * by another process within {@code refresh}. A zero refresh reads the counters on every use.
 */
final class Generation {

  private static final Logger LOG = LoggerFactory.getLogger(Generation.class);

  /** How many counters hold the generation, on distinct nodes, when there are that many nodes. */
  static final int REPLICAS = 3;

  /**
   * Counters below this are placeholders, not generations: 2^40 milliseconds after the epoch is in
   * 2004, and generations are created from the clock.
   */
  static final long FLOOR = 1L << 40;

  /** Salts tried in the search for keys on distinct nodes. */
  static final int SALT_SEARCH_LIMIT = 1000;

  /** How long a repair or creation lock lasts unless released: far longer than either takes. */
  static final Duration LOCK_TTL = Duration.ofSeconds(5);

  private static final long CREATION_POLL_MILLIS = 50;

  /** How often a process waits for another one to create the generation: past the lock's TTL. */
  private static final int CREATION_POLLS =
      (int) (2 * LOCK_TTL.toMillis() / CREATION_POLL_MILLIS);

  /** One counter holding the generation: its key, the node it lives on and its lock's key. */
  record Replica(String key, Node node, String lockKey) {}

  /** The replicas for one node list. */
  private record Placement(List<Node> nodes, List<Replica> replicas) {}

  private final AsyncCacheClient<Object> client;
  private final String base;
  private final long refreshNanos;
  private final Object lock = new Object();
  /** Keys of the replicas this process is repairing. */
  private final Set<String> repairing = ConcurrentHashMap.newKeySet();
  private volatile Placement placement;

  /** The newest generation this process saw or made, 0 before the first; never decreases. */
  private long value;

  private long readAtNanos;

  /** The read under way, shared by the callers that come while it runs (with a refresh only). */
  private CompletableFuture<Long> reading;

  /** Repairs started and not finished, for tests. */
  private final Set<CompletableFuture<Void>> repairs = ConcurrentHashMap.newKeySet();

  /** A generation kept in counters {@code <base>#<salt>}, read again after {@code refresh}. */
  Generation(AsyncCacheClient<Object> client, String base, Duration refresh) {
    this.client = client;
    this.base = base;
    this.refreshNanos = refresh.toNanos();
  }

  /** The counters holding the generation for the client's node list now. */
  List<Replica> replicas() {
    return placement().replicas();
  }

  /** The current generation. */
  CompletableFuture<Long> current() {
    CompletableFuture<Long> mine;
    synchronized (lock) {
      if (refreshNanos > 0) {
        if (value != 0 && System.nanoTime() - readAtNanos < refreshNanos) {
          return CompletableFuture.completedFuture(value);
        }
        if (reading != null) {
          return reading;
        }
      }
      mine = new CompletableFuture<>();
      if (refreshNanos > 0) {
        reading = mine;
      }
    }
    call(this::read)
        .whenComplete(
            (g, failure) -> {
              synchronized (lock) {
                if (reading == mine) {
                  reading = null;
                }
              }
              if (failure != null) {
                mine.completeExceptionally(failure);
              } else {
                mine.complete(g);
              }
            });
    return mine;
  }

  /** Moves to a new generation; entries of the older ones are no longer read. */
  CompletableFuture<Long> advance() {
    return call(
        () -> {
          long start = System.nanoTime();
          long known = known();
          long past = known == 0 ? 0 : known + 1;
          Placement p = placement();
          List<Replica> targets = reachable(p);
          return ask(targets, i -> client.incr(targets.get(i).key(), 1, past, Duration.ZERO))
              .thenCompose(
                  a -> {
                    long g = a.max();
                    if (g == 0 && past == 0) {
                      // No generation anywhere: a new one is as good as a clear.
                      return create(p, start, 0);
                    }
                    if (g >= past) {
                      repairBehind(a, g);
                      return CompletableFuture.completedFuture(publish(g, start));
                    }
                    // Only replicas behind this process answered (the newer ones are out): raise
                    // them past what it used, or the clear would not be one.
                    return raise(a, past).thenApply(r -> publish(r, start));
                  });
        });
  }

  /** Waits for the repairs started so far (for tests). */
  void awaitRepairs() {
    for (CompletableFuture<Void> repair : List.copyOf(repairs)) {
      repair.join();
    }
  }

  // ---- reading and creating ------------------------------------------------------------------

  private CompletableFuture<Long> read() {
    long start = System.nanoTime();
    long known = known();
    Placement p = placement();
    List<Replica> targets = reachable(p);
    return ask(targets, i -> client.incr(targets.get(i).key(), 0, known, Duration.ZERO))
        .thenCompose(
            a -> {
              long g = Math.max(a.max(), known);
              if (g == 0) {
                return create(p, start, 0);
              }
              repairBehind(a, g);
              return CompletableFuture.completedFuture(publish(g, start));
            });
  }

  /**
   * Creates a generation when no replica holds one, under a lock; or, when another client holds
   * the lock, waits for its generation.
   */
  private CompletableFuture<Long> create(Placement p, long start, int polls) {
    List<Replica> targets = reachable(p);
    return acquire(targets, 0)
        .thenCompose(
            held -> {
              if (held != null) {
                return createHolding(held, targets, start);
              }
              if (polls >= CREATION_POLLS) {
                return CompletableFuture.<Long>failedFuture(
                    new ShardwiseException(
                        "another client took the lock to create the generation of "
                            + base
                            + " and has not created it within "
                            + polls * CREATION_POLL_MILLIS
                            + " ms"));
              }
              Executor later =
                  CompletableFuture.delayedExecutor(CREATION_POLL_MILLIS, TimeUnit.MILLISECONDS);
              return CompletableFuture.supplyAsync(() -> reachable(p), later)
                  .thenCompose(
                      again ->
                          ask(again, i -> client.incr(again.get(i).key(), 0, 0, Duration.ZERO)))
                  .thenCompose(
                      a ->
                          a.max() > 0
                              ? CompletableFuture.completedFuture(publish(a.max(), start))
                              : create(p, start, polls + 1));
            });
  }

  private CompletableFuture<Long> createHolding(Replica held, List<Replica> targets, long start) {
    return ask(targets, i -> client.incr(targets.get(i).key(), 0, 0, Duration.ZERO))
        .thenCompose(
            a -> {
              long found = a.max();
              if (found > 0) {
                // Another client created it before this one took the lock.
                repairBehind(a, found);
                return CompletableFuture.completedFuture(found);
              }
              long g = Math.max(System.currentTimeMillis(), FLOOR);
              LOG.debug("{}: no replica holds a generation; creating {}", base, g);
              return raise(a, g);
            })
        .whenComplete((g, failure) -> release(held))
        .thenApply(g -> publish(g, start));
  }

  /**
   * Takes the lock of the first candidate whose lock's node answers: completes with that replica,
   * or with null if another client holds that lock.
   */
  private CompletableFuture<Replica> acquire(List<Replica> candidates, int index) {
    Replica r = candidates.get(index);
    return call(() -> client.incr(r.lockKey(), 1, 1, LOCK_TTL))
        .handle(
            (count, failure) -> {
              if (failure == null) {
                return CompletableFuture.completedFuture(count == 1 ? r : null);
              }
              if (index + 1 < candidates.size()) {
                return acquire(candidates, index + 1);
              }
              return CompletableFuture.<Replica>failedFuture(failure);
            })
        .thenCompose(f -> f);
  }

  private void release(Replica held) {
    call(() -> client.delete(held.lockKey()))
        .whenComplete(
            (x, failure) -> {
              if (failure != null) {
                LOG.debug("{}: not released, expires: {}", held.lockKey(), failure.toString());
              }
            });
  }

  // ---- repair ----------------------------------------------------------------------------------

  /** Starts a repair of every replica of {@code a} that answered with less than {@code g}. */
  private void repairBehind(Answers a, long g) {
    for (int i = 0; i < a.values.length; i++) {
      Long v = a.values[i];
      if (v != null && v < g) {
        repair(a.replicas.get(i), g);
      }
    }
  }

  /**
   * Raises one replica to {@code g} under its lock, in the background: reads it again, holding the
   * lock, and adds what it lacks. A failure leaves the lock to expire, and the next read that sees
   * the replica behind tries again.
   */
  private void repair(Replica r, long g) {
    if (!repairing.add(r.key())) {
      return;
    }
    CompletableFuture<Void> done =
        call(() -> client.incr(r.lockKey(), 1, 1, LOCK_TTL))
            .thenCompose(
                count ->
                    count != 1
                        ? CompletableFuture.<Void>completedFuture(null)
                        : client
                            .incr(r.key(), 0, g, Duration.ZERO)
                            .thenCompose(
                                v ->
                                    v >= g
                                        ? CompletableFuture.completedFuture(v)
                                        : client.incr(r.key(), g - v, g, Duration.ZERO))
                            .thenAccept(
                                v -> {
                                  LOG.debug("{}: repaired to {} (generation {})", r.key(), v, g);
                                  release(r);
                                }));
    repairs.add(done);
    done.whenComplete(
        (x, failure) -> {
          repairing.remove(r.key());
          repairs.remove(done);
          if (failure != null) {
            LOG.debug("{}: repair to {} failed: {}", r.key(), g, failure.toString());
          }
        });
  }

  /**
   * Adds to each replica of {@code a} that answered with less than {@code g} what it lacks;
   * completes with the largest generation the replicas then hold.
   */
  private CompletableFuture<Long> raise(Answers a, long g) {
    List<Replica> behind = new ArrayList<>();
    List<Long> deltas = new ArrayList<>();
    for (int i = 0; i < a.values.length; i++) {
      Long v = a.values[i];
      if (v != null && v < g) {
        behind.add(a.replicas.get(i));
        deltas.add(g - v);
      }
    }
    long reached = a.max() >= g ? a.max() : 0;
    if (behind.isEmpty()) {
      return CompletableFuture.completedFuture(reached);
    }
    return ask(behind, i -> client.incr(behind.get(i).key(), deltas.get(i), g, Duration.ZERO))
        .handle(
            (b, failure) -> {
              if (failure == null) {
                return Math.max(reached, b.max());
              }
              if (reached > 0) {
                return reached;
              }
              throw failure instanceof CompletionException c ? c : new CompletionException(failure);
            });
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private long known() {
    synchronized (lock) {
      return value;
    }
  }

  /** Takes {@code g} in if it is newer; returns the newest generation known. */
  private long publish(long g, long startNanos) {
    synchronized (lock) {
      if (g > value) {
        value = g;
      }
      readAtNanos = startNanos;
      return value;
    }
  }

  private Placement placement() {
    List<Node> nodes = client.nodes();
    Placement p = placement;
    if (p != null && (p.nodes() == nodes || p.nodes().equals(nodes))) {
      return p;
    }
    p = place(nodes);
    placement = p;
    return p;
  }

  private Placement place(List<Node> nodes) {
    if (nodes.isEmpty()) {
      throw new IllegalStateException("the client has no nodes");
    }
    int wanted = Math.min(REPLICAS, nodes.size());
    Map<Node, String> keys = new LinkedHashMap<>();
    for (int salt = 0; keys.size() < wanted && salt < SALT_SEARCH_LIMIT; salt++) {
      String key = base + "#" + salt;
      keys.putIfAbsent(client.nodeFor(key), key);
    }
    List<Replica> replicas = new ArrayList<>();
    keys.forEach((node, key) -> replicas.add(new Replica(key, node, lockKey(key, node))));
    return new Placement(nodes, List.copyOf(replicas));
  }

  /** A lock key for {@code key} on the same node, so that whoever reaches the one reaches both. */
  private String lockKey(String key, Node node) {
    for (int salt = 0; salt < SALT_SEARCH_LIMIT; salt++) {
      String candidate = key + ".lock#" + salt;
      if (client.nodeFor(candidate).equals(node)) {
        return candidate;
      }
    }
    return key + ".lock#0";
  }

  /** The replicas whose node is in service; all of them if none is. */
  private List<Replica> reachable(Placement p) {
    Map<Node, NodeState> states = client.nodeStates();
    List<Replica> up = new ArrayList<>(p.replicas().size());
    for (Replica r : p.replicas()) {
      NodeState state = states == null ? null : states.get(r.node());
      if (state == null || state == NodeState.HEALTHY) {
        up.add(r);
      }
    }
    return up.isEmpty() ? p.replicas() : up;
  }

  /**
   * Sends {@code op} for every replica at once; completes with every answer once all are in, or
   * fails if none answered.
   */
  private CompletableFuture<Answers> ask(
      List<Replica> replicas, IntFunction<CompletableFuture<Long>> op) {
    int n = replicas.size();
    Long[] values = new Long[n];
    Throwable[] failures = new Throwable[n];
    CompletableFuture<?>[] parts = new CompletableFuture<?>[n];
    for (int i = 0; i < n; i++) {
      int at = i;
      parts[i] =
          call(() -> op.apply(at))
              .handle(
                  (v, failure) -> {
                    if (failure != null) {
                      failures[at] = unwrap(failure);
                    } else {
                      values[at] = v;
                    }
                    return null;
                  });
    }
    return CompletableFuture.allOf(parts)
        .thenApply(
            x -> {
              for (Long v : values) {
                if (v != null) {
                  return new Answers(replicas, values);
                }
              }
              throw noAnswer(replicas, failures);
            });
  }

  private ShardwiseException noAnswer(List<Replica> replicas, Throwable[] failures) {
    StringBuilder where = new StringBuilder();
    Throwable first = null;
    for (int i = 0; i < replicas.size(); i++) {
      where.append(i == 0 ? "" : ", ").append(replicas.get(i).key()).append(" on ");
      where.append(replicas.get(i).node().name());
      first = first == null ? failures[i] : first;
    }
    ShardwiseException e =
        new ShardwiseException(
            "no counter of the generation " + base + " answered (" + where + ")", first);
    for (Throwable t : failures) {
      if (t != null && t != first) {
        e.addSuppressed(t);
      }
    }
    return e;
  }

  private static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  /** Runs {@code step}; an exception it throws fails the future instead. */
  private static <T> CompletableFuture<T> call(Supplier<CompletableFuture<T>> step) {
    try {
      return step.get();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** What the replicas asked answered: a value, or null where one failed. */
  private static final class Answers {
    final List<Replica> replicas;
    final Long[] values;

    Answers(List<Replica> replicas, Long[] values) {
      this.replicas = replicas;
      this.values = values;
    }

    /** The largest generation answered; 0 if every answer is a placeholder. */
    long max() {
      long max = 0;
      for (Long v : values) {
        if (v != null && v >= FLOOR && v > max) {
          max = v;
        }
      }
      return max;
    }
  }
}
