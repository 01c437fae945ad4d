package io.shardwise.it;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on a loopback port in front of one server, for the tests that need a network between
 * a client and its server:
 *
 * <ul>
 *   <li>a {@code connectDelay}: the relay accepts at once but connects to its server, and so passes
 *       any byte either way, only after a delay: a server that is slow to answer a new connection,
 *       like one a few network hops away;
 *   <li>{@link #stall()}: stops passing bytes either way (requests wait, unanswered, and time out,
 *       as behind a congested link or a half-dead switch port) while clients that do not go through
 *       the relay reach the server as usual, so that one client sees the server fail and others do
 *       not; {@link #resume()} passes on what waited.
 * </ul>
 */
public final class TcpRelay implements AutoCloseable {

  private final ServerSocket listener;
  private final String host;
  private final int port;
  private final Duration connectDelay;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private boolean stalled;
  private volatile boolean closed;

  /** A relay to {@code host:port} that passes bytes at once. */
  public TcpRelay(String host, int port) {
    this(host, port, Duration.ZERO);
  }

  /** A relay to {@code host:port} that connects to it {@code connectDelay} after accepting. */
  public TcpRelay(String host, int port, Duration connectDelay) {
    this.host = host;
    this.port = port;
    this.connectDelay = connectDelay;
    try {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    daemon("relay-accept", this::acceptLoop);
  }

  /** {@code 127.0.0.1:port} of the relay. */
  public String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  /** Stops passing bytes, either way, on every connection, until {@link #resume()}. */
  public void stall() {
    synchronized (gate) {
      stalled = true;
    }
  }

  public void resume() {
    synchronized (gate) {
      stalled = false;
      gate.notifyAll();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        sockets.add(client);
        daemon("relay-connect", () -> relay(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void relay(Socket client) {
    try {
      if (!connectDelay.isZero()) {
        Thread.sleep(connectDelay.toMillis());
      }
      Socket server = new Socket();
      sockets.add(server);
      client.setTcpNoDelay(true);
      server.setTcpNoDelay(true);
      server.connect(new InetSocketAddress(host, port), 5_000);
      daemon("relay-up", () -> pipe(client, server));
      pipe(server, client);
    } catch (IOException | InterruptedException e) {
      closeQuietly(client);
    }
  }

  private void pipe(Socket from, Socket to) {
    byte[] buffer = new byte[65_536];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        synchronized (gate) {
          while (stalled && !closed) {
            gate.wait();
          }
        }
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side closed
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void daemon(String name, Runnable task) {
    Thread thread = new Thread(task, name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  @Override
  public void close() {
    closed = true;
    resume();
    try {
      listener.close();
    } catch (IOException e) {
      // nothing to do
    }
    sockets.forEach(TcpRelay::closeQuietly);
  }
}
