package io.shardwise.core.internal.exec;

import io.shardwise.client.NodeUnavailableException;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters on N replicas, for {@link Writes}: an update is counted on every replica that holds
 * the counter, so that losing one server loses no increment, and never starts the count again from
 * its initial value while a replica holds it ({@code docs/replicas.md}, Counters). A key with one
 * copy takes a plain incr instead.
 */
public final class Counters {

  /**
   * A counter update: {@link #send} adds to a counter that exists ({@code incrIfPresent}),
   * {@link #create} creates it with {@code initial} when absent.
   */
  public record CounterOp(String key, long delta, long initial) implements WriteSteps.WriteOp<Long> {
    @Override
    public CompletableFuture<Long> send(io.shardwise.spi.NodeConnection connection, Duration ttl) {
      return connection.incrIfPresent(key, delta);
    }

    public CompletableFuture<Long> create(io.shardwise.spi.NodeConnection connection, Duration ttl) {
      return connection.incr(key, delta, initial, ttl);
    }
  }

  private final Requests requests;
  private final Failback failback;
  private final WriteSteps steps;
  private final Repairs repairs;

  Counters(Requests requests, Failback failback, WriteSteps steps, Repairs repairs) {
    this.requests = requests;
    this.failback = failback;
    this.steps = steps;
    this.repairs = repairs;
  }

  /**
   * Why an update of the counter {@code key} planned as {@code p}, with replicas out, is refused
   * before anything is journaled; null if it is not. A counter is not counted on another server
   * when every replica is out: it would start again there from its initial value. Nor when every
   * replica that answers may lack it ({@link #mayLack}): the count may be on a replica that is out
   * alone, the update could count nowhere, and its journal entry would have that copy, the only one,
   * deleted when the replica returns.
   */
  NodeUnavailableException refused(Topology t, String key, Routes.Plan p) {
    if (p.writeCount == 0) {
      return new NodeUnavailableException(
          t.members[p.replicas[0]].node,
          "every replica of the counter is out; it is not counted on another server, where it would start again from its initial value");
    }
    for (int i = 0; i < p.writeCount; i++) {
      if (!mayLack(t.members[p.writes[i]], key)) {
        return null;
      }
    }
    return lostCopy(t.members[p.out[0]]);
  }

  private static NodeUnavailableException lostCopy(Member m) {
    return new NodeUnavailableException(
        m.node, "the counter's replicas that answer lost their copy and the replica that holds it is out; it is not started again from its initial value");
  }

  /**
   * Whether replica {@code m} is known to lack the counter {@code key} while another replica holds
   * it: its copy is marked old, or waits to be handed the count. An update that finds it absent
   * there does not create it while a replica is out. A server that came back empty and is being
   * refilled is not counted as lacking it: it may hold the count again already, and refusing every
   * update of a counter whose other replica is out during each refill (seconds after every restart)
   * would make counters, and the Spring cache's generations, fail in a rolling restart; the count
   * is then lost only if the other replica goes out before an update handed it over, a second
   * failure after a server lost its data (docs/replicas.md).
   */
  private boolean mayLack(Member m, String key) {
    return m.holdsOldCopy(key) || repairs.awaitsHandoff(m, key);
  }

  /**
   * The creations of counters under way in this process, by key: an update that finds the counter on
   * some replicas and not on others while one runs waits for it, then adds to those again.
   */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> creating =
      new ConcurrentHashMap<>();

  /**
   * Per stripe of keys, the creations of counters begun and ended: an update notes them before it is
   * sent, and so knows whether one was under way then or began since.
   */
  private final AtomicLongArray creations = new AtomicLongArray(1024);
  private final AtomicLongArray created = new AtomicLongArray(1024);

  private static int stripe(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & 1023;
  }

  /**
   * A counter update on every available replica of the key ({@code targets}, in preference order).
   * Each replica that holds the counter adds to it ({@code incrIfPresent}); one that does not (it
   * lost its copy: evicted, restarted empty, or deleted before it served again after an outage)
   * creates nothing, so that the count never starts again from {@code initial} while a replica holds
   * it, and gets the count handed over afterwards ({@link Repairs#handOff}). The value returned is
   * that of the first replica, in preference order, that holds the counter; a replica whose request
   * failed then has its copy marked old, as a failed replica write does. Only when every replica
   * answered that it holds none is the counter created, on all of them. When none answered with a
   * count and some failed, the count may be on those: the update fails, and nothing is created or
   * marked.
   */
  CompletableFuture<Long> count(Topology t, String key, int[] targets, CounterOp op, Duration ttl, long generation) {
    steps.warmUp.countingBegins(key);
    CompletableFuture<Long> f;
    try {
      f = countOnce(t, key, targets, op, ttl, generation);
    } catch (RuntimeException | Error e) {
      steps.warmUp.countingEnds(key);
      throw e;
    }
    return f.whenComplete((v, x) -> steps.warmUp.countingEnds(key));
  }

  private CompletableFuture<Long> countOnce(Topology t, String key, int[] targets, CounterOp op, Duration ttl, long generation) {
    // A replica that may have lost its copy: the count may be on another replica alone, and must
    // not be started again here if that one is out.
    boolean lostHere = false;
    for (int node : targets) {
      lostHere |= mayLack(t.members[node], key);
    }
    boolean allAnswer = targets.length == t.replicas;
    boolean mayCreate = allAnswer || !lostHere;
    // A creation under way when this update is sent, or begun since, may reach some replicas after it.
    long createdBefore = created.get(stripe(key));
    long creationsBefore = creations.get(stripe(key));
    boolean creatingBefore = creationsBefore != createdBefore;
    List<CompletableFuture<Long>> added = new ArrayList<>(targets.length);
    for (int node : targets) {
      added.add(steps.counting(t, node, key, "incr", ttl, op, WriteSteps.Kind.KEEPS));
    }
    return Requests.allOf(added)
        .handle((x, y) -> (Void) null)
        .thenCompose(x -> addedWhereCreated(t, key, targets, op, ttl, added, creatingBefore || creations.get(stripe(key)) != creationsBefore))
        .thenCompose(
            x -> {
              Long first = null;
              List<Member> absent = new ArrayList<>();
              List<Integer> failed = new ArrayList<>();
              for (int i = 0; i < targets.length; i++) {
                if (Requests.failureOf(added.get(i)) != null) {
                  failed.add(i);
                  continue;
                }
                Long value = added.get(i).join();
                if (value == null) {
                  absent.add(t.members[targets[i]]);
                } else if (first == null) {
                  first = value;
                }
              }
              if (first != null) {
                for (int i : failed) {
                  if (!failback.markFailedCopy(t.members[targets[i]], key)) {
                    return CompletableFuture.failedFuture(requests.asShardwise(t.members[targets[i]], Requests.failureOf(added.get(i))));
                  }
                }
                Long count = first;
                CompletableFuture<Long> written = CompletableFuture.completedFuture(count);
                Member[] lacking = absent.toArray(new Member[0]);
                CompletableFuture<Long> done = generation < 0 ? written : steps.healed(key, generation, lacking, written);
                return done.whenComplete((v, f) -> absent.forEach(m -> repairs.handOff(m, List.of(key))));
              }
              if (!failed.isEmpty()) {
                int i = failed.get(0);
                return CompletableFuture.failedFuture(requests.asShardwise(t.members[targets[i]], Requests.failureOf(added.get(i))));
              }
              if (!mayCreate) {
                return CompletableFuture.failedFuture(lostCopy(t.members[targets[0]]));
              }
              CompletableFuture<Void> mine = new CompletableFuture<>();
              CompletableFuture<Void> running = creating.putIfAbsent(key, mine);
              if (running != null) {
                // Another update of this process is creating it: count on what it created.
                return running.handle((r, f) -> (Void) null).thenCompose(y -> count(t, key, targets, op, ttl, generation));
              }
              creations.incrementAndGet(stripe(key));
              return create(t, key, targets, op, ttl)
                  .whenComplete(
                      (v, f) -> {
                        creating.remove(key, mine);
                        created.incrementAndGet(stripe(key));
                        mine.complete(null);
                      });
            });
  }

  /**
   * When the counter answered on some replicas and was absent on others while this process was
   * creating it ({@code creating}: a creation in its stripe was under way when the update was sent,
   * or began since), the creation may have reached the first before this update and the others
   * after: once it is done, the update is sent again to those that answered absent, in {@code added}.
   */
  private CompletableFuture<Void> addedWhereCreated(
      Topology t, String key, int[] targets, CounterOp op, Duration ttl, List<CompletableFuture<Long>> added, boolean creating) {
    if (!creating) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> running = this.creating.get(key);
    if (running == null) {
      running = CompletableFuture.completedFuture(null);
    }
    boolean present = false;
    boolean absent = false;
    for (CompletableFuture<Long> f : added) {
      if (Requests.failureOf(f) == null) {
        present |= f.join() != null;
        absent |= f.join() == null;
      }
    }
    if (!present || !absent) {
      return CompletableFuture.completedFuture(null);
    }
    return running
        .handle((r, f) -> (Void) null)
        .thenCompose(
            y -> {
              List<CompletableFuture<Long>> again = new ArrayList<>();
              for (int i = 0; i < targets.length; i++) {
                if (Requests.failureOf(added.get(i)) == null && added.get(i).join() == null) {
                  int slot = i;
                  CompletableFuture<Long> retried = steps.counting(t, targets[i], key, "incr", ttl, op, WriteSteps.Kind.KEEPS);
                  again.add(retried.whenComplete((v, f) -> added.set(slot, retried)));
                }
              }
              return Requests.allOf(again).handle((r, f) -> (Void) null);
            });
  }

  /**
   * Creates the counter on every replica in {@code targets}: a write of each, whose value is the
   * first replica's, a replica that failed it marked old ({@link ToAll#outcome}).
   */
  private CompletableFuture<Long> create(Topology t, String key, int[] targets, CounterOp op, Duration ttl) {
    return ToAll.send(steps, t, new Writes.Write<>(key, "incr", ttl, op::create, WriteSteps.Kind.KEEPS, Writes.Shape.ALL, (a, b) -> a), targets, null, -1);
  }
}
