package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeState;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Counters on two replicas under concurrency: 8 threads increment 200 counters while servers are
 * stopped and continued (their queued requests applied late) and killed and restarted with or
 * without their data, one at a time, over and over. Once the servers are back and the repairs done, every counter holds at least
 * its confirmed increments (an increment that timed out may count too), and every replica that
 * holds it agrees with the others.
 */
class CounterModelTest {

  private static final int COUNTERS = 200;
  private static final int THREADS = 8;
  private static final long RUN_MILLIS = 3000;
  /** Increments a run must confirm; a loaded machine runs on until it has (at most 20 s more). */
  private static final int MIN_CONFIRMED = 1000;

  /** Seeds 1 and 2; {@code -Dcounter.model.seeds=N} runs seeds 1..N. */
  static java.util.stream.LongStream seeds() {
    return java.util.stream.LongStream.rangeClosed(1, Long.getLong("counter.model.seeds", 2));
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void noConfirmedIncrementIsLostWhenOneServerAtATimeFails(long seed) throws Exception {
    SimulatedFleet fleet = new SimulatedFleet();
    SimulatedFleet.TRACE.clear();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(100))
            .failover(SimulatedFleet.fastFailover().build())
            .codec(Codecs.utf8())
            .replicas(2)
            .listener(e -> SimulatedFleet.trace("*", "event " + e))
            .build();
    CacheClient<String> sync = client.sync();
    List<Node> nodes = client.nodes();
    AtomicLongArray confirmed = new AtomicLongArray(COUNTERS);
    AtomicLongArray attempted = new AtomicLongArray(COUNTERS);
    java.util.concurrent.atomic.AtomicLong confirmedSoFar = new java.util.concurrent.atomic.AtomicLong();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(seed * 1000 + thread);
                while (running.get()) {
                  int i = random.nextInt(COUNTERS);
                  attempted.incrementAndGet(i);
                  try {
                    long v = sync.incr("n:" + i, 1, 1, Duration.ZERO); // created with 1: the first increment
                    confirmed.incrementAndGet(i);
                    confirmedSoFar.incrementAndGet();
                    SimulatedFleet.trace("n:" + i, "incr confirmed " + v);
                  } catch (RuntimeException e) {
                    SimulatedFleet.trace("n:" + i, "incr failed " + e);
                    // not confirmed: it may have counted or not
                  }
                }
              },
              "counter-" + t));
    }
    Thread chaos = new Thread(() -> stopAndKill(fleet, client, nodes, seed, running), "chaos");
    threads.forEach(Thread::start);
    chaos.start();
    Thread.sleep(RUN_MILLIS);
    VersionedLoad.runUntil(() -> confirmedSoFar.get() > MIN_CONFIRMED, 20_000_000_000L);
    running.set(false);
    for (Thread t : threads) {
      t.join(5000);
    }
    chaos.join(5000);
    awaitQuiet(client, nodes);
    Router router = RouterSpec.DEFAULT.build(nodes);
    long lost = 0;
    long confirmedAll = 0;
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < COUNTERS; i++) {
      String key = "n:" + i;
      int[] replicas = new int[2];
      router.replicas(router.hasher().hash(key), 2, replicas);
      Long held = null;
      for (int r : replicas) {
        CachedValue v = fleet.node(nodes.get(r)).data.get(key);
        if (v == null) {
          continue;
        }
        long count = Long.parseLong(new String(v.bytes(), StandardCharsets.US_ASCII));
        if (held != null && held != count && problems.size() < 5) {
          problems.add(key + ": replicas disagree, " + held + " and " + count);
          if (SimulatedFleet.TRACING && problems.size() == 1) {
            System.out.println("trace of " + key + ":" + SimulatedFleet.traceOf(key));
          }
        }
        held = held == null ? count : Math.min(held, count);
      }
      long value = held == null ? 0 : held;
      confirmedAll += confirmed.get(i);
      if (value < confirmed.get(i)) {
        lost += confirmed.get(i) - value;
        if (problems.size() < 5) {
          problems.add(key + ": " + value + " counted, " + confirmed.get(i) + " confirmed, " + attempted.get(i) + " attempted");
          if (SimulatedFleet.TRACING && problems.size() == 1) {
            System.out.println("trace of " + key + ":" + SimulatedFleet.traceOf(key));
          }
        }
      }
    }
    client.close();
    fleet.close();
    System.out.printf("[counter model] seed %d: %d confirmed increments, %d lost; %s%n", seed, confirmedAll, lost, problems);
    assertThat(confirmedAll).as("increments confirmed").isGreaterThan(MIN_CONFIRMED);
    assertThat(problems).as("lost increments or replicas that disagree").isEmpty();
  }

  /**
   * Stops and continues, or kills and restarts with or without their data, one server at a time:
   * the next only
   * once every server is back and its copies handed over, so that no counter ever has both replicas
   * out or without their copy at once (that loses increments: docs/replicas.md).
   */
  private static void stopAndKill(
      SimulatedFleet fleet, AsyncCacheClient<String> client, List<Node> nodes, long seed, AtomicBoolean running) {
    SplittableRandom random = new SplittableRandom(seed * 77);
    try {
      Thread.sleep(100);
      while (running.get()) {
        while (running.get() && !(quiet(client) && restored(fleet, nodes))) {
          Thread.sleep(5);
        }
        if (!running.get()) {
          break; // the run ended while a server was still out: no further failure on top of it
        }
        SimulatedFleet.SimNode victim = fleet.node(nodes.get(random.nextInt(nodes.size())));
        int action = random.nextInt(3);
        SimulatedFleet.trace("*", "chaos " + victim.node + " " + action);
        if (action == 0) {
          victim.pause();
          Thread.sleep(20 + random.nextInt(200));
          victim.resume();
        } else {
          victim.kill();
          Thread.sleep(20 + random.nextInt(200));
          victim.restart(action == 1); // with its data, or empty as a restarted memcached
        }
        Thread.sleep(50 + random.nextInt(100));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      nodes.forEach(n -> fleet.node(n).resume());
    }
  }

  /**
   * Every counter held by one of its replicas is held by the other too: a server restarted empty
   * gets a counter's count back only when an update of it finds it absent there, and until then the
   * count is on one server. A second failure before that is a second loss (both replicas lost the
   * count: docs/replicas.md), not one failure at a time.
   */
  private static boolean restored(SimulatedFleet fleet, List<Node> nodes) {
    Router router = RouterSpec.DEFAULT.build(nodes);
    int[] replicas = new int[2];
    for (int i = 0; i < COUNTERS; i++) {
      String key = "n:" + i;
      router.replicas(router.hasher().hash(key), 2, replicas);
      boolean first = fleet.node(nodes.get(replicas[0])).data.containsKey(key);
      boolean second = fleet.node(nodes.get(replicas[1])).data.containsKey(key);
      if (first != second) {
        return false;
      }
    }
    return true;
  }

  /**
   * Every server healthy, nothing journaled or left to hand over, and no copy marked old: a copy
   * marked after a failed update is deleted by the sweep (about once a second) before its handoff
   * is queued, and until then it is a replica without its copy, as one restarted empty is.
   */
  private static boolean quiet(AsyncCacheClient<String> client) {
    return client.nodeStates().values().stream().allMatch(s -> s == NodeState.HEALTHY)
        && client.nodeStatus().values().stream().allMatch(s -> s.copiesToRepair() == 0 && s.journaledKeys() == 0)
        && Arrays.stream(((RoutingClient<String>) client).topology().members).allMatch(m -> m.oldCopies().isEmpty());
  }

  /** Waits until every server is healthy and no copy is left to hand over (at most 20 s). */
  private static void awaitQuiet(AsyncCacheClient<String> client, List<Node> nodes) throws InterruptedException {
    long deadline = System.nanoTime() + 20_000_000_000L;
    while (System.nanoTime() < deadline) {
      if (quiet(client)) {
        Thread.sleep(1500); // the sweep's deletes and the handoffs they start
        if (client.nodeStatus().values().stream().allMatch(s -> s.copiesToRepair() == 0)) {
          return;
        }
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not quiet within 20 s: " + client.nodeStatus());
  }
}
