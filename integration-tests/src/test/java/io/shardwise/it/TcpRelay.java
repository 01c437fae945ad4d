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
 *   <li>{@link #refuse()}: closes every connection and each new one at once, as a server whose
 *       port refuses; {@link #accept()} relays again.
 *   <li>{@link #cutAfter}: a connection lost halfway through a batch of text-protocol requests:
 *       passes that many more requests of one kind, then drops the rest of what the client sends,
 *       and once the server's replies to the requests passed are through, closes the connection.
 *       The server answered part of the batch and never saw the rest.
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
  private volatile boolean refusing;
  private volatile Cut cut;
  private final java.util.concurrent.atomic.AtomicInteger cuts = new java.util.concurrent.atomic.AtomicInteger();
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

  /** Closes every connection, and from now on each new one at once, until {@link #accept()}. */
  public void refuse() {
    refusing = true;
    sockets.forEach(TcpRelay::closeQuietly);
    sockets.clear();
  }

  /** Relays new connections again. */
  public void accept() {
    refusing = false;
  }

  /**
   * Arms a cut, once: on the next connection to send a text-protocol line that starts with {@code
   * prefix} (such as {@code "delete "}), {@code lines} such lines are passed to the server, and
   * nothing it sends after them; once the server's reply lines that start with one of {@code
   * replies} number {@code lines}, the connection is closed.
   */
  public void cutAfter(String prefix, int lines, String... replies) {
    cut = new Cut(prefix, lines, List.of(replies));
  }

  /** How many armed cuts closed a connection. */
  public int cuts() {
    return cuts.get();
  }

  /** An armed cut: the requests still to pass, and the replies still to wait for. */
  private static final class Cut {
    final byte[] prefix;
    final List<byte[]> replies;
    final java.util.concurrent.atomic.AtomicInteger requestsLeft;
    final java.util.concurrent.atomic.AtomicInteger repliesLeft;
    /** The connection the cut applies to: the first to send a matching line. */
    final java.util.concurrent.atomic.AtomicReference<Socket> on = new java.util.concurrent.atomic.AtomicReference<>();

    Cut(String prefix, int lines, List<String> replies) {
      if (lines < 1) {
        throw new IllegalArgumentException("lines must be >= 1 but was " + lines);
      }
      this.prefix = prefix.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      this.replies = replies.stream().map(r -> r.getBytes(java.nio.charset.StandardCharsets.US_ASCII)).toList();
      this.requestsLeft = new java.util.concurrent.atomic.AtomicInteger(lines);
      this.repliesLeft = new java.util.concurrent.atomic.AtomicInteger(lines);
    }
  }

  /** The start of the line being read in one direction of one connection, across reads. */
  private static final class LineStart {
    private final byte[] start = new byte[32];
    private int length;

    /** Feeds {@code b}; returns the start of the line it ends (on a newline), or null. */
    byte[] feed(byte b) {
      if (b == '\n') {
        byte[] line = java.util.Arrays.copyOf(start, length);
        length = 0;
        return line;
      }
      if (length < start.length) {
        start[length++] = b;
      }
      return null;
    }
  }

  private static boolean startsWith(byte[] line, byte[] prefix) {
    if (line.length < prefix.length) {
      return false;
    }
    for (int i = 0; i < prefix.length; i++) {
      if (line[i] != prefix[i]) {
        return false;
      }
    }
    return true;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        if (refusing) {
          closeQuietly(client);
          continue;
        }
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
      daemon("relay-up", () -> pipe(client, server, true, client));
      pipe(server, client, false, client);
    } catch (IOException | InterruptedException e) {
      closeQuietly(client);
    }
  }

  /**
   * Passes bytes from {@code from} to {@code to}; {@code up} for the client's direction of the
   * connection accepted as {@code client}, where an armed {@link Cut} applies.
   */
  private void pipe(Socket from, Socket to, boolean up, Socket client) {
    byte[] buffer = new byte[65_536];
    LineStart line = new LineStart();
    boolean dropping = false;
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
        if (dropping) {
          continue;
        }
        Cut armed = cut;
        if (armed == null) {
          out.write(buffer, 0, n);
          out.flush();
          continue;
        }
        int pass = n;
        boolean closeAfter = false;
        for (int i = 0; i < n; i++) {
          byte[] ended = line.feed(buffer[i]);
          if (ended == null) {
            continue;
          }
          if (up && startsWith(ended, armed.prefix)
              && (armed.on.compareAndSet(null, client) || armed.on.get() == client)
              && armed.requestsLeft.decrementAndGet() == 0) {
            pass = i + 1; // this request passes; the rest of what the client sends is dropped
            dropping = true;
            break;
          }
          if (!up && armed.on.get() == client
              && armed.replies.stream().anyMatch(r -> startsWith(ended, r))
              && armed.repliesLeft.decrementAndGet() == 0) {
            pass = i + 1;
            closeAfter = true;
            break;
          }
        }
        out.write(buffer, 0, pass);
        out.flush();
        if (closeAfter) {
          cut = null;
          cuts.incrementAndGet();
          closeQuietly(from);
          closeQuietly(to);
          return;
        }
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
