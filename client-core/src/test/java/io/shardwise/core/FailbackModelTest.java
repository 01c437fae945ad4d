package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The failback protocol under concurrency: 8 threads read and write versioned values while nodes
 * are stopped and continued (their queued requests applied late, as with SIGSTOP), killed and
 * restarted with their old data, over and over, and 2% of all requests are lost unapplied. No read may return a value older than one
 * confirmed written (or deleted) before the read started. The same run with {@link
 * RejoinPolicy#KEEP} must find old values: the check can fail.
 */
class FailbackModelTest {

  private static final int KEYS = 2000;
  private static final int THREADS = 8;
  private static final long RUN_NANOS = 3_000_000_000L;

  /** The outcome of one run. */
  record Outcome(long reads, long hits, long writes, long stale, long wrong, long ejections, List<String> examples) {}

  /** Seeds 1, 2, 3; {@code -Dfailback.model.seeds=N} runs seeds 1..N. */
  static java.util.stream.LongStream seeds() {
    return java.util.stream.LongStream.rangeClosed(1, Long.getLong("failback.model.seeds", 3));
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void noReadReturnsAnOlderValueThanOneConfirmedUnderFlappingNodes(long seed) throws Exception {
    Outcome outcome = run(seed, RejoinPolicy.JOURNAL);
    assertThat(outcome.ejections()).as("the chaos ejected nodes").isGreaterThan(5);
    assertThat(outcome.hits()).as("reads found values").isGreaterThan(1000);
    assertThat(outcome.wrong()).as("values of other keys").isZero();
    assertThat(outcome.stale()).as("old values read; examples: %s", outcome.examples()).isZero();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1})
  void theFlushPolicyReadsNoOldValueEither(long seed) throws Exception {
    Outcome outcome = run(seed, RejoinPolicy.FLUSH);
    assertThat(outcome.ejections()).isGreaterThan(5);
    assertThat(outcome.stale()).as("old values read; examples: %s", outcome.examples()).isZero();
  }

  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1})
  void theSameRunFindsOldValuesWhenTheReturningNodeKeepsItsData(long seed) throws Exception {
    Outcome outcome = run(seed, RejoinPolicy.KEEP);
    assertThat(outcome.stale()).as("the checker sees the failback hazard").isPositive();
  }

  private Outcome run(long seed, RejoinPolicy policy) throws Exception {
    SimulatedFleet fleet = new SimulatedFleet();
    AtomicLong ejections = new AtomicLong();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(fleet)
            .servers("a:1,b:2,c:3,d:4,e:5")
            .timeout(Duration.ofMillis(40))
            .failover(
                FailoverOptions.builder()
                    .rejoinPolicy(policy)
                    .failureThreshold(3)
                    .maxEjectedPercent(100)
                    .probeInterval(Duration.ofMillis(5))
                    .maxProbeInterval(Duration.ofMillis(30))
                    .probeTimeout(Duration.ofMillis(100))
                    .build())
            .listener(e -> {
              if (e.isEjection()) {
                ejections.incrementAndGet();
              }
            })
            .codec(Codecs.utf8())
            .build();
    CacheClient<String> sync = client.sync();
    for (Node n : client.nodes()) {
      fleet.node(n).lossRate = 0.02; // some deletes of old copies fail and must be retried
    }
    AtomicLongArray confirmed = new AtomicLongArray(KEYS);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong reads = new AtomicLong();
    AtomicLong hits = new AtomicLong();
    AtomicLong writes = new AtomicLong();
    ConcurrentLinkedQueue<String> stale = new ConcurrentLinkedQueue<>();
    ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      threads.add(new Thread(() -> {
        SplittableRandom random = new SplittableRandom(seed * 1000 + thread);
        long[] next = new long[KEYS];
        while (running.get()) {
          int op = random.nextInt(100);
          try {
            if (op < 45) {
              int i = random.nextInt(KEYS);
              long min = confirmed.get(i);
              String value = sync.get(key(i));
              reads.incrementAndGet();
              check(i, value, min, stale, wrong, hits);
            } else if (op < 50) {
              int[] idx = new int[8];
              long[] min = new long[8];
              List<String> keys = new ArrayList<>();
              for (int k = 0; k < 8; k++) {
                idx[k] = random.nextInt(KEYS);
                min[k] = confirmed.get(idx[k]);
                keys.add(key(idx[k]));
              }
              MultiResult<String> result = sync.getMulti(keys);
              for (int k = 0; k < 8; k++) {
                reads.incrementAndGet();
                check(idx[k], result.values().get(key(idx[k])), min[k], stale, wrong, hits);
              }
            } else if (op < 90) {
              int i = owned(random, thread);
              long version = ++next[i];
              sync.set(key(i), key(i) + "|" + version, Duration.ZERO);
              confirmed.accumulateAndGet(i, version, Math::max);
              writes.incrementAndGet();
            } else if (op < 95) {
              int i = owned(random, thread);
              long version = ++next[i];
              sync.delete(key(i));
              confirmed.accumulateAndGet(i, version, Math::max);
              writes.incrementAndGet();
            } else {
              Map<String, String> batch = new LinkedHashMap<>();
              long[] versions = new long[4];
              int[] idx = new int[4];
              for (int k = 0; k < 4; k++) {
                idx[k] = owned(random, thread);
                versions[k] = ++next[idx[k]];
                batch.put(key(idx[k]), key(idx[k]) + "|" + versions[k]);
              }
              MultiResult<Boolean> result = sync.setMulti(batch, Duration.ZERO);
              for (int k = 0; k < 4; k++) {
                if (result.values().containsKey(key(idx[k]))) {
                  confirmed.accumulateAndGet(idx[k], versions[k], Math::max);
                }
              }
              writes.incrementAndGet();
            }
          } catch (RuntimeException expected) {
            // node failures while nodes flap: the write's version stays unconfirmed
          }
        }
      }, "model-" + t));
    }
    // Two chaos threads: a node's fallback may be failing too while it returns.
    List<Thread> chaos = List.of(
        new Thread(() -> chaos(fleet, client.nodes(), seed, running), "chaos-1"),
        new Thread(() -> chaos(fleet, client.nodes(), seed * 31 + 7, running), "chaos-2"));
    threads.forEach(Thread::start);
    chaos.forEach(Thread::start);
    Thread.sleep(RUN_NANOS / 1_000_000);
    running.set(false);
    for (Thread t : threads) {
      t.join(5000);
    }
    for (Thread t : chaos) {
      t.join(5000);
    }
    client.close();
    Outcome outcome =
        new Outcome(
            reads.get(), hits.get(), writes.get(), stale.size(), wrong.size(), ejections.get(),
            stale.stream().limit(5).toList());
    System.out.printf(
        "[failback model] policy %s seed %d: %d reads (%d hits), %d writes, %d ejections, %d old, %d wrong%n",
        policy.id(), seed, outcome.reads(), outcome.hits(), outcome.writes(), outcome.ejections(),
        outcome.stale(), outcome.wrong());
    return outcome;
  }

  /** Stops, continues, kills and restarts random nodes, one or two at a time. */
  private static void chaos(SimulatedFleet fleet, List<Node> nodes, long seed, AtomicBoolean running) {
    SplittableRandom random = new SplittableRandom(seed);
    try {
      Thread.sleep(100);
      while (running.get()) {
        SimulatedFleet.SimNode victim = fleet.node(nodes.get(random.nextInt(nodes.size())));
        int action = random.nextInt(3);
        if (action == 0) {
          victim.pause();
          Thread.sleep(20 + random.nextInt(150));
          victim.resume();
        } else if (action == 1) {
          victim.pause();
          Thread.sleep(5 + random.nextInt(60)); // shorter than the detection, or about as long
          victim.resume();
        } else {
          victim.kill();
          Thread.sleep(20 + random.nextInt(150));
          victim.restart(true); // with its old data, as a persistent Redis, or the worst case
        }
        Thread.sleep(random.nextInt(80));
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (Node n : nodes) {
        fleet.node(n).resume();
      }
    }
  }

  private static void check(
      int i, String value, long min, ConcurrentLinkedQueue<String> stale, ConcurrentLinkedQueue<String> wrong, AtomicLong hits) {
    if (value == null) {
      return;
    }
    hits.incrementAndGet();
    int bar = value.lastIndexOf('|');
    if (bar < 0 || !value.substring(0, bar).equals(key(i))) {
      wrong.add(key(i) + " read " + value);
      return;
    }
    long version = Long.parseLong(value.substring(bar + 1));
    if (version < min) {
      stale.add(key(i) + " read version " + version + " after version " + min + " was confirmed");
    }
  }

  private static int owned(SplittableRandom random, int thread) {
    return thread + THREADS * random.nextInt(KEYS / THREADS);
  }

  private static String key(int i) {
    return "m:" + i;
  }
}
