package io.shardwise.core.internal.exec;

import io.shardwise.client.NodeUnavailableException;
import io.shardwise.core.internal.heal.Repairs;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Counters on N replicas, for {@link Writes}: an update counts on every replica that holds the
 * counter, so that losing one server loses no increment, and never starts the count again from its
 * initial value while a replica holds it ({@code docs/replicas.md}, Counters). A key with one copy
 * takes a plain incr ({@link CounterOp#send}).
 */
public final class Counters {

  /** A counter update: {@link #send} creates the counter with {@code initial} when absent, {@link #add} only adds to one. */
  public record CounterOp(String key, long delta, long initial) implements WriteSteps.WriteOp<Long> {
    @Override
    public CompletableFuture<Long> send(NodeConnection connection, Duration ttl) {
      return connection.incr(key, delta, initial, ttl);
    }

    CompletableFuture<Long> add(NodeConnection connection, Duration ttl) {
      return connection.incrIfPresent(key, delta);
    }
  }

  private final WriteSteps steps;
  private final Repairs repairs;

  Counters(WriteSteps steps, Repairs repairs) {
    this.steps = steps;
    this.repairs = repairs;
  }

  /**
   * Why an update of the counter {@code key} planned as {@code p}, with replicas out, is refused
   * before anything is journaled; null if it is not. Not on another server when every replica is
   * out (it would start again there from its initial value), nor when every replica that answers
   * may lack it ({@link #mayLack}): the count may be on the one out alone, and its journal entry
   * would delete that copy when it returns.
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
   * Whether replica {@code m} is known to lack the counter {@code key} while another holds it: its
   * copy is marked old, or waits to be handed the count. A server being refilled after it came back
   * empty is not: refusing updates whose other replica is out during every refill would fail
   * counters (and the Spring cache's generations) in a rolling restart; the count is then lost only
   * on a second failure before an update hands it over (docs/replicas.md).
   */
  private boolean mayLack(Member m, String key) {
    return m.holdsOldCopy(key) || repairs.awaitsHandoff(m, key);
  }

  /**
   * The creations of counters under way in this process, by key; and per stripe of keys, those begun
   * and ended, which an update notes before it is sent, to know whether one ran meanwhile.
   */
  private final ConcurrentHashMap<String, CompletableFuture<Void>> creating = new ConcurrentHashMap<>();

  private final AtomicLongArray creations = new AtomicLongArray(1024);
  private final AtomicLongArray created = new AtomicLongArray(1024);

  private static int stripe(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & 1023;
  }

  /**
   * A counter update on the available replicas {@code targets}, in preference order. Each one that
   * holds the counter adds to it; one that lost its copy (evicted, restarted empty, deleted after an
   * outage) creates nothing and is handed the count afterwards ({@link Repairs#handOff}). The value
   * is that of the first replica holding it; one whose request failed then has its copy marked old.
   * Only when every replica answered that it holds none is the counter created, on all of them; when
   * none answered with a count and some failed, the update fails, creating and marking nothing.
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
    // Not created while a replica that may have lost its copy answers and another is out: the
    // count may be on that one alone.
    boolean mayCreate = targets.length == t.replicas || Arrays.stream(targets).noneMatch(node -> mayLack(t.members[node], key));
    // A creation under way when this update is sent, or begun since, may reach some replicas after it.
    long createdBefore = created.get(stripe(key));
    long creationsBefore = creations.get(stripe(key));
    boolean creatingBefore = creationsBefore != createdBefore;
    List<CompletableFuture<Long>> added = new ArrayList<>(targets.length);
    for (int node : targets) {
      added.add(steps.send(t, node, key, "incr", ttl, op::add, WriteSteps.Kind.KEEPS));
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
                  if (!steps.failback.markFailedCopy(t.members[targets[i]], key)) {
                    return CompletableFuture.failedFuture(steps.requests.asShardwise(t.members[targets[i]], Requests.failureOf(added.get(i))));
                  }
                }
                CompletableFuture<Long> written = CompletableFuture.completedFuture(first);
                CompletableFuture<Long> done = generation < 0 ? written : steps.healed(key, generation, absent.toArray(Member.NONE), written);
                return done.whenComplete((v, f) -> absent.forEach(m -> repairs.handOff(m, List.of(key))));
              }
              if (!failed.isEmpty()) {
                int i = failed.get(0);
                return CompletableFuture.failedFuture(steps.requests.asShardwise(t.members[targets[i]], Requests.failureOf(added.get(i))));
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
   * When the counter was present on some replicas and absent on others while this process may have
   * been creating it ({@code creating}), the creation may have reached the first before this update
   * and the others after: once it is done, the update is sent again where it was absent.
   */
  private CompletableFuture<Void> addedWhereCreated(
      Topology t, String key, int[] targets, CounterOp op, Duration ttl, List<CompletableFuture<Long>> added, boolean creating) {
    if (!creating) {
      return CompletableFuture.completedFuture(null);
    }
    boolean present = added.stream().anyMatch(f -> Requests.failureOf(f) == null && f.join() != null);
    boolean absent = added.stream().anyMatch(f -> Requests.failureOf(f) == null && f.join() == null);
    if (!present || !absent) {
      return CompletableFuture.completedFuture(null);
    }
    return this.creating
        .getOrDefault(key, CompletableFuture.completedFuture(null))
        .handle((r, f) -> (Void) null)
        .thenCompose(
            y -> {
              List<CompletableFuture<Long>> again = new ArrayList<>();
              for (int i = 0; i < targets.length; i++) {
                if (Requests.failureOf(added.get(i)) == null && added.get(i).join() == null) {
                  int slot = i;
                  CompletableFuture<Long> retried = steps.send(t, targets[i], key, "incr", ttl, op::add, WriteSteps.Kind.KEEPS);
                  again.add(retried.whenComplete((v, f) -> added.set(slot, retried)));
                }
              }
              return Requests.allOf(again).handle((r, f) -> (Void) null);
            });
  }

  /** Creates the counter on each of {@code targets}: the first one's value, one that failed marked old ({@link ToAll#outcome}). */
  private CompletableFuture<Long> create(Topology t, String key, int[] targets, CounterOp op, Duration ttl) {
    return ToAll.send(steps, t, new Writes.Write<>(key, "incr", ttl, op, WriteSteps.Kind.KEEPS, Writes.Shape.ALL, (a, b) -> a), targets, null, -1);
  }
}
