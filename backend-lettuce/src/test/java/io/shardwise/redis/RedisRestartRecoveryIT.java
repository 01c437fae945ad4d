package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.RecordingLogs;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.event.Level;

/**
 * How soon a killed and restarted Redis answers {@code ping()} again, probed the way the routing
 * client probes an ejected node: first after 200 ms, doubling after each failed probe, 20% jitter,
 * each probe bounded by 1 s. Three connections of one backend (default options) watch the same
 * server: one probed up to every 5 s (longer than the client's default of 2 s), one probed up to
 * every 1 s, one never probed (what the background reconnection alone does). Times are measured
 * from the moment the restarted server accepts TCP connections again. Prints one table row per
 * outage.
 */
class RedisRestartRecoveryIT {

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
  private static final Duration FIRST_PROBE = Duration.ofMillis(200);

  @RegisterExtension static final ServerFleet<RedisServer> fleet = ServerFleet.redis(1);

  private RedisBackend backend;
  private ScheduledExecutorService scheduler;

  @BeforeEach
  void start() {
    fleet.restoreAll();
    scheduler = Executors.newScheduledThreadPool(2);
  }

  @AfterEach
  void stop() {
    scheduler.shutdownNow();
    if (backend != null) {
      backend.close();
    }
    fleet.restoreAll();
  }

  /** Outages of 1 and 5 s; {@code -Dreadmission.long=true} adds 30 s (what the docs report). */
  static IntStream outages() {
    return Boolean.getBoolean("readmission.long") ? IntStream.of(1, 5, 30) : IntStream.of(1, 5);
  }

  @ParameterizedTest(name = "outage of {0} s")
  @MethodSource("outages")
  void aProbeSentOnceTheServerIsBackSucceeds(int outageSeconds) throws Exception {
    RedisServer server = fleet.server(0);
    Node node = Node.of(server.host(), server.port());
    backend = RedisBackend.create();
    RedisNodeConnection clientSchedule = (RedisNodeConnection) backend.connect(node);
    RedisNodeConnection fastSchedule = (RedisNodeConnection) backend.connect(node);
    RedisNodeConnection unprobed = (RedisNodeConnection) backend.connect(node);
    for (RedisNodeConnection c : List.of(clientSchedule, fastSchedule, unprobed)) {
      Await.connected(c);
      // The backend reads the server's proto-max-bulk-len on a short-lived connection of its own:
      // done before the kill, so that only the three connections above see the outage.
      backend.limitsRead(c).get(5, TimeUnit.SECONDS);
    }

    RecordingLogs.clear();
    long killedAt = System.nanoTime();
    server.kill();
    for (RedisNodeConnection c : List.of(clientSchedule, fastSchedule, unprobed)) {
      Await.until(() -> !c.isConnected(), Duration.ofSeconds(2));
    }
    Prober slow = new Prober(clientSchedule, Duration.ofSeconds(5));
    Prober fast = new Prober(fastSchedule, Duration.ofSeconds(1));
    slow.start();
    fast.start();

    long left = killedAt + TimeUnit.SECONDS.toNanos(outageSeconds) - System.nanoTime();
    TimeUnit.NANOSECONDS.sleep(Math.max(0, left));
    // Lines logged while the server was down, before it came back.
    int linesWhileDown =
        RecordingLogs.events("io.shardwise", Level.INFO).size()
            + RecordingLogs.events("io.lettuce", Level.INFO).size();
    CompletableFuture<Long> accepting =
        CompletableFuture.supplyAsync(() -> server.awaitAccepting(Duration.ofSeconds(30)));
    server.restart();
    long acceptedAt = accepting.get(5, TimeUnit.SECONDS);

    long reconnectedAt = 0;
    long deadline = acceptedAt + TimeUnit.SECONDS.toNanos(15);
    while (System.nanoTime() < deadline
        && (reconnectedAt == 0 || !slow.succeeded.isDone() || !fast.succeeded.isDone())) {
      if (reconnectedAt == 0 && unprobed.isConnected()) {
        reconnectedAt = System.nanoTime();
      }
      Thread.sleep(5);
    }
    slow.stop();
    fast.stop();

    System.out.printf(
        "[restart recovery] | outage %2d s | probed up to every 5 s: first ok ping %s after"
            + " the restart (first probe after it sent at %s, %s) | probed up to every 1 s: %s"
            + " (%s) | not probed: reconnected after %s | %d log lines at INFO+ while down"
            + " (3 connections) |%n",
        outageSeconds,
        ms(slow.firstSuccessAfter(acceptedAt)),
        ms(slow.firstSentAfter(acceptedAt)),
        slow.firstAfter(acceptedAt),
        ms(fast.firstSuccessAfter(acceptedAt)),
        fast.firstAfter(acceptedAt),
        ms(reconnectedAt == 0 ? NEVER : reconnectedAt - acceptedAt),
        linesWhileDown);

    // Every probe sent once the server accepts connections again succeeds, whatever the outage:
    // readmission takes at most one probe interval.
    assertThat(slow.succeeded).as("a probe succeeded, 5 s schedule").isDone();
    assertThat(fast.succeeded).as("a probe succeeded, 1 s schedule").isDone();
    assertThat(slow.firstAfter(acceptedAt))
        .as("probes sent after the restart, 5 s schedule")
        .isEqualTo("ok");
    assertThat(fast.firstAfter(acceptedAt))
        .as("probes sent after the restart, 1 s schedule")
        .isEqualTo("ok");
    // Probed at least every second near the end: back within 1.5 s (a 1 s gap, with margin). The
    // watcher sees the server accepting up to one of its polls (a 1 ms sleep and a connect) after
    // it does, so a probe sent just before can succeed a little before acceptedAt (a CI run: 0.5 ms).
    assertThat(fast.firstSuccessAfter(acceptedAt))
        .as("ns from the restart to the first ok ping, 1 s schedule")
        .isBetween(-TimeUnit.MILLISECONDS.toNanos(50), TimeUnit.MILLISECONDS.toNanos(1500));
    // Unprobed, the background reconnection waits at most the longest reconnect delay (10 s).
    assertThat(reconnectedAt).as("reconnected without probes").isPositive();
    assertThat(reconnectedAt - acceptedAt).isLessThan(TimeUnit.SECONDS.toNanos(11));
    // Quiet while down: no line per connection attempt. Each connection reports the loss once.
    assertThat(linesWhileDown).as("log lines while down").isLessThanOrEqualTo(3);
  }


  /** A time that never came (no probe, no success). */
  private static final long NEVER = Long.MIN_VALUE;

  private static String ms(long nanos) {
    return nanos == NEVER ? "never" : TimeUnit.NANOSECONDS.toMillis(nanos) + " ms";
  }

  /** One probe: when it was sent and finished, and how it ended. */
  private record Probe(long sentNanos, long doneNanos, Throwable failure) {}

  /** Pings on the routing client's schedule until a ping succeeds. */
  private final class Prober {
    private final NodeConnection connection;
    private final long maxDelayNanos;
    private final List<Probe> probes = new ArrayList<>();
    final CompletableFuture<Void> succeeded = new CompletableFuture<>();
    private long delayNanos = FIRST_PROBE.toNanos();
    private volatile boolean stopped;

    Prober(NodeConnection connection, Duration maxDelay) {
      this.connection = connection;
      this.maxDelayNanos = maxDelay.toNanos();
    }

    void start() {
      scheduleNext();
    }

    void stop() {
      stopped = true;
    }

    private void scheduleNext() {
      if (stopped) {
        return;
      }
      long delay = delayNanos;
      delayNanos = Math.min(maxDelayNanos, delayNanos * 2);
      long jittered = delay - ThreadLocalRandom.current().nextLong(delay / 5 + 1);
      scheduler.schedule(this::probe, jittered, TimeUnit.NANOSECONDS);
    }

    private void probe() {
      long sent = System.nanoTime();
      connection
          .ping()
          .orTimeout(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
          .whenComplete(
              (rtt, failure) -> {
                synchronized (probes) {
                  probes.add(new Probe(sent, System.nanoTime(), failure));
                }
                if (failure == null) {
                  succeeded.complete(null);
                } else {
                  scheduleNext();
                }
              });
    }

    private Probe firstProbeSentAfter(long nanos) {
      synchronized (probes) {
        return probes.stream().filter(p -> p.sentNanos() >= nanos).findFirst().orElse(null);
      }
    }

    /**
     * "ok" if no probe sent at or after {@code nanos} failed (one sent before may have succeeded
     * first), else how the first such probe failed.
     */
    String firstAfter(long nanos) {
      synchronized (probes) {
        return probes.stream()
            .filter(p -> p.sentNanos() >= nanos && p.failure() != null)
            .findFirst()
            .map(p -> "failed: " + p.failure())
            .orElse("ok");
      }
    }

    long firstSentAfter(long nanos) {
      Probe p = firstProbeSentAfter(nanos);
      return p == null ? NEVER : p.sentNanos() - nanos;
    }

    long firstSuccessAfter(long nanos) {
      synchronized (probes) {
        return probes.stream()
            .filter(p -> p.failure() == null)
            .mapToLong(p -> p.doneNanos() - nanos)
            .findFirst()
            .orElse(NEVER);
      }
    }
  }
}
