package io.shardwise.memcached;

import static io.shardwise.memcached.Futures.await;
import static io.shardwise.memcached.Futures.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.spi.BatchReply;
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
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Servers that are down, die, hang or come back, and connections that are closed. */
class FailureIT {

  /** Well under the 1 s operation timeout: what "fails fast" means here. */
  private static final Duration FAST = Duration.ofMillis(100);

  /** A reconnect is due within the max reconnect delay (2 s); allow for scheduling. */
  private static final Duration RECOVERY = Duration.ofSeconds(6);

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(1);

  private MemcachedBackend backend;

  @BeforeEach
  void restore() {
    FLEET.restoreAll();
    FLEET.flushAll();
  }

  @AfterEach
  void closeBackend() {
    if (backend != null) {
      backend.close();
    }
    FLEET.restoreAll();
  }

  private MemcachedServer server() {
    return FLEET.server(0);
  }

  private NodeConnection connect(MemcachedProtocol protocol) {
    backend = MemcachedBackend.create(MemcachedOptions.builder().protocol(protocol).build());
    NodeConnection connection = backend.connect(Node.of(server().host(), server().port()));
    connection.ready().join(); // as the client's builder waits for the first attempt
    return connection;
  }

  private static CachedValue utf8(String s) {
    return CachedValue.of(s.getBytes(StandardCharsets.UTF_8), 0);
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void serverDownAtConnectFailsRequestsFastAndIsUsedOnceItStarts(MemcachedProtocol protocol) {
    server().kill();

    long start = System.nanoTime();
    NodeConnection connection = connect(protocol);
    assertThat(elapsedSince(start))
        .as("connect to a refusing port")
        .isLessThan(Duration.ofMillis(500));

    assertEveryRequestFailsFast(connection);

    server().restart();
    assertRecoversWithin(connection, RECOVERY);
    await(connection.set("after-start", utf8("v"), Duration.ZERO));
    assertThat(await(connection.get("after-start"))).isEqualTo(utf8("v"));
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void killedServerFailsRequestsFastAndTheConnectionRecoversAfterRestart(
      MemcachedProtocol protocol) {
    NodeConnection connection = connect(protocol);
    await(connection.set("k", utf8("before"), Duration.ZERO));

    server().kill();
    // The first request may be the one that finds out; after that every request fails fast.
    long deadline = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    while (!connection.get("k").handle((v, e) -> e != null).join()) {
      assertThat(System.nanoTime()).as("the kill is noticed within 2 s").isLessThan(deadline);
    }
    assertEveryRequestFailsFast(connection);

    server().restart();
    assertRecoversWithin(connection, RECOVERY);
    assertThat(await(connection.get("k"))).as("a restarted memcached is empty").isNull();
    await(connection.set("k", utf8("after"), Duration.ZERO));
    assertThat(await(connection.get("k"))).isEqualTo(utf8("after"));
  }

  @ParameterizedTest
  @EnumSource(MemcachedProtocol.class)
  void aPingOfADisconnectedNodeReconnectsAtOnceWhateverTheBackoff(MemcachedProtocol protocol) {
    NodeConnection connection = connect(protocol);
    server().kill();
    // Failed attempts push the background backoff to seconds (250 ms doubling, up to 30 s).
    for (int i = 0; i < 6; i++) {
      connection.ping().handle((rtt, e) -> e).join();
      sleep(20);
    }
    server().restart();

    long start = System.nanoTime();
    assertThat(await(connection.ping())).as("the first ping after the restart").isPositive();
    assertThat(elapsedSince(start)).isLessThan(Duration.ofMillis(500));
    await(connection.set("k", utf8("back"), Duration.ZERO));
    assertThat(await(connection.get("k"))).isEqualTo(utf8("back"));
  }

  @Test
  void closingOneConnectionLeavesTheOthersOfTheBackendServing() {
    NodeConnection first = connect(MemcachedProtocol.TEXT);
    NodeConnection second = backend.connect(Node.of(server().host(), server().port()));
    second.ready().join();
    await(first.set("k", utf8("v"), Duration.ZERO));

    long start = System.nanoTime();
    first.close();
    assertThat(elapsedSince(start)).isLessThan(Duration.ofMillis(100));

    assertThat(failure(first.get("k"))).hasMessageContaining("closed");
    for (int i = 0; i < 20; i++) {
      assertThat(await(second.get("k"))).isEqualTo(utf8("v"));
    }
  }

  @Test
  void hungServerCostsTheOperationTimeoutAndTheStreamStaysInStepAfterResume() {
    NodeConnection connection = connect(MemcachedProtocol.TEXT);
    await(connection.set("k", utf8("before"), Duration.ZERO));

    server().pause();
    long start = System.nanoTime();
    List<CompletableFuture<?>> requests = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      requests.add(connection.get("k"));
      requests.add(connection.set("k" + i, utf8("lost " + i), Duration.ZERO));
    }
    requests.add(connection.ping());
    for (CompletableFuture<?> request : requests) {
      Throwable failure = failure(request);
      assertThat(failure)
          .isInstanceOf(MemcachedTimeoutException.class)
          .hasMessageContaining("within 1000 ms");
      assertThat(backend.isNodeFailure(failure)).isTrue();
    }
    assertThat(elapsedSince(start)).isBetween(Duration.ofMillis(990), Duration.ofMillis(3000));

    server().resume();
    // Replies to the timed-out requests arrive now; they must not be taken for later replies.
    await(connection.set("k", utf8("after"), Duration.ZERO));
    for (int i = 0; i < 20; i++) {
      assertThat(await(connection.get("k"))).isEqualTo(utf8("after"));
    }
    assertThat(await(connection.incr("n", 1, 5, Duration.ZERO))).isEqualTo(5L);
  }

  /**
   * With the I/O thread held (here by a reply's callback, which runs on it), requests beyond the
   * 16,384 the connection's queue holds are refused at once, as not sent and not a node failure;
   * the queued ones are sent once the thread runs again.
   */
  @Test
  void requestsBeyondAFullQueueAreRefusedAsNotSentAndNotANodeFailure() throws Exception {
    // A long timeout: the 16,384 queued requests are sent only once the thread runs again.
    backend = MemcachedBackend.create(MemcachedOptions.builder().operationTimeout(Duration.ofSeconds(60)).build());
    NodeConnection connection = backend.connect(Node.of(server().host(), server().port()));
    connection.ready().join();
    await(connection.set("k", utf8("v"), Duration.ZERO));
    java.util.concurrent.CountDownLatch release = holdIoThread(connection);
    List<CompletableFuture<CachedValue>> requests = new ArrayList<>();
    try {
      for (int i = 0; i < 20_000; i++) {
        requests.add(connection.get("k"));
      }
    } finally {
      release.countDown();
    }
    int refused = 0;
    int answered = 0;
    for (CompletableFuture<CachedValue> request : requests) {
      if (request.isCompletedExceptionally() || !request.isDone()) {
        Throwable failure = failureOrNull(request);
        if (failure != null) {
          assertThat(failure)
              .isInstanceOf(MemcachedQueueFullException.class)
              .hasMessageContaining("not sent: the queue of requests for");
          assertThat(backend.isNodeFailure(failure)).isFalse();
          assertThat(backend.isClientQueueFull(failure)).isTrue();
          refused++;
          continue;
        }
      }
      assertThat(request.get(60, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(utf8("v"));
      answered++;
    }
    assertThat(refused).as("refused beyond the queue").isGreaterThanOrEqualTo(20_000 - 16_384);
    assertThat(answered).as("queued and answered").isGreaterThan(0);
    assertThat(await(connection.get("k"))).isEqualTo(utf8("v"));
  }

  /**
   * A batch with more keys than the connection's queue holds, sent while the I/O thread is held: the
   * keys beyond the queue are not sent, and the reply names each of them with its reason, beside the
   * keys whose request was answered. None is left out, or counted as done.
   */
  @Test
  void aBatchBeyondAFullQueueNamesEveryKeyItCouldNotSend() throws Exception {
    backend = MemcachedBackend.create(MemcachedOptions.builder().operationTimeout(Duration.ofSeconds(60)).build());
    NodeConnection connection = backend.connect(Node.of(server().host(), server().port()));
    connection.ready().join();
    List<String> keys = new ArrayList<>();
    Map<String, CachedValue> values = new java.util.LinkedHashMap<>();
    for (int i = 0; i < 20_000; i++) {
      keys.add("q" + i);
      values.put("q" + i, utf8("v" + i));
    }
    await(connection.set("k", utf8("v"), Duration.ZERO));

    java.util.concurrent.CountDownLatch release = holdIoThread(connection);
    CompletableFuture<BatchReply<Boolean>> stored;
    try {
      stored = connection.setMulti(values, Duration.ZERO);
    } finally {
      release.countDown();
    }
    BatchReply<Boolean> setReply = stored.get(60, java.util.concurrent.TimeUnit.SECONDS);
    assertNamesEveryKey(setReply, keys);
    for (String key : setReply.failures().keySet()) {
      assertThat(server().get(key)).as("not sent, not stored: %s", key).isNull();
    }
    storeInBatchesTheQueueHolds(connection, values);

    release = holdIoThread(connection);
    CompletableFuture<BatchReply<Boolean>> deleted;
    try {
      deleted = connection.deleteMulti(keys);
    } finally {
      release.countDown();
    }
    BatchReply<Boolean> deleteReply = deleted.get(60, java.util.concurrent.TimeUnit.SECONDS);
    assertNamesEveryKey(deleteReply, keys);
    int stillThere = 0;
    for (String key : keys) {
      if (deleteReply.confirmed(key)) {
        assertThat(server().get(key)).as("confirmed deleted: %s", key).isNull();
      } else if (server().get(key) != null) {
        stillThere++;
      }
    }
    assertThat(stillThere).as("keys stored but not deleted, each named in the reply").isPositive();
  }

  /**
   * Stores {@code values} 1,000 keys at a time, each batch confirmed before the next is sent. One
   * batch of 20,000 can overflow the queue of 16,384 without any hold when the I/O thread falls
   * behind the caller, as it does on a loaded machine.
   */
  private static void storeInBatchesTheQueueHolds(NodeConnection connection, Map<String, CachedValue> values) {
    Map<String, CachedValue> batch = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, CachedValue> entry : values.entrySet()) {
      batch.put(entry.getKey(), entry.getValue());
      if (batch.size() == 1_000) {
        assertThat(await(connection.setMulti(batch, Duration.ZERO)).failures()).as("all stored").isEmpty();
        batch.clear();
      }
    }
    if (!batch.isEmpty()) {
      assertThat(await(connection.setMulti(batch, Duration.ZERO)).failures()).as("all stored").isEmpty();
    }
  }

  /** Every key of {@code keys} confirmed or named as not sent; at least 20,000 - 16,384 not sent. */
  private void assertNamesEveryKey(BatchReply<Boolean> reply, List<String> keys) {
    int failed = 0;
    for (String key : keys) {
      if (reply.confirmed(key)) {
        continue;
      }
      Throwable failure = reply.failure(key);
      assertThat(failure).as("the reply says nothing of %s", key).isNotNull();
      assertThat(failure).isInstanceOf(MemcachedQueueFullException.class);
      assertThat(backend.isNodeFailure(failure)).isFalse();
      failed++;
    }
    assertThat(failed).as("keys not sent").isGreaterThanOrEqualTo(20_000 - 16_384);
    assertThat(keys.size() - failed).as("keys answered").isPositive();
  }

  /**
   * Holds the connection's I/O thread (in a reply's callback, which runs on it) until the latch
   * returned is counted down: requests queue up meanwhile, and those beyond the queue are refused.
   */
  private static java.util.concurrent.CountDownLatch holdIoThread(NodeConnection connection) throws InterruptedException {
    java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    while (held.getCount() > 0) {
      connection
          .get("k")
          .thenRun(
              () -> {
                if (Thread.currentThread().getName().equals("shardwise-memcached-io") && held.getCount() > 0) {
                  held.countDown();
                  try {
                    release.await(); // the I/O thread runs nothing else meanwhile
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                }
              });
      held.await(100, java.util.concurrent.TimeUnit.MILLISECONDS); // else the reply came first: again
    }
    return release;
  }

  private static Throwable failureOrNull(CompletableFuture<?> future) {
    try {
      future.get(60, java.util.concurrent.TimeUnit.SECONDS);
      return null;
    } catch (java.util.concurrent.ExecutionException e) {
      return e.getCause();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("no completion", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  @Test
  void closingAConnectionFailsItsPendingRequestsAndLaterOnes() {
    NodeConnection connection = connect(MemcachedProtocol.TEXT);
    server().pause();
    CompletableFuture<CachedValue> pending = connection.get("k");

    long start = System.nanoTime();
    connection.close();

    assertThat(failure(pending))
        .isInstanceOf(MemcachedUnavailableException.class)
        .hasMessageContaining("closed");
    assertThat(elapsedSince(start)).isLessThan(Duration.ofMillis(200));
    assertThat(failure(connection.get("k")))
        .isInstanceOf(MemcachedUnavailableException.class)
        .hasMessageContaining("closed");
    assertThat(failure(connection.setMulti(Map.of("a", utf8("a")), Duration.ZERO)))
        .hasMessageContaining("closed");
  }

  @Test
  void closingTheBackendClosesItsConnections() {
    NodeConnection first = connect(MemcachedProtocol.TEXT);
    NodeConnection second = backend.connect(Node.of(server().host(), server().port()));
    assertThat(await(first.ping())).isPositive();

    backend.close();

    assertThat(failure(first.get("k"))).hasMessageContaining("closed");
    assertThat(failure(second.get("k"))).hasMessageContaining("closed");
    assertThatThrownBy(() -> backend.connect(Node.of(server().host(), server().port())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void spymemcachedLogsThroughSlf4j() {
    connect(MemcachedProtocol.TEXT);

    assertThat(System.getProperty(MemcachedBackend.SPYMEMCACHED_LOGGER_PROPERTY))
        .isEqualTo(MemcachedBackend.SPYMEMCACHED_SLF4J_LOGGER);
    assertThat(net.spy.memcached.compat.log.LoggerFactory.getLogger(FailureIT.class))
        .isInstanceOf(net.spy.memcached.compat.log.SLF4JLogger.class);
  }

  /** Every kind of request fails at once with {@link MemcachedUnavailableException}, quietly. */
  private void assertEveryRequestFailsFast(NodeConnection connection) {
    List<Supplier<CompletableFuture<?>>> requests =
        List.of(
            () -> connection.get("k"),
            () -> connection.getMulti(List.of("k", "l")),
            () -> connection.set("k", utf8("v"), Duration.ZERO),
            () -> connection.setMulti(Map.of("k", utf8("v"), "l", utf8("w")), Duration.ZERO),
            () -> connection.add("k", utf8("v"), Duration.ZERO),
            () -> connection.delete("k"),
            () -> connection.deleteMulti(List.of("k", "l")),
            () -> connection.touch("k", Duration.ofSeconds(5)),
            () -> connection.incr("n", 1, 0, Duration.ZERO),
            connection::ping,
            connection::flushAll);
    RecordingLogs.clear();
    Duration slowest = Duration.ZERO;
    String slowestRequest = "";
    for (int round = 0; round < 20; round++) {
      for (int r = 0; r < requests.size(); r++) {
        Supplier<CompletableFuture<?>> request = requests.get(r);
        long start = System.nanoTime();
        Throwable failure = failure(request.get());
        Duration took = elapsedSince(start);
        if (took.compareTo(slowest) > 0) {
          slowest = took;
          slowestRequest = "request " + r + " of round " + round + ": " + failure;
        }
        assertThat(failure)
            .isInstanceOf(MemcachedUnavailableException.class)
            .isNotInstanceOf(MemcachedTimeoutException.class);
      }
    }
    assertThat(slowest)
        .as("slowest of %d failures (%s)", 20 * requests.size(), slowestRequest)
        .isLessThan(FAST);
    // Reconnection attempts may log (one warning every couple of seconds); requests must not.
    assertThat(RecordingLogs.events("net.spy"))
        .as("log lines for 220 failed requests")
        .hasSizeLessThan(5);
    assertThat(RecordingLogs.events("io.shardwise")).isEmpty();
  }

  private static void assertRecoversWithin(NodeConnection connection, Duration limit) {
    long start = System.nanoTime();
    while (connection.ping().handle((rtt, e) -> e != null).join()) {
      assertThat(elapsedSince(start)).as("time to recover").isLessThan(limit);
      sleep(20);
    }
  }

  private static Duration elapsedSince(long startNanos) {
    return Duration.ofNanos(System.nanoTime() - startNanos);
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
