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
 * A TCP relay on a loopback port that accepts at once but connects to its server, and so passes any
 * byte either way, only after a delay: a server that is slow to answer a new connection, like one a
 * few network hops away. Used to make the first moments of a new client deterministic.
 */
final class SlowStartProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final String host;
  private final int port;
  private final Duration delay;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  SlowStartProxy(String host, int port, Duration delay) {
    this.host = host;
    this.port = port;
    this.delay = delay;
    try {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    daemon("slow-start-accept", this::acceptLoop);
  }

  /** {@code 127.0.0.1:port} of the relay. */
  String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        sockets.add(client);
        daemon("slow-start-relay", () -> relay(client));
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void relay(Socket client) {
    try {
      Thread.sleep(delay.toMillis());
      Socket server = new Socket();
      sockets.add(server);
      server.connect(new InetSocketAddress(host, port), 5_000);
      daemon("slow-start-up", () -> pipe(client, server));
      pipe(server, client);
    } catch (IOException | InterruptedException e) {
      closeQuietly(client);
    }
  }

  private static void pipe(Socket from, Socket to) {
    byte[] buffer = new byte[65_536];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (IOException e) {
      // one side closed
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
    try {
      listener.close();
    } catch (IOException e) {
      // nothing to do
    }
    sockets.forEach(SlowStartProxy::closeQuietly);
  }
}
