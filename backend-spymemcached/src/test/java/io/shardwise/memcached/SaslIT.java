package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.CachedValue;
import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.Secret;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RecordingLogs;
import io.shardwise.testing.ServerFleet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.event.Level;

/**
 * memcached started with SASL ({@code -S}, a sasldb made in the test): the right credentials
 * round-trip over the binary protocol; wrong ones fail every request at once with one {@link
 * NodeAuthenticationException} that names the node, logged once, retried slowly, never a node
 * failure; SASL with the text protocol fails at start-up; no secret reaches a log or a message.
 */
class SaslIT {

  private static final String USER = "app";
  private static final String PASSWORD = "Sasl-pass-6Hd";

  @RegisterExtension
  static final ServerFleet<MemcachedServer> sasl =
      ServerFleet.memcachedBuilder().sasl(USER, PASSWORD).build();

  @RegisterExtension static final ServerFleet<MemcachedServer> plain = ServerFleet.memcached(1);

  @TempDir Path dir;

  private final List<MemcachedBackend> backends = new ArrayList<>();

  @AfterEach
  void closeBackends() {
    backends.forEach(MemcachedBackend::close);
    backends.clear();
    RecordingLogs.captureDebug(false);
  }

  private static MemcachedOptions.Builder binary() {
    return MemcachedOptions.builder()
        .protocol(MemcachedProtocol.BINARY)
        .connectTimeout(Duration.ofSeconds(2));
  }

  private SpymemcachedNodeConnection connect(MemcachedOptions options, MemcachedServer server) {
    MemcachedBackend backend = MemcachedBackend.create(options);
    backends.add(backend);
    SpymemcachedNodeConnection connection =
        (SpymemcachedNodeConnection) backend.connect(Node.of(server.host(), server.port()));
    connection.ready().join(); // as the client's builder waits for the first attempt
    return connection;
  }

  private static CachedValue value(String text) {
    return CachedValue.of(text.getBytes(StandardCharsets.UTF_8), 7);
  }

  private static <T> T await(CompletableFuture<T> future) {
    return future.orTimeout(5, TimeUnit.SECONDS).join();
  }

  private static Throwable failure(CompletableFuture<?> future) {
    try {
      future.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("expected the request to fail, got " + e, e);
    }
    throw new AssertionError("expected the request to fail, but it succeeded");
  }

  private static String address(MemcachedServer server) {
    return server.host() + ":" + server.port();
  }

  @Test
  void rightCredentialsRoundTripEveryOperation() {
    NodeConnection c =
        connect(binary().sasl(USER, Secret.of(PASSWORD)).build(), sasl.server(0));
    await(c.set("k1", value("one"), Duration.ofMinutes(1)));
    CachedValue read = await(c.get("k1"));
    assertThat(new String(read.bytes(), StandardCharsets.UTF_8)).isEqualTo("one");
    assertThat(read.flags()).isEqualTo(7);
    assertThat(await(c.add("k1", value("again"), Duration.ZERO))).isFalse();
    assertThat(await(c.setMulti(Map.of("k2", value("two"), "k3", value("three")), Duration.ZERO)).failures())
        .isEmpty();
    assertThat(await(c.getMulti(List.of("k1", "k2", "k3", "absent"))).values()).hasSize(3);
    assertThat(await(c.incr("n", 5, 10, Duration.ZERO))).isEqualTo(10);
    assertThat(await(c.incr("n", 5, 10, Duration.ZERO))).isEqualTo(15);
    assertThat(await(c.touch("k1", Duration.ofMinutes(2)))).isTrue();
    assertThat(await(c.delete("k1"))).isTrue();
    assertThat(await(c.deleteMulti(List.of("k2", "k3"))).values()).containsValues(true, true);
    assertThat(await(c.ping())).isPositive();
    await(c.flushAll());
    assertThat(await(c.get("n"))).isNull();
  }

  @Test
  void passwordFromAFileReferenceRoundTrips() throws IOException {
    Path file = Files.writeString(dir.resolve("memcached-password"), PASSWORD + "\n");
    NodeConnection c =
        connect(
            binary().sasl(USER, Secret.resolve("file:" + file)).build(), sasl.server(0));
    await(c.set("from-file", value("ok"), Duration.ZERO));
    assertThat(await(c.get("from-file"))).isNotNull();
  }

  @Test
  void wrongPasswordFailsEveryRequestAtOnceIsLoggedOnceAndRetriedSlowly() {
    RecordingLogs.clear();
    MemcachedServer server = sasl.server(0);
    MemcachedBackend backend =
        MemcachedBackend.create(binary().sasl(USER, Secret.of("Wrong-1")).build());
    backends.add(backend);
    SpymemcachedNodeConnection c =
        (SpymemcachedNodeConnection) backend.connect(Node.of(server.host(), server.port()));
    c.ready().join();
    for (int i = 0; i < 30; i++) {
      long start = System.nanoTime();
      Throwable t = failure(c.get("k" + i));
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(100));
      assertThat(t)
          .isInstanceOf(NodeAuthenticationException.class)
          .hasMessageContaining(address(server))
          .hasMessageContaining(
              "get 'k" + i + "' failed: SASL authentication failed: the server refused user 'app'"
                  + " with the configured password")
          .hasMessageContaining("Auth failure");
      assertThat(backend.isNodeFailure(t)).isFalse();
      sleep(30);
    }
    assertThat(failure(c.ping())).isInstanceOf(NodeAuthenticationException.class);
    assertThat(failure(c.setMulti(Map.of("a", value("a")), Duration.ZERO)))
        .isInstanceOf(NodeAuthenticationException.class);
    // One attempt in about a second: the next waits 2 s, then 4 s, ... up to a minute.
    assertThat(c.saslAttempts()).isEqualTo(1);
    List<RecordingLogs.Event> warnings =
        RecordingLogs.events("").stream()
            .filter(e -> e.level().toInt() >= Level.WARN.toInt())
            .toList();
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0).level()).isEqualTo(Level.ERROR);
    assertThat(warnings.get(0).text())
        .contains("memcached " + address(server))
        .contains("refused user 'app'")
        .contains("NodeAuthenticationException");
  }

  @Test
  void refusedAuthenticationIsRetriedOnTheSameConnectionWithBackoff() {
    MemcachedServer server = sasl.server(0);
    SpymemcachedNodeConnection c =
        connect(binary().sasl("nobody", Secret.of(PASSWORD)).build(), server);
    assertThat(failure(c.get("k")))
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining("refused user 'nobody'");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
    while (c.saslAttempts() < 2 && System.nanoTime() < deadline) {
      sleep(50);
    }
    assertThat(c.saslAttempts()).isEqualTo(2);
    assertThat(failure(c.get("k"))).isInstanceOf(NodeAuthenticationException.class);
  }

  @Test
  void saslWithTheTextProtocolFailsAtStartUp() {
    assertThatThrownBy(
            () ->
                MemcachedOptions.builder()
                    .protocol(MemcachedProtocol.TEXT)
                    .sasl(USER, Secret.of(PASSWORD))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "SASL authentication needs the binary protocol, but the protocol is TEXT")
        .hasMessageNotContaining(PASSWORD);
    assertThatThrownBy(() -> MemcachedOptions.builder().sasl(USER, Secret.of(PASSWORD)).build())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void saslToAServerWithoutSaslIsAnAuthenticationError() {
    NodeConnection c = connect(binary().sasl(USER, Secret.of(PASSWORD)).build(), plain.server(0));
    assertThat(failure(c.get("k")))
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining("the server does not offer SASL");
  }

  @Test
  void noCredentialsForASaslServerIsAnAuthenticationError() {
    NodeConnection c = connect(binary().build(), sasl.server(0));
    assertThat(failure(c.get("k")))
        .isInstanceOf(NodeAuthenticationException.class)
        .hasMessageContaining("the server requires SASL authentication and none is configured");
  }

  @Test
  void noSecretAppearsInLogsMessagesOrDescriptions() throws IOException {
    RecordingLogs.clear();
    RecordingLogs.captureDebug(true);
    String wrong = "Leak-wrong-7";
    Path file = Files.writeString(dir.resolve("leak"), "Leak-file-8\n");
    List<String> texts = new ArrayList<>();
    List<MemcachedOptions> scenarios =
        List.of(
            binary().sasl(USER, Secret.of(wrong)).build(),
            binary().sasl(USER, Secret.resolve("file:" + file)).build(),
            binary().sasl(USER, Secret.of(PASSWORD)).build());
    for (MemcachedOptions options : scenarios) {
      MemcachedBackend backend = MemcachedBackend.create(options);
      backends.add(backend);
      NodeConnection c =
          backend.connect(Node.of(sasl.server(0).host(), sasl.server(0).port()));
      collect(texts, c.set("leak", value("v"), Duration.ZERO));
      collect(texts, c.get("leak"));
      texts.add(options.toString());
      texts.add(backend.toString());
      texts.add(c.toString());
    }
    try {
      MemcachedOptions.builder().sasl(USER, Secret.of(wrong)).build();
    } catch (IllegalStateException e) {
      texts.add(RecordingLogs.describe(e));
    }
    backends.forEach(MemcachedBackend::close);
    backends.clear();

    List<RecordingLogs.Event> logged = RecordingLogs.all();
    assertThat(logged).anyMatch(e -> e.level() == Level.DEBUG && e.logger().startsWith("net.spy"));
    assertThat(logged).anyMatch(e -> e.level() == Level.ERROR && e.text().contains("refused"));
    assertThat(texts).anyMatch(t -> t.contains("Auth failure"));
    for (String secret : List.of(wrong, "Leak-file-8", PASSWORD)) {
      assertThat(texts).noneMatch(t -> t.contains(secret));
      assertThat(logged).noneMatch(e -> e.text().contains(secret));
    }
  }

  private static void collect(List<String> texts, CompletableFuture<?> request) {
    try {
      request.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      texts.add(RecordingLogs.describe(e.getCause()));
      java.io.StringWriter trace = new java.io.StringWriter();
      e.getCause().printStackTrace(new java.io.PrintWriter(trace));
      texts.add(trace.toString());
    } catch (Exception e) {
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
