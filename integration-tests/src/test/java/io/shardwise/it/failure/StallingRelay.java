package io.shardwise.it.failure;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on a loopback port in front of one server, for one client: {@link #stall()} stops
 * passing bytes either way (the client's requests wait, unanswered, and time out, as behind a
 * congested link or a half-dead switch port) while every other client reaches the server as
 * usual; {@link #resume()} passes on what waited. So one client sees the server fail while the
 * others do not: different health views of one node.
 */
final class StallingRelay implements AutoCloseable {

  private final ServerSocket listener;
  private final String host;
  private final int port;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private boolean stalled;
  private volatile boolean closed;

  StallingRelay(String host, int port) {
    this.host = host;
    this.port = port;
    try {
      listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    daemon("relay-accept", this::acceptLoop);
  }

  /** {@code 127.0.0.1:port} of the relay. */
  String address() {
    return "127.0.0.1:" + listener.getLocalPort();
  }

  void stall() {
    synchronized (gate) {
      stalled = true;
    }
  }

  void resume() {
    synchronized (gate) {
      stalled = false;
      gate.notifyAll();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        client.setTcpNoDelay(true);
        Socket server = new Socket();
        server.setTcpNoDelay(true);
        server.connect(new InetSocketAddress(host, port), 5_000);
        sockets.add(client);
        sockets.add(server);
        daemon("relay-up", () -> pipe(client, server));
        daemon("relay-down", () -> pipe(server, client));
      } catch (IOException e) {
        if (closed) {
          return;
        }
      }
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
    sockets.forEach(StallingRelay::closeQuietly);
  }
}
