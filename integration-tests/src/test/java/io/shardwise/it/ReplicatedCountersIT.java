package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeState;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Counters on two replicas, 5 real memcached and 5 real Redis servers (persistent: an append-only
 * file, fsync always), defaults but {@code replicas=2} and a 250 ms timeout: 8 threads increment 200
 * counters while one server is stopped (SIGSTOP) for 3 s, or killed and restarted. Once every server
 * serves again and the counts are handed back, each counter holds at least its confirmed
 * increments. The {@code COUNTERS} lines are the figures of docs/replicas.md.
 */
@Timeout(300)
class ReplicatedCountersIT {

  private static final int COUNTERS = 200;
  private static final int THREADS = 8;

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(5);

  @RegisterExtension
  static final ServerFleet<RedisServer> REDIS = ServerFleet.redisBuilder().servers(5).persistent().build();

  /** An outage of one server: what it does, and what it is called in the figures. */
  record Outage(String name, Consumer<ServerHandle> run) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<org.junit.jupiter.params.provider.Arguments> outages() {
    Outage stop = new Outage("SIGSTOP 3 s", s -> {
      s.pause();
      sleep(3000);
      s.resume();
    });
    Outage restart = new Outage("kill -9, restart after 1 s", s -> {
      s.kill();
      sleep(1000);
      s.restart();
    });
    return Stream.of(
        org.junit.jupiter.params.provider.Arguments.of(CacheFleet.memcached(MEMCACHED), stop),
        org.junit.jupiter.params.provider.Arguments.of(CacheFleet.redis(REDIS), stop),
        org.junit.jupiter.params.provider.Arguments.of(CacheFleet.redis(REDIS), restart),
        org.junit.jupiter.params.provider.Arguments.of(CacheFleet.memcached(MEMCACHED), restart));
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("outages")
  void confirmedIncrementsSurviveAnOutageOfOneServer(CacheFleet fleet, Outage outage) throws Exception {
    fleet.reset();
    try (AsyncCacheClient<String> client =
        CacheFleet.ready(
            ShardwiseClient.builder()
                .backend(fleet.newBackend())
                .servers(fleet.serverList(fleet.size()))
                .timeout(Duration.ofMillis(250))
                .codec(Codecs.utf8())
                .replicas(2)
                .build())) {
      CacheClient<String> sync = client.sync();
      AtomicLongArray confirmed = new AtomicLongArray(COUNTERS);
      AtomicLongArray attempted = new AtomicLongArray(COUNTERS);
      AtomicBoolean running = new AtomicBoolean(true);
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < THREADS; t++) {
        int thread = t;
        Thread w = new Thread(() -> {
          SplittableRandom random = new SplittableRandom(thread);
          while (running.get()) {
            int i = random.nextInt(COUNTERS);
            attempted.incrementAndGet(i);
            try {
              sync.incr("cnt:" + i, 1, 1, Duration.ZERO); // created with 1: the first increment
              confirmed.incrementAndGet(i);
            } catch (RuntimeException e) {
              // not confirmed: it may have counted or not
            }
          }
        });
        threads.add(w);
        w.start();
      }
      Thread.sleep(1000);
      outage.run().accept(fleet.server(2));
      awaitQuiet(client);
      Thread.sleep(1000); // counting on every replica again
      running.set(false);
      for (Thread w : threads) {
        w.join();
      }
      awaitQuiet(client);
      long confirmedAll = 0;
      long attemptedAll = 0;
      long counted = 0;
      long lost = 0;
      int disagree = 0;
      List<String> examples = new ArrayList<>();
      for (int i = 0; i < COUNTERS; i++) {
        String key = "cnt:" + i;
        List<Long> copies = new ArrayList<>();
        for (io.shardwise.routing.Node n : replicasOf(client, key)) {
          byte[] raw = fleet.rawGetAll(fleet.indexOf(n), List.of(key)).get(key);
          if (raw != null) {
            copies.add(Long.parseLong(new String(raw, java.nio.charset.StandardCharsets.US_ASCII).trim()));
          }
        }
        long value = copies.stream().mapToLong(Long::longValue).min().orElse(0);
        if (copies.stream().distinct().count() > 1) {
          disagree++;
        }
        confirmedAll += confirmed.get(i);
        attemptedAll += attempted.get(i);
        counted += value;
        if (value < confirmed.get(i)) {
          lost += confirmed.get(i) - value;
          if (examples.size() < 5) {
            examples.add(key + ": " + copies + " held, " + confirmed.get(i) + " confirmed");
          }
        }
      }
      System.out.printf(
          "COUNTERS %s, %s: %d counters, 8 threads: %d increments attempted, %d confirmed, %d counted; %d lost; replicas disagree on %d%n",
          fleet, outage, COUNTERS, attemptedAll, confirmedAll, counted, lost, disagree);
      assertThat(confirmedAll).as("increments confirmed").isGreaterThan(1000);
      assertThat(lost).as("confirmed increments lost, e.g. %s", examples).isZero();
      assertThat(disagree).as("counters whose replicas disagree").isZero();
    } finally {
      fleet.reset();
    }
  }

  private static List<io.shardwise.routing.Node> replicasOf(AsyncCacheClient<String> client, String key) {
    io.shardwise.routing.Router router = io.shardwise.core.RouterSpec.DEFAULT.build(client.nodes());
    int[] out = new int[2];
    int count = router.replicas(router.hasher().hash(key), 2, out);
    List<io.shardwise.routing.Node> nodes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      nodes.add(client.nodes().get(out[i]));
    }
    return nodes;
  }

  /** Until every server is healthy and nothing is left to hand over (at most 60 s). */
  private static void awaitQuiet(AsyncCacheClient<String> client) throws InterruptedException {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (client.nodeStates().containsValue(NodeState.EJECTED)
        || client.nodeStates().containsValue(NodeState.PROBING)
        || client.nodeStatus().values().stream().anyMatch(s -> s.copiesToRepair() > 0)) {
      assertThat(System.nanoTime()).as("every server back and its counts handed over within 60 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
