package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A connection attempt that may hide a TLS mismatch (without TLS: the server dropped the
 * connection during the handshake) is probed for one, and the probe blocks a thread for up to the
 * connect timeout. The probe must delay neither the node's next attempt nor any other node's
 * probe. Against loopback servers that drop every plaintext connection at once and hold every TLS
 * hello until the test lets go, so that each node's first probe stays under way for as long as the
 * test looks.
 */
class ConnectDiagnosisTest {

  /** Long enough that no probe ends by itself while the test looks. */
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

  private final List<DroppingServer> servers = new ArrayList<>();
  private RedisBackend backend;

  @AfterEach
  void close() {
    servers.forEach(DroppingServer::close);
    if (backend != null) {
      backend.close();
    }
  }

  @Test
  void aProbeOfAPossibleTlsMismatchDelaysNeitherTheNextAttemptNorAnotherNodesProbe() throws Exception {
    backend =
        RedisBackend.create(
            RedisBackendOptions.builder()
                .connectTimeout(CONNECT_TIMEOUT)
                .reconnectDelay(Duration.ofMillis(20), Duration.ofMillis(100))
                .build());
    List<RedisNodeConnection> connections = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      DroppingServer server = new DroppingServer();
      servers.add(server);
      connections.add((RedisNodeConnection) backend.connect(Node.of("127.0.0.1", server.port())));
    }

    // Every node's first probe is held at once, and each node goes on attempting meanwhile: with
    // one probe thread, or attempts that waited for their probe, neither would happen.
    Await.until(
        () -> servers.stream().allMatch(s -> s.heldHellos() >= 1 && s.plaintextConnections() >= 3),
        Duration.ofSeconds(30));
    assertThat(servers).allSatisfy(s -> assertThat(s.heldHellos()).as("probes of one node at once").isEqualTo(1));
    // The probes keep ready() open: build() waits for their verdict.
    assertThat(connections).allSatisfy(c -> assertThat(c.ready()).isNotDone());

    servers.forEach(DroppingServer::releaseHellos);
    for (NodeConnection c : connections) {
      c.ready().get(30, TimeUnit.SECONDS);
      // No certificate came back: no TLS mismatch, the node is down.
      assertThat(Await.failureOf(c.get("k")))
          .isInstanceOf(RedisUnavailableException.class)
          .hasMessageContaining("not connected yet");
    }
  }

  /**
   * Accepts every connection: a plaintext one (Lettuce's attempt) is closed at once, a TLS hello
   * (the diagnosis probe) is held without an answer until {@link #releaseHellos()}.
   */
  static final class DroppingServer implements AutoCloseable {
    private final ServerSocket socket;
    private final AtomicInteger plaintext = new AtomicInteger();
    private final List<Socket> held = new CopyOnWriteArrayList<>();
    private volatile boolean releasing;

    DroppingServer() throws IOException {
      socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread acceptor = new Thread(this::accept, "dropping-server-" + socket.getLocalPort());
      acceptor.setDaemon(true);
      acceptor.start();
    }

    int port() {
      return socket.getLocalPort();
    }

    int plaintextConnections() {
      return plaintext.get();
    }

    int heldHellos() {
      return (int) held.stream().filter(s -> !s.isClosed()).count();
    }

    void releaseHellos() {
      releasing = true;
      held.forEach(DroppingServer::closeQuietly);
    }

    private void accept() {
      while (!socket.isClosed()) {
        Socket client;
        try {
          client = socket.accept();
        } catch (IOException e) {
          return;
        }
        Thread reader = new Thread(() -> serve(client), "dropping-server-client");
        reader.setDaemon(true);
        reader.start();
      }
    }

    private void serve(Socket client) {
      try {
        InputStream in = client.getInputStream();
        int first = in.read();
        if (first == 0x16 && !releasing) { // a TLS handshake record
          held.add(client);
          if (releasing) {
            closeQuietly(client);
          }
          return;
        }
        plaintext.incrementAndGet();
      } catch (IOException e) {
        // closed
      }
      closeQuietly(client);
    }

    private static void closeQuietly(Socket s) {
      try {
        s.close();
      } catch (IOException e) {
        // closing anyway
      }
    }

    @Override
    public void close() {
      releaseHellos();
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }
}
