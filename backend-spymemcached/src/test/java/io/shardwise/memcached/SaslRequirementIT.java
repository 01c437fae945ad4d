package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CachedValue;
import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RecordingLogs;
import io.shardwise.testing.ServerFleet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.slf4j.event.Level;

/**
 * A client without SASL credentials against memcached started with {@code -S}: every request fails
 * at once with a {@link NodeAuthenticationException} that names the node and says what is missing,
 * never a node failure, on both protocols; nothing is sent, so the server never drops the
 * connection and nothing is logged per request; the condition is logged once per change, and ends
 * when the server stops requiring SASL.
 */
class SaslRequirementIT {

  private static final String LOGGER = SpymemcachedNodeConnection.class.getName();

  @RegisterExtension
  static final ServerFleet<MemcachedServer> SASL =
      ServerFleet.memcachedBuilder().sasl("app", "Req-pass-1Kq").build();

  @RegisterExtension static final ServerFleet<MemcachedServer> PLAIN = ServerFleet.memcached(1);

  private final List<AutoCloseable> resources = new ArrayList<>();
  private MemcachedBackend backend;

  @BeforeEach
  void clearLogs() {
    SASL.restoreAll();
    RecordingLogs.clear();
  }

  @AfterEach
  void close() throws Exception {
    for (int i = resources.size() - 1; i >= 0; i--) {
      resources.get(i).close();
    }
    resources.clear();
  }

  private NodeConnection connect(MemcachedProtocol protocol, String host, int port) {
    backend =
        MemcachedBackend.create(
            MemcachedOptions.builder()
                .protocol(protocol)
                .connectTimeout(Duration.ofSeconds(2))
                .operationTimeout(Duration.ofMillis(500))
                .maxReconnectDelay(Duration.ofSeconds(1))
                .build());
    resources.add(backend);
    NodeConnection connection = backend.connect(Node.of(host, port));
    connection.ready().join(); // as the client's builder waits for the first attempt
    return connection;
  }

  private static CachedValue value(String text) {
    return CachedValue.of(text.getBytes(StandardCharsets.UTF_8), 0);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    try {
      future.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("expected the request to fail, got " + e, e);
    }
    throw new AssertionError("expected the request to fail, but it succeeded");
  }

  /** Every kind of request, each a function of a key. */
  private static List<Function<String, CompletableFuture<?>>> everyOperation(NodeConnection c) {
    return List.of(
        c::get,
        k -> c.getMulti(List.of(k, k + ":2")),
        k -> c.set(k, value("v"), Duration.ZERO),
        k -> c.setMulti(Map.of(k, value("v"), k + ":2", value("w")), Duration.ZERO),
        k -> c.add(k, value("v"), Duration.ZERO),
        c::delete,
        k -> c.deleteMulti(List.of(k, k + ":2")),
        k -> c.touch(k, Duration.ofMinutes(1)),
        k -> c.incr(k, 1, 0, Duration.ZERO),
        k -> c.incr(k, -1, 0, Duration.ZERO),
        k -> c.ping());
  }

  private void assertSaslRequired(Throwable t, String address) {
    assertThat(t)
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining(address)
        .hasMessageContaining("the server requires SASL authentication and none is configured");
    assertThat(backend.isNodeFailure(t)).isFalse();
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void everyRequestFailsAtOnceWithoutReachingTheServerAndIsLoggedOnce(MemcachedProtocol protocol) {
    MemcachedServer server = SASL.server(0);
    NodeConnection c = connect(protocol, server.host(), server.port());
    String address = server.host() + ":" + server.port();
    long start = System.nanoTime();
    assertThat(((SpymemcachedNodeConnection) c).saslProbes()).isEqualTo(1);

    int requests = 0;
    for (int round = 0; round < 20; round++) {
      for (Function<String, CompletableFuture<?>> operation : everyOperation(c)) {
        long sent = System.nanoTime();
        Throwable t = failure(operation.apply("k" + round));
        assertThat(Duration.ofNanos(System.nanoTime() - sent)).isLessThan(Duration.ofMillis(100));
        assertSaslRequired(t, address);
        requests++;
      }
    }
    // Many at once, from several threads.
    List<CompletableFuture<?>> burst = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 4; t++) {
      int thread = t;
      threads.add(
          new Thread(
              () -> {
                for (int i = 0; i < 250; i++) {
                  CompletableFuture<?> f = c.get("burst:" + thread + ":" + i);
                  synchronized (burst) {
                    burst.add(f);
                  }
                }
              }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      join(thread);
    }
    for (CompletableFuture<?> f : burst) {
      assertSaslRequired(failure(f), address);
      requests++;
    }

    assertThat(requests).isEqualTo(20 * 11 + 1000);
    // Probed again at most every 2 s while requests are refused, not per request.
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(((SpymemcachedNodeConnection) c).saslProbes())
        .isBetween(1, 2 + (int) (elapsedMillis / SaslRequirement.REPROBE_INTERVAL_MILLIS));
    assertThat(failure(c.get("after")).getMessage())
        .contains(
            protocol == MemcachedProtocol.TEXT
                ? "memcached with -S speaks only the binary protocol"
                : "configure sasl(username, password)")
        .contains("'Auth failure.'");
    // One line for the whole condition, none per request, none from spymemcached (nothing was
    // sent, so no connection was dropped and reopened).
    List<RecordingLogs.Event> warnings = RecordingLogs.events("", Level.WARN);
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).level()).isEqualTo(Level.ERROR);
    assertThat(warnings.get(0).logger()).isEqualTo(LOGGER);
    assertThat(warnings.get(0).text())
        .contains("memcached " + address)
        .contains("the server requires SASL authentication and none is configured")
        .contains("NodeAuthenticationException")
        .contains("not ejected");
  }

  @Test
  void aSaslServerThatIsDownIsUnavailableAndRequiresSaslAgainWhenBack() {
    MemcachedServer server = SASL.server(0);
    NodeConnection c = connect(MemcachedProtocol.BINARY, server.host(), server.port());
    String address = server.host() + ":" + server.port();
    assertSaslRequired(failure(c.get("k")), address);

    server.kill();
    Throwable down = awaitFailure(c, t -> !(t instanceof NodeAuthenticationException));
    assertThat(down).isInstanceOf(MemcachedUnavailableException.class);
    assertThat(backend.isNodeFailure(down)).isTrue();

    server.restore();
    assertSaslRequired(
        awaitFailure(c, t -> t instanceof NodeAuthenticationException), address);
    assertThat(RecordingLogs.events(LOGGER, Level.WARN)).hasSize(1);
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void aServerThatStopsRequiringSaslIsUsedAgainAndEachChangeIsLoggedOnce(
      MemcachedProtocol protocol) throws Exception {
    SwitchingProxy proxy = new SwitchingProxy(SASL.server(0).socketAddress());
    resources.add(proxy);
    NodeConnection c = connect(protocol, proxy.host(), proxy.port());
    String address = proxy.host() + ":" + proxy.port();
    for (int i = 0; i < 10; i++) {
      assertSaslRequired(failure(c.get("k" + i)), address);
    }

    proxy.switchTo(PLAIN.server(0).socketAddress());
    awaitSuccess(() -> c.set("switched", value("plain"), Duration.ZERO));
    assertThat(Futures.await(c.get("switched"))).isEqualTo(value("plain"));

    proxy.switchTo(SASL.server(0).socketAddress());
    assertSaslRequired(
        awaitFailure(c, t -> t instanceof NodeAuthenticationException), address);
    for (int i = 0; i < 10; i++) {
      assertSaslRequired(failure(c.get("k" + i)), address);
    }

    List<RecordingLogs.Event> ours = RecordingLogs.events(LOGGER, Level.WARN);
    assertThat(ours)
        .extracting(RecordingLogs.Event::level)
        .containsExactly(Level.ERROR, Level.WARN, Level.ERROR);
    assertThat(ours.get(1).text())
        .contains("memcached " + address + ": the server no longer requires SASL");
  }

  @Test
  void whenTheProbeCannotTellARefusedRequestAndTheRequestsBehindItStillFailAsAuthentication()
      throws Exception {
    SwitchingProxy proxy = new SwitchingProxy(SASL.server(0).socketAddress());
    proxy.dropProbes(true);
    resources.add(proxy);
    NodeConnection c = connect(MemcachedProtocol.BINARY, proxy.host(), proxy.port());
    String address = proxy.host() + ":" + proxy.port();

    for (int round = 0; round < 3; round++) {
      // The server closes the connection after a refused request and spymemcached reconnects: a
      // round sent before it has (a loaded machine: more than 1.5 s) fails as not connected and is
      // sent again. Once a request is refused, every one behind it fails as authentication.
      int refused = 0;
      for (int attempt = 0; refused == 0; attempt++) {
        assertThat(attempt).as("rounds sent before the connection was back").isLessThan(30);
        List<CompletableFuture<?>> pipelined = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          pipelined.add(c.get("p" + round + ":" + i));
        }
        for (CompletableFuture<?> f : pipelined) {
          Throwable t = failure(f);
          if (refused == 0 && t instanceof MemcachedUnavailableException) {
            continue; // sent before the connection was made
          }
          assertSaslRequired(t, address);
          refused++;
        }
        sleep(refused == 0 ? 500 : 1500);
      }
    }
    assertThat(proxy.droppedProbes()).isGreaterThanOrEqualTo(2);
    assertThat(RecordingLogs.events(LOGGER, Level.WARN)).hasSize(1);
  }

  private static Throwable awaitFailure(NodeConnection c, Predicate<Throwable> wanted) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      CompletableFuture<?> f = c.get("probe");
      Throwable t;
      try {
        f.get(10, TimeUnit.SECONDS);
        t = null;
      } catch (ExecutionException e) {
        t = e.getCause();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      if (t != null && wanted.test(t)) {
        return t;
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionError("no such failure within 15 s; last: " + t, t);
      }
      sleep(50);
    }
  }

  private static void awaitSuccess(Supplier<CompletableFuture<?>> request) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      try {
        request.get().get(10, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException e) {
        if (System.nanoTime() > deadline) {
          throw new AssertionError("no success within 15 s", e.getCause());
        }
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      sleep(50);
    }
  }

  private static void join(Thread thread) {
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
