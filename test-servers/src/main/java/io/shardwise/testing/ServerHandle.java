package io.shardwise.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * One running server of a {@link ServerFleet}: its address, failure injection and raw access.
 *
 * <p>The failure methods act on the real server: {@link #kill()} is SIGKILL (connections are then
 * refused), {@link #pause()} is SIGSTOP (connections are accepted by the kernel but nothing is
 * answered, so reads time out), {@link #resume()} is SIGCONT, {@link #restart()} starts the server
 * again on the same port. In Docker mode they map to {@code docker kill -s KILL}, {@code docker
 * pause}, {@code docker unpause} and {@code docker start}.
 */
public abstract class ServerHandle {
  private static final int LOG_TAIL_LINES = 40;
  private static final Duration ANSWER_TIMEOUT = Duration.ofMillis(500);

  private final ServerKind kind;
  private final ServerInstance instance;
  private final Duration ioTimeout;
  private boolean paused;

  ServerHandle(ServerKind kind, ServerInstance instance, Duration ioTimeout) {
    this.kind = kind;
    this.instance = instance;
    this.ioTimeout = ioTimeout;
  }

  public final ServerKind kind() {
    return kind;
  }

  /** Always a loopback address: {@code 127.0.0.1}. */
  public final String host() {
    return instance.host();
  }

  /** The port; it stays the same across {@link #restart()}. */
  public final int port() {
    return instance.port();
  }

  /** {@code host:port}, e.g. {@code 127.0.0.1:41234}. */
  public final String address() {
    return host() + ":" + port();
  }

  public final InetSocketAddress socketAddress() {
    return new InetSocketAddress(host(), port());
  }

  /** The server's process id in local mode while it runs; empty in Docker mode or when down. */
  public final OptionalLong pid() {
    return instance.pid();
  }

  /** Whether the process (or container) exists, including while paused. */
  public final boolean isRunning() {
    return instance.isRunning();
  }

  public final synchronized boolean isPaused() {
    return paused && isRunning();
  }

  /** Whether the server answers a real request ({@code version} / {@code PING}) within 500 ms. */
  public final boolean isAnswering() {
    return Probes.answers(instance.spec(), host(), port(), ANSWER_TIMEOUT);
  }

  /**
   * Polls (every millisecond) until the server's port accepts a TCP connection, for at most {@code
   * within}; returns when it did, in {@link System#nanoTime()}. For measuring how soon after a
   * restart a client gets back to a server.
   */
  public final long awaitAccepting(Duration within) {
    InetSocketAddress address = new InetSocketAddress(host(), port());
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() < deadline) {
      try (Socket socket = new Socket()) {
        socket.connect(address, 100);
        return System.nanoTime();
      } catch (IOException refused) {
        try {
          Thread.sleep(1);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while waiting for " + this, e);
        }
      }
    }
    throw new IllegalStateException(this + " did not accept connections within " + within);
  }

  /** Graceful stop (SIGTERM, then SIGKILL after 10 s); waits until the process is gone. */
  public final synchronized void stop() {
    instance.stop();
    paused = false;
  }

  /** SIGKILL ({@code kill -9}); waits until the process is gone. */
  public final synchronized void kill() {
    instance.kill();
    paused = false;
  }

  /** SIGSTOP: the server keeps its port but answers nothing until {@link #resume()}. */
  public final synchronized void pause() {
    instance.pause();
    paused = true;
  }

  /** SIGCONT after {@link #pause()}. */
  public final synchronized void resume() {
    if (paused) {
      instance.resume();
      paused = false;
    }
  }

  /**
   * Starts the server again on the same port and waits until it answers. A running server is
   * stopped gracefully first. Data survives only for a {@code persistent()} Redis.
   */
  public final synchronized void restart() {
    if (instance.isRunning()) {
      instance.stop();
    }
    paused = false;
    instance.startAgain();
  }

  /** Brings the server back to answering: resumes it if paused, restarts it if down. */
  public final synchronized void restore() {
    if (!instance.isRunning()) {
      paused = false;
      instance.startAgain();
    } else if (paused) {
      resume();
    }
  }

  /** The last lines the server wrote to stdout/stderr (local) or its container log. */
  public final String logTail() {
    return instance.logTail(LOG_TAIL_LINES);
  }

  /** Removes every item or key. */
  public abstract void flushAll();

  /** Connect and read timeout of the raw helpers. */
  final Duration ioTimeout() {
    return ioTimeout;
  }

  final ServerInstance instance() {
    return instance;
  }

  @Override
  public String toString() {
    return instance.toString();
  }
}
