package io.shardwise.memcached;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a loopback port in front of one of several servers: {@link #switchTo} sends new
 * connections to another server and closes the current ones, as a server restarted with other
 * options would. With {@link #dropProbes} it closes, without an answer, every connection whose
 * first request is a binary {@code NOOP} (what the SASL probe of a connection without SASL sends),
 * so that the probe cannot tell.
 */
final class SwitchingProxy implements AutoCloseable {

  private final ServerSocket listener;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final AtomicInteger droppedProbes = new AtomicInteger();
  private volatile InetSocketAddress target;
  private volatile boolean dropProbes;
  private volatile boolean closed;

  SwitchingProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "switching-proxy-" + port());
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  String host() {
    return listener.getInetAddress().getHostAddress();
  }

  /** New connections go to {@code newTarget}; the current ones are closed. */
  void switchTo(InetSocketAddress newTarget) {
    target = newTarget;
    closeAll();
  }

  void dropProbes(boolean on) {
    dropProbes = on;
  }

  /** Connections closed because their first request was a binary NOOP. */
  int droppedProbes() {
    return droppedProbes.get();
  }

  private void accept() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        open.add(client);
        Thread pump = new Thread(() -> serve(client), "switching-proxy-connection");
        pump.setDaemon(true);
        pump.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(Socket client) {
    try {
      InputStream in = client.getInputStream();
      byte[] first = in.readNBytes(2);
      if (first.length < 2) {
        close(client);
        return;
      }
      if (dropProbes && (first[0] & 0xff) == 0x80 && first[1] == 0x0a) {
        droppedProbes.incrementAndGet();
        close(client);
        return;
      }
      Socket server = new Socket();
      open.add(server);
      server.connect(target, 2_000);
      server.setTcpNoDelay(true);
      client.setTcpNoDelay(true);
      server.getOutputStream().write(first);
      Thread back = new Thread(() -> copy(server, client), "switching-proxy-back");
      back.setDaemon(true);
      back.start();
      copy(client, server);
    } catch (IOException e) {
      close(client);
    }
  }

  private void copy(Socket from, Socket to) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
        out.flush();
      }
    } catch (SocketException e) {
      // closed by a switch or by the other side
    } catch (IOException e) {
      // the same, reported differently
    } finally {
      close(from);
      close(to);
    }
  }

  private void close(Socket socket) {
    open.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // already closed
    }
  }

  private void closeAll() {
    for (Socket socket : open) {
      close(socket);
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException e) {
      // already closed
    }
    closeAll();
  }
}
