package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.event.connection.ReconnectAttemptEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;

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
    AtomicInteger reconnectAttempts = new AtomicInteger();
    Disposable counting =
        resources
            .eventBus()
            .get()
            .filter(ReconnectAttemptEvent.class::isInstance)
            .subscribe(event -> reconnectAttempts.incrementAndGet());
    try {
      backend =
          RedisBackend.create(RedisBackendOptions.builder().clientResources(resources).build());
      NodeConnection connection = backend.connect(node);
      Await.connected(connection);
      connection.set("k", value("v"), Duration.ZERO).join();

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

      // Backing off (100 ms doubling) rather than spinning: about 5 attempts in 3 s.
      Thread.sleep(Math.max(0, 3000 - (System.nanoTime() - killed) / 1_000_000));
      assertThat(reconnectAttempts.get()).isBetween(2, 8);

      server.restart();
      Await.until(() -> answers(connection), Duration.ofSeconds(5));
      // Not persistent: the restarted server is empty, and says so.
      assertThat(connection.get("k").join()).isNull();
      connection.set("k", value("again"), Duration.ZERO).join();
      assertThat(connection.get("k").join()).isEqualTo(value("again"));
    } finally {
      counting.dispose();
      backend.close();
      backend = null;
      resources.shutdown(0, 2, TimeUnit.SECONDS).get();
    }
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
    CompletableFuture<Map<String, CachedValue>> mget = connection.getMulti(List.of("k", "j"));
    Failure f = failure(get, start);

    // The 1 s default timeout, fired by Lettuce's 100 ms-tick timer.
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
  void pausedServerAtConnectFailsRequestsFastUntilItResumes() {
    server.pause();
    backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .connectTimeout(Duration.ofMillis(300))
                .reconnectDelay(Duration.ofMillis(50), Duration.ofMillis(300))
                .build());
    NodeConnection connection = backend.connect(node);

    long start = System.nanoTime();
    Failure f = failure(connection.get("k"), start);
    assertThat(f.after()).isLessThan(FAST);
    assertThat(f.cause()).hasMessageContaining("not connected yet");
    // The handshake of an attempt times out after the connect timeout, and the error says so.
    Await.until(
        () ->
            failure(connection.get("k"), System.nanoTime())
                .cause()
                .getMessage()
                .contains("last: Connection initialization timed out after 300 millisecond(s)"),
        Duration.ofSeconds(2));

    server.resume();
    Await.until(() -> answers(connection), Duration.ofSeconds(5));
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
