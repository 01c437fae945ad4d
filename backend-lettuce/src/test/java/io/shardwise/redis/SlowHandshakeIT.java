package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.shardwise.client.CachedValue;
import io.shardwise.routing.Node;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Attempts that run out their time while the server answers, as those of a client starved of CPU
 * while it connects: a proxy in front of a real Redis holds back the server's replies on Lettuce's
 * connections (those that open with a RESP array), never on a plain {@code PING} of a socket of
 * its own. Lettuce's first connection gets no reply at all; the later ones get their replies 1.5
 * connect timeouts late, which an attempt with the connect timeout misses and one with twice it
 * does not.
 */
class SlowHandshakeIT {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(1);

  @RegisterExtension static final ServerFleet<RedisServer> fleet = ServerFleet.redis(1);

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  /** A proxy in front of the fleet's server, closed after the test. */
  private HoldingProxy proxy(Duration connectTimeout) throws IOException {
    HoldingProxy proxy = new HoldingProxy(fleet.server(0).port(), connectTimeout);
    closing.add(proxy);
    return proxy;
  }

  /**
   * A backend with {@code connectTimeout}, closed after the test, whose background attempts come 60
   * to 120 s apart: only the check of the server brings the next one forward.
   */
  private RedisBackend backend(Duration connectTimeout) {
    RedisBackend backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .connectTimeout(connectTimeout)
                .reconnectDelay(Duration.ofSeconds(60), Duration.ofSeconds(120))
                .build());
    closing.add(0, backend);
    return backend;
  }

  @Test
  void aRequestWaitsForALongerAttemptAfterOneThatRanOutItsTimeWhileTheServerAnswered()
      throws Exception {
    HoldingProxy proxy = proxy(CONNECT_TIMEOUT);
    RedisNodeConnection connection =
        (RedisNodeConnection) backend(CONNECT_TIMEOUT).connect(Node.of("127.0.0.1", proxy.port()));
    connection.ready().get(30, TimeUnit.SECONDS);

    // The first attempt ran out its time; the request is answered, not failed as not connected.
    assertThat(connection.get("k").get(30, TimeUnit.SECONDS)).isNull();
    assertThat(connection.attempts()).isEqualTo(2);
    assertThat(proxy.plainConnections.get()).isPositive();
  }

  /**
   * The check that the server answers may end before the attempt that ran out is cleared (its
   * thread descheduled in between, as under load): here the check runs on the thread that ends the
   * attempt, so its verdict always comes first. A request sent while that attempt was under way is
   * answered by the longer attempt the verdict brings forward, not left waiting for the background
   * one 60 s later.
   */
  @Test
  void aVerdictThatComesBeforeTheAttemptIsClearedStillBringsTheLongerAttemptForward()
      throws Exception {
    // A longer connect timeout: the request must be sent while the first attempt is under way.
    Duration connectTimeout = Duration.ofSeconds(3);
    HoldingProxy proxy = proxy(connectTimeout);
    RedisBackend backend = backend(connectTimeout);
    RedisClient client = RedisClient.create(backend.resources());
    client.setOptions(ClientOptions.builder().autoReconnect(false).build());
    closing.add(0, client::shutdown);
    Node node = Node.of("127.0.0.1", proxy.port());
    RedisNodeConnection connection =
        new RedisNodeConnection(
            node,
            client,
            RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(proxy.port())
                .withTimeout(connectTimeout)
                .build(),
            Duration.ofSeconds(5),
            backend.resources().reconnectDelay(),
            backend.resources().eventExecutorGroup(),
            new RedisSecurityDiagnosis(node, null, null, connectTimeout),
            Runnable::run,
            null);
    closing.add(0, connection);
    connection.start();

    // Sent while the first attempt is under way (it gets no reply for a whole connect timeout).
    CompletableFuture<CachedValue> reply = connection.get("k");
    assumeFalse(
        connection.ready().isDone(), "the request came after the first attempt had ended");

    assertThat(reply.get(30, TimeUnit.SECONDS)).isNull();
    assertThat(connection.attempts()).isEqualTo(2);
  }

  @Test
  void aRequestStillFailsAfterOneAttemptWhenTheServerDoesNotAnswer() throws Exception {
    HoldingProxy proxy = proxy(CONNECT_TIMEOUT);
    proxy.holdPlain = true;
    RedisNodeConnection connection =
        (RedisNodeConnection) backend(CONNECT_TIMEOUT).connect(Node.of("127.0.0.1", proxy.port()));
    connection.ready().get(30, TimeUnit.SECONDS);

    try {
      connection.get("k").get(30, TimeUnit.SECONDS);
      throw new AssertionError("expected the request to fail");
    } catch (java.util.concurrent.ExecutionException e) {
      assertThat(e.getCause())
          .isInstanceOf(RedisUnavailableException.class)
          .hasMessageContaining("not connected yet");
    }
    // The attempt under way when the request came, or the one it brought forward: no longer ones.
    assertThat(connection.attempts()).isLessThanOrEqualTo(2);
  }

  /**
   * Forwards to a server; holds back every reply on Lettuce's first connection, and those of the
   * later ones for 1.5 connect timeouts; a plain {@code PING} is answered at once unless {@link
   * #holdPlain}.
   */
  static final class HoldingProxy implements AutoCloseable {
    final AtomicInteger lettuceConnections = new AtomicInteger();
    final AtomicInteger plainConnections = new AtomicInteger();
    volatile boolean holdPlain;
    private final ServerSocket listener;
    private final int serverPort;
    private final long holdMillis;
    private final List<Socket> sockets = new ArrayList<>();

    HoldingProxy(int serverPort, Duration connectTimeout) throws IOException {
      this.serverPort = serverPort;
      this.holdMillis = connectTimeout.toMillis() * 3 / 2;
      this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread accept = new Thread(this::accept, "holding-proxy");
      accept.setDaemon(true);
      accept.start();
    }

    int port() {
      return listener.getLocalPort();
    }

    private void accept() {
      while (!listener.isClosed()) {
        try {
          Socket client = listener.accept();
          Socket upstream = new Socket(InetAddress.getLoopbackAddress(), serverPort);
          synchronized (sockets) {
            sockets.add(client);
            sockets.add(upstream);
          }
          Thread t = new Thread(() -> serve(client, upstream), "holding-proxy-conn");
          t.setDaemon(true);
          t.start();
        } catch (IOException e) {
          return;
        }
      }
    }

    private void serve(Socket client, Socket upstream) {
      try {
        InputStream in = client.getInputStream();
        int first = in.read();
        if (first < 0) {
          return;
        }
        long hold;
        if (first == '*') {
          int n = lettuceConnections.incrementAndGet();
          hold = n == 1 ? Long.MAX_VALUE : holdMillis;
        } else {
          plainConnections.incrementAndGet();
          hold = holdPlain ? Long.MAX_VALUE : 0;
        }
        upstream.getOutputStream().write(first);
        Thread up = new Thread(() -> pump(in, upstream), "holding-proxy-up");
        up.setDaemon(true);
        up.start();
        if (hold == Long.MAX_VALUE) {
          return; // never a reply: closed with the proxy or by the client
        }
        Thread.sleep(hold);
        pump(upstream.getInputStream(), client);
      } catch (IOException | InterruptedException e) {
        // a side closed
      }
    }

    private static void pump(InputStream from, Socket to) {
      byte[] buffer = new byte[8192];
      try {
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = from.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // a side closed
      }
    }

    @Override
    public void close() throws IOException {
      listener.close();
      synchronized (sockets) {
        for (Socket s : sockets) {
          s.close();
        }
      }
    }
  }
}
