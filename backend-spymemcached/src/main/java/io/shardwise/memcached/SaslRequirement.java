package io.shardwise.memcached;

import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.routing.Node;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the server of a connection configured without SASL requires SASL authentication
 * (memcached started with {@code -S}), so that its requests fail with a {@link
 * NodeAuthenticationException}, a configuration error, instead of looking like a sick server.
 *
 * <p>memcached 1.6 with {@code -S} answers any binary command other than {@code version} and the
 * SASL commands of an unauthenticated connection with status 0x20 ({@code Auth failure.}) and then
 * closes the connection, so the other requests in flight on it are lost; and it speaks only the
 * binary protocol, so a text command gets no answer at all (it waits for a 24-byte binary header,
 * then closes the connection on the bad magic byte). Neither can be told apart from a failing
 * server on the connection itself. So at each connection, before spymemcached writes anything on
 * it, {@link #probe} asks on a separate short-lived socket with a binary {@code NOOP}: {@code Auth
 * failure.} means SASL is required; a success means it is not; anything else (no answer, a text
 * reply, a closed connection: a text-only server or a proxy such as twemproxy) leaves the answer
 * open, and requests are sent as usual. A binary {@code Auth failure.} to a real request also
 * counts ({@link #refusedWith}).
 *
 * <p>While SASL is required no request is sent, so the server does not drop the connection and
 * nothing is logged per request; the change is logged once at ERROR, and once at WARN when it
 * ends. SASL is a start-up option of memcached, so the answer changes only when the server
 * restarts or goes away; but spymemcached does not notice that an idle connection was closed, so
 * while requests are refused here the server is probed again, from a thread of its own, at most
 * every {@value #REPROBE_INTERVAL_MILLIS} ms ({@link #reprobeIfDue}). An answer other than
 * "required" ends the refusals: requests then go to spymemcached, which finds the old connection
 * closed and reconnects, as after any server restart.
 */
final class SaslRequirement {

  private static final Logger log = LoggerFactory.getLogger(SpymemcachedNodeConnection.class);

  /** Binary protocol: request and response magic bytes, opcode NOOP, status "auth error". */
  private static final int REQUEST_MAGIC = 0x80;

  private static final int RESPONSE_MAGIC = 0x81;
  private static final int OPCODE_NOOP = 0x0a;
  private static final int STATUS_AUTH_ERROR = 0x20;
  private static final int HEADER_BYTES = 24;

  /** The longest error text of a probe reply kept for the message. */
  private static final int MAX_REPLY_TEXT = 200;

  /** How often the server is probed again while requests are refused for want of SASL. */
  static final long REPROBE_INTERVAL_MILLIS = 2000;

  /** What a probe found out. */
  enum Answer {
    REQUIRED,
    NOT_REQUIRED,
    UNKNOWN
  }

  private final Node node;
  private final InetSocketAddress address;
  private final MemcachedProtocol protocol;
  private final Duration timeout;
  private final boolean daemonThreads;
  private final AtomicBoolean reprobing = new AtomicBoolean();
  private volatile long lastProbeNanos;
  private final AtomicInteger probes = new AtomicInteger();
  /** The server's refusal while SASL is required, else null. */
  private volatile String requiredBecause;
  /** Whether the current connection is being closed by the server after refusing a request. */
  private volatile boolean closingAfterRefusal;

  private boolean loggedRequired; // guarded by this

  SaslRequirement(
      Node node,
      InetSocketAddress address,
      MemcachedProtocol protocol,
      Duration timeout,
      boolean daemonThreads) {
    this.node = node;
    this.address = address;
    this.protocol = protocol;
    this.timeout = timeout;
    this.daemonThreads = daemonThreads;
  }

  /** Probes made so far (for tests). */
  int probes() {
    return probes.get();
  }

  /** Whether the server requires SASL (as far as is known). */
  boolean required() {
    return requiredBecause != null;
  }

  /**
   * Asks the server, on a socket of its own, whether it requires SASL, and records the answer;
   * returns {@link #required()}. Blocks for up to the timeout given at construction.
   */
  boolean probe() {
    probes.incrementAndGet();
    lastProbeNanos = System.nanoTime();
    String[] reply = new String[1];
    Answer answer = ask(reply);
    if (answer == Answer.REQUIRED) {
      required(reply[0]);
    } else if (answer == Answer.NOT_REQUIRED) {
      notRequired();
    } else {
      // Requests are sent; a refusal of one of them says it again (refusedWith).
      requiredBecause = null;
    }
    return required();
  }

  /**
   * The server refused a request for want of authentication, with {@code reply}; it closes the
   * connection next.
   */
  void refusedWith(String reply) {
    closingAfterRefusal = true;
    required(reply);
  }

  /**
   * The connection was lost. Unless the server closed it after refusing a request, whether the
   * server requires SASL is unknown again (it may be down, or restarting with other options) until
   * the next connection's probe: meanwhile requests fail as usual for a server that is not
   * connected.
   */
  void connectionLost() {
    if (!closingAfterRefusal) {
      requiredBecause = null;
    }
    closingAfterRefusal = false;
  }

  private void required(String reply) {
    lastProbeNanos = System.nanoTime();
    requiredBecause = reply == null || reply.isBlank() ? "Auth failure." : reply.trim();
    boolean first;
    synchronized (this) {
      first = !loggedRequired;
      loggedRequired = true;
    }
    if (first) {
      log.error(
          "memcached {}: {}; requests to this node fail with NodeAuthenticationException until"
              + " this is fixed (the node is not ejected and its keys are not sent elsewhere)",
          node.address(),
          problem());
    }
  }

  private void notRequired() {
    requiredBecause = null;
    boolean wasRequired;
    synchronized (this) {
      wasRequired = loggedRequired;
      loggedRequired = false;
    }
    if (wasRequired) {
      log.warn(
          "memcached {}: the server no longer requires SASL authentication; requests are sent"
              + " again",
          node.address());
    }
  }

  /** The failure of a request ({@code what}, e.g. {@code get 'k'}) while SASL is required. */
  NodeAuthenticationException failure(String what) {
    return new NodeAuthenticationException(node, what + " failed: " + problem(), null);
  }

  private String problem() {
    String reply = requiredBecause;
    return "the server requires SASL authentication and none is configured"
        + (protocol == MemcachedProtocol.TEXT
            ? " (memcached with -S speaks only the binary protocol: configure"
                + " MemcachedProtocol.BINARY and sasl(username, password))"
            : " (configure sasl(username, password))")
        + "; the server answers an unauthenticated request with '"
        + (reply == null ? "Auth failure." : reply)
        + "'";
  }

  /**
   * While SASL is required: probes again in the background if the last probe is more than {@value
   * #REPROBE_INTERVAL_MILLIS} ms old and none is under way.
   */
  void reprobeIfDue() {
    if (!required()
        || System.nanoTime() - lastProbeNanos < REPROBE_INTERVAL_MILLIS * 1_000_000
        || !reprobing.compareAndSet(false, true)) {
      return;
    }
    Thread thread =
        new Thread(
            () -> {
              try {
                probe();
              } finally {
                reprobing.set(false);
              }
            },
            "shardwise-memcached-sasl-probe-" + node.address());
    thread.setDaemon(daemonThreads);
    thread.start();
  }

  /** One probe: a binary NOOP on a new connection. */
  private Answer ask(String[] reply) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try (Socket socket = new Socket()) {
      socket.connect(address, millisLeft(deadline));
      socket.setTcpNoDelay(true);
      OutputStream out = socket.getOutputStream();
      byte[] request = new byte[HEADER_BYTES];
      request[0] = (byte) REQUEST_MAGIC;
      request[1] = (byte) OPCODE_NOOP;
      out.write(request);
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] header = readFully(socket, in, HEADER_BYTES, deadline);
      if ((header[0] & 0xff) != RESPONSE_MAGIC || (header[1] & 0xff) != OPCODE_NOOP) {
        return Answer.UNKNOWN;
      }
      int status = (header[6] & 0xff) << 8 | (header[7] & 0xff);
      if (status == 0) {
        return Answer.NOT_REQUIRED;
      }
      if (status != STATUS_AUTH_ERROR) {
        return Answer.UNKNOWN;
      }
      int bodyLength =
          (header[8] & 0xff) << 24
              | (header[9] & 0xff) << 16
              | (header[10] & 0xff) << 8
              | (header[11] & 0xff);
      int textLength = bodyLength < 0 ? 0 : Math.min(bodyLength, MAX_REPLY_TEXT);
      reply[0] =
          new String(readFully(socket, in, textLength, deadline), StandardCharsets.ISO_8859_1);
      return Answer.REQUIRED;
    } catch (IOException | RuntimeException e) {
      // Refused, reset, closed without an answer, too slow: nothing learned.
      return Answer.UNKNOWN;
    }
  }

  private static byte[] readFully(Socket socket, InputStream in, int length, long deadline)
      throws IOException {
    byte[] bytes = new byte[length];
    int read = 0;
    while (read < length) {
      socket.setSoTimeout(millisLeft(deadline));
      int n = in.read(bytes, read, length - read);
      if (n < 0) {
        throw new EOFException("closed after " + read + " of " + length + " bytes");
      }
      read += n;
    }
    return bytes;
  }

  private static int millisLeft(long deadline) throws IOException {
    long left = (deadline - System.nanoTime()) / 1_000_000;
    if (left <= 0) {
      throw new IOException("probe timed out");
    }
    return (int) Math.min(left, Integer.MAX_VALUE);
  }
}
