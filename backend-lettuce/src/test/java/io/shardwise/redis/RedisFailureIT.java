package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Servers that are down, killed or hung. */
class RedisFailureIT {

  /** Far below the command timeout: the request never waited for a reply. */
  private static final Duration FAST = Duration.ofMillis(100);

  @RegisterExtension static final ServerFleet<RedisServer> fleet = ServerFleet.redis(1);

  private RedisServer server;
  private Node node;
  private RedisBackend backend;

  @BeforeEach
  void serverUp() {
    fleet.restoreAll();
    fleet.flushAll();
    server = fleet.server(0);
    node = Node.of(server.host(), server.port());
  }

  @AfterEach
  void closeBackend() {
    if (backend != null) {
      backend.close();
    }
    fleet.restoreAll();
  }

  private static CachedValue value(String text) {
    return CachedValue.of(text.getBytes(StandardCharsets.UTF_8), 0);
  }

  /** The failure of {@code future}, with how long it took from {@code startNanos}. */
  private static Failure failure(CompletableFuture<?> future, long startNanos) {
    try {
      future.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return new Failure(e.getCause(), Duration.ofNanos(System.nanoTime() - startNanos));
    } catch (Exception e) {
      throw new AssertionError("expected the request to fail, got " + e, e);
    }
    throw new AssertionError("expected the request to fail, but it succeeded");
  }

  private record Failure(Throwable cause, Duration after) {}

  /** Live threads, but those whose name starts with {@code prefix}. */
  private static long threadsBut(String prefix) {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && !t.getName().startsWith(prefix))
        .count();
  }

  private static boolean answers(NodeConnection connection) {
    try {
      connection.ping().get(1, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  @Test
  void serverDownAtConnectFailsRequestsFastUntilItStarts() {
    server.kill();
    backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .reconnectDelay(Duration.ofMillis(50), Duration.ofMillis(500))
                .build());

    long start = System.nanoTime();
    NodeConnection connection = backend.connect(node);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(FAST);

    start = System.nanoTime();
    Failure f = failure(connection.get("k"), start);
    assertThat(f.after()).isLessThan(FAST);
    assertThat(f.cause())
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageStartingWith("redis " + node.address() + ": GET failed: not connected yet");
    assertThat(failure(connection.getMulti(List.of("a", "b")), System.nanoTime()).cause())
        .isInstanceOf(RedisUnavailableException.class);
    assertThat(
            failure(connection.setMulti(Map.of("a", value("1")), Duration.ZERO), System.nanoTime())
                .cause())
        .isInstanceOf(RedisUnavailableException.class);

    server.restart();
    Await.until(() -> answers(connection), Duration.ofSeconds(5));
    connection.set("k", value("v"), Duration.ZERO).join();
    assertThat(connection.get("k").join()).isEqualTo(value("v"));
  }

  @Test
  void killedServerFailsRequestsFastAndIsBackAfterRestartOnTheSamePort() throws Exception {
    ClientResources resources =
        DefaultClientResources.builder()
            .reconnectDelay(
                RedisBackend.reconnectDelay(
                    RedisBackendOptions.DEFAULT_RECONNECT_DELAY_MIN,
                    RedisBackendOptions.DEFAULT_RECONNECT_DELAY_MAX))
            .build();
    try {
      backend =
          RedisBackend.create(RedisBackendOptions.builder().clientResources(resources).build());
      NodeConnection connection = backend.connect(node);
      Await.connected(connection);
      connection.set("k", value("v"), Duration.ZERO).join();

      int attemptsBefore = ((RedisNodeConnection) connection).attempts();
      server.kill();
      long killed = System.nanoTime();
      Await.until(() -> !((RedisNodeConnection) connection).isConnected(), Duration.ofSeconds(2));

      long start = System.nanoTime();
      Failure f = failure(connection.get("k"), start);
      assertThat(f.after()).isLessThan(FAST);
      assertThat(f.cause())
          .isInstanceOf(RedisUnavailableException.class)
          .hasMessageContaining("GET failed: not connected; reconnecting in the background");
      assertThat(failure(connection.incr("n", 1, 0, Duration.ZERO), System.nanoTime()).after())
          .isLessThan(FAST);

      // Backing off (100 ms doubling, the delay of the given resources) rather than spinning:
      // about 5 attempts in 3 s.
      Thread.sleep(Math.max(0, 3000 - (System.nanoTime() - killed) / 1_000_000));
      assertThat(((RedisNodeConnection) connection).attempts() - attemptsBefore).isBetween(2, 8);

      server.restart();
      Await.until(() -> answers(connection), Duration.ofSeconds(5));
      // Not persistent: the restarted server is empty, and says so.
      assertThat(connection.get("k").join()).isNull();
      connection.set("k", value("again"), Duration.ZERO).join();
      assertThat(connection.get("k").join()).isEqualTo(value("again"));
    } finally {
      backend.close();
      backend = null;
      resources.shutdown(0, 2, TimeUnit.SECONDS).get();
    }
  }

  @Test
  void pingWhileDownMakesAtMostOneAttemptPerHundredMillisecondsWhateverTheCallers()
      throws Exception {
    // Background attempts 5 to 10 s apart: the attempts counted below are those of ping().
    backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .reconnectDelay(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .build());
    RedisNodeConnection connection = (RedisNodeConnection) backend.connect(node);
    Await.connected(connection);
    server.kill();
    Await.until(() -> !connection.isConnected(), Duration.ofSeconds(2));
    long threadsBefore = threadsBut("pinger-");
    int attemptsBefore = connection.attempts();

    // 8 threads pinging in a loop for 1 s, each ping failing (refused) before the next is sent.
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    AtomicLong slowestNanos = new AtomicLong();
    AtomicInteger names = new AtomicInteger();
    ExecutorService callers =
        Executors.newFixedThreadPool(8, r -> new Thread(r, "pinger-" + names.incrementAndGet()));
    List<Future<Integer>> pingsPerCaller = new ArrayList<>();
    try {
      for (int t = 0; t < 8; t++) {
        pingsPerCaller.add(
            callers.submit(
                () -> {
                  int pings = 0;
                  while (System.nanoTime() < end) {
                    Failure f = failure(connection.ping(), System.nanoTime());
                    assertThat(f.cause()).isInstanceOf(RedisUnavailableException.class);
                    slowestNanos.accumulateAndGet(f.after().toNanos(), Math::max);
                    pings++;
                  }
                  return pings;
                }));
      }
      int pings = 0;
      for (Future<Integer> p : pingsPerCaller) {
        pings += p.get(10, TimeUnit.SECONDS);
      }
      int attempts = connection.attempts() - attemptsBefore;
      Duration slowest = Duration.ofNanos(slowestNanos.get());
      System.out.printf(
          "[ping while down] %d pings from 8 threads in 1 s: %d connection attempts, slowest"
              + " ping %d ms, %d more threads%n",
          pings, attempts, slowest.toMillis(), threadsBut("pinger-") - threadsBefore);
      // About one attempt per 100 ms: pings bring attempts forward, but not one per ping.
      assertThat(attempts).isBetween(5, 12);
      assertThat(pings).isGreaterThan(4 * attempts);
      // A ping waits at most for the 100 ms spacing and a refused attempt.
      assertThat(slowest).isLessThan(Duration.ofMillis(500));
    } finally {
      callers.shutdownNow();
    }
    // No thread per attempt or per waiting ping: at most Lettuce's pools fill up, which start
    // their threads lazily.
    assertThat(threadsBut("pinger-") - threadsBefore)
        .isLessThanOrEqualTo(
            DefaultClientResources.DEFAULT_IO_THREADS
                + DefaultClientResources.DEFAULT_COMPUTATION_THREADS);

    server.restart();
    // Back at the first ping, though the next background attempt is seconds away.
    long sent = System.nanoTime();
    assertThat(connection.ping().get(2, TimeUnit.SECONDS)).isPositive();
    assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(Duration.ofMillis(500));
    assertThat(connection.isConnected()).isTrue();
  }

  @Test
  void runIdStaysTheSameUntilTheServerRestarts() throws Exception {
    backend = RedisBackend.create();
    RedisNodeConnection connection = (RedisNodeConnection) backend.connect(node);
    Await.connected(connection);

    String before = connection.runId().get(2, TimeUnit.SECONDS);
    assertThat(before).matches("[0-9a-f]{40}").isEqualTo(server.info("server").get("run_id"));
    assertThat(connection.runId().get(2, TimeUnit.SECONDS)).isEqualTo(before);

    server.kill();
    Await.until(() -> !connection.isConnected(), Duration.ofSeconds(2));
    Failure down = failure(connection.runId(), System.nanoTime());
    assertThat(down.after()).isLessThan(FAST);
    assertThat(down.cause())
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("INFO failed: not connected");
    assertThat(backend.isNodeFailure(down.cause())).isTrue();

    server.restart();
    Await.until(() -> answers(connection), Duration.ofSeconds(5));
    String after = connection.runId().get(2, TimeUnit.SECONDS);
    assertThat(after)
        .matches("[0-9a-f]{40}")
        .isNotEqualTo(before)
        .isEqualTo(server.info("server").get("run_id"));
  }

  @Test
  void pausedServerFailsARequestAfterAboutTheCommandTimeout() {
    backend = RedisBackend.create();
    NodeConnection connection = backend.connect(node);
    Await.connected(connection);
    connection.set("k", value("before"), Duration.ZERO).join();

    server.pause();
    long start = System.nanoTime();
    CompletableFuture<CachedValue> get = connection.get("k");
    CompletableFuture<BatchReply<CachedValue>> mget = connection.getMulti(List.of("k", "j"));
    Failure f = failure(get, start);

    // The 1 s default timeout, fired by the backend's timer (10 ms ticks).
    assertThat(f.after()).isBetween(Duration.ofMillis(990), Duration.ofMillis(1500));
    assertThat(f.cause())
        .isInstanceOf(RedisTimeoutException.class)
        .hasMessage("redis " + node.address() + ": no reply to GET within 1000 ms");
    assertThat(failure(mget, start).cause()).isInstanceOf(RedisTimeoutException.class);

    server.resume();
    // The late replies to the timed-out requests must not be taken for later ones.
    connection.set("j", value("after"), Duration.ZERO).join();
    assertThat(connection.get("j").join()).isEqualTo(value("after"));
    assertThat(connection.get("k").join()).isEqualTo(value("before"));
  }

  @Test
  void pausedServerAtConnectFailsRequestsAsTimeoutsOfItsAttemptsUntilItResumes() {
    server.pause();
    backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .connectTimeout(Duration.ofMillis(300))
                .reconnectDelay(Duration.ofMillis(50), Duration.ofMillis(300))
                .build());
    NodeConnection connection = backend.connect(node);

    // Before the first connection a request waits for the attempt under way, whose handshake
    // times out after the connect timeout: a timeout, soft evidence, and the error says so.
    Failure f = failure(connection.get("k"), System.nanoTime());
    assertThat(f.cause())
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("not connected yet")
        // Lettuce's timeout, or the close of the channel at the timeout if that was reported first
        .hasMessageMatching(
            "(?s).*last: .*(timed out after 300 millisecond|past the connect timeout of 300 ms).*");
    assertThat(backend.isTimeout(f.cause())).isTrue();
    assertThat(backend.isNodeFailure(f.cause())).isTrue();

    server.resume();
    Await.until(() -> answers(connection), Duration.ofSeconds(5));
  }

  @Test
  void aRequestBeforeTheFirstConnectionWaitsForTheNextAttemptWhenTheLastRanOutItsTimeout()
      throws Exception {
    server.pause();
    // Background attempts 60 to 120 s apart: only the request can bring the next one forward.
    // ready() waits for the TLS-mismatch probe of the first attempt, whose first TLS set-up in
    // this JVM can take seconds of a loaded machine.
    backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .connectTimeout(Duration.ofMillis(300))
                .reconnectDelay(Duration.ofSeconds(60), Duration.ofSeconds(120))
                .build());
    RedisNodeConnection connection = (RedisNodeConnection) backend.connect(node);
    connection.ready().get(30, TimeUnit.SECONDS);
    assertThat(connection.attempts()).isEqualTo(1);
    assertThat(connection.isConnected()).isFalse();

    // The server answers again, but this client has not connected to it yet: as for a client
    // that was stopped during its first attempt. The request is answered, not failed at once.
    server.resume();
    assertThat(connection.get("k").get(30, TimeUnit.SECONDS)).isNull();
    assertThat(connection.attempts()).isEqualTo(2);
  }

  @Test
  void aRefusedFirstAttemptStillFailsRequestsAtOnce() throws Exception {
    server.kill();
    backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .reconnectDelay(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .build());
    RedisNodeConnection connection = (RedisNodeConnection) backend.connect(node);
    connection.ready().get(5, TimeUnit.SECONDS);

    Failure f = failure(connection.get("k"), System.nanoTime());
    assertThat(f.after()).isLessThan(FAST);
    assertThat(f.cause()).hasMessageContaining("not connected yet");
    assertThat(backend.isTimeout(f.cause())).isFalse();
    assertThat(connection.attempts()).isEqualTo(1);
  }

  @Test
  void closingAConnectionFailsItsPendingRequests() {
    backend = RedisBackend.create();
    NodeConnection connection = backend.connect(node);
    Await.connected(connection);

    server.pause();
    long start = System.nanoTime();
    CompletableFuture<CachedValue> pending = connection.get("k");
    connection.close();

    Failure f = failure(pending, start);
    assertThat(f.after()).isLessThan(Duration.ofMillis(200));
    assertThat(f.cause()).isInstanceOf(RedisUnavailableException.class);
    assertThat(failure(connection.get("k"), System.nanoTime()).cause())
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("the connection is closed");
    Await.until(() -> backend.openConnections().isEmpty(), Duration.ofSeconds(2));
  }

  @Test
  void closedBackendStopsConnectingAndRefusesNewConnections() {
    server.kill();
    backend = RedisBackend.create();
    NodeConnection connection = backend.connect(node);
    assertThat(backend.openConnections()).hasSize(1);

    long start = System.nanoTime();
    backend.close();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));

    assertThat(backend.openConnections()).isEmpty();
    assertThat(failure(connection.get("k"), System.nanoTime()).cause())
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> backend.connect(node))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void errorRepliesAreNotMistakenForNodeFailures() {
    backend = RedisBackend.create();
    NodeConnection connection = backend.connect(node);
    Await.connected(connection);
    server.command("RPUSH", "list", "x");
    assertThatThrownBy(() -> connection.get("list").join())
        .isInstanceOf(CompletionException.class)
        .satisfies(e -> assertThat(RedisFailures.isNodeFailure(e.getCause())).isFalse());
  }
}
