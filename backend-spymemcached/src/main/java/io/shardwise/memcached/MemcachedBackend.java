package io.shardwise.memcached;

import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.util.ArrayList;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * memcached through spymemcached: one spymemcached client per node, each knowing only its own
 * server (Shardwise does the sharding).
 *
 * <pre>{@code
 * try (MemcachedBackend backend = MemcachedBackend.create();
 *     NodeConnection connection = backend.connect(Node.of("127.0.0.1", 11211))) {
 *   connection.set("greeting", Codecs.utf8().encode("hello"), Duration.ZERO).join();
 * }
 * }</pre>
 *
 * <p>The futures complete on spymemcached's I/O thread (code chained on them must not block).
 * The backend owns one timer thread, which fails overdue requests every {@value
 * #DEADLINE_SCAN_MILLIS} ms, and stops it on {@link #close()}, after closing every connection it
 * opened that is still open. Each connection adds spymemcached's own I/O thread.
 *
 * <p>spymemcached logs through SLF4J: the backend sets the system property {@value
 * #SPYMEMCACHED_LOGGER_PROPERTY} to {@value #SPYMEMCACHED_SLF4J_LOGGER} unless it is already set
 * (it takes effect only if no spymemcached class has logged yet). A server that is down costs a
 * warning per reconnection attempt (at most every {@link MemcachedOptions#maxReconnectDelay()}),
 * not one per request; the {@code net.spy.memcached} loggers can be tuned in the application's
 * logging configuration.
 */
public final class MemcachedBackend implements Backend {

  /** The backend's name in configuration: {@code memcached}. */
  public static final String NAME = "memcached";

  /** memcached's default item size limit ({@code -I 1m}). */
  public static final int DEFAULT_MAX_VALUE_BYTES = 1024 * 1024;

  /** The system property that picks spymemcached's logger implementation. */
  public static final String SPYMEMCACHED_LOGGER_PROPERTY = "net.spy.log.LoggerImpl";

  /** spymemcached's SLF4J logger. */
  public static final String SPYMEMCACHED_SLF4J_LOGGER = "net.spy.memcached.compat.log.SLF4JLogger";

  private final MemcachedOptions options;
  /**
   * Runs spymemcached's completion listeners on the thread that completes the operation (its I/O
   * thread), as Lettuce completes futures on its event loop: a hand-off to a pool cost a second
   * thread wake-up per request. Code chained on the futures must not block.
   */
  private final ExecutorService callbacks = new DirectExecutorService();
  private final ScheduledThreadPoolExecutor timer;
  private final Set<SpymemcachedNodeConnection> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private MemcachedBackend(MemcachedOptions options) {
    this.options = options;
    routeSpymemcachedLoggingToSlf4j();
    this.timer =
        new ScheduledThreadPoolExecutor(
            1, threadFactory("shardwise-memcached-timer-", options.daemonThreads()));
    this.timer.setRemoveOnCancelPolicy(true);
    // Request deadlines: every connection's overdue calls, every few milliseconds.
    this.timer.scheduleWithFixedDelay(
        () -> connections.forEach(SpymemcachedNodeConnection::expireOverdue),
        DEADLINE_SCAN_MILLIS,
        DEADLINE_SCAN_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /** How often request deadlines are checked: a request fails at most this late. */
  static final long DEADLINE_SCAN_MILLIS = 5;

  /** An executor that runs each task at once on the calling thread. */
  private static final class DirectExecutorService extends java.util.concurrent.AbstractExecutorService {
    private volatile boolean shutdown;

    @Override
    public void execute(Runnable command) {
      command.run();
    }

    @Override
    public void shutdown() {
      shutdown = true;
    }

    @Override
    public java.util.List<Runnable> shutdownNow() {
      shutdown = true;
      return java.util.List.of();
    }

    @Override
    public boolean isShutdown() {
      return shutdown;
    }

    @Override
    public boolean isTerminated() {
      return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
      return true;
    }
  }

  /** A backend with {@link MemcachedOptions#defaults()}. */
  public static MemcachedBackend create() {
    return create(MemcachedOptions.defaults());
  }

  public static MemcachedBackend create(MemcachedOptions options) {
    return new MemcachedBackend(Objects.requireNonNull(options, "options"));
  }

  public MemcachedOptions options() {
    return options;
  }

  /** {@value #NAME}. */
  @Override
  public String name() {
    return NAME;
  }

  /**
   * A connection to {@code node} on its own spymemcached client. Waits up to {@link
   * MemcachedOptions#connectTimeout()} for the first connection attempt, so that requests sent
   * right after do not fail only because the connection was still being set up; a server that
   * refuses the connection ends the wait at once. A server that is down is not an error: its
   * requests fail fast with {@link MemcachedUnavailableException} until spymemcached's background
   * reconnection succeeds.
   *
   * @throws java.io.UncheckedIOException if the host name cannot be resolved
   * @throws IllegalStateException if the backend is closed
   */
  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    Objects.requireNonNull(node, "node");
    if (closed) {
      throw new IllegalStateException("the memcached backend is closed; cannot connect to " + node);
    }
    MemcachedOptions nodeOptions =
        requestTimeout.equals(options.operationTimeout())
            ? options
            : options.mutate().operationTimeout(requestTimeout).build();
    SpymemcachedNodeConnection connection =
        SpymemcachedNodeConnection.open(node, nodeOptions, callbacks, timer, connections::remove);
    connections.add(connection);
    if (closed) {
      connection.close();
      throw new IllegalStateException("the memcached backend is closed; cannot connect to " + node);
    }
    return connection;
  }

  /** The configured {@link MemcachedOptions#operationTimeout()}. */
  @Override
  public Duration defaultRequestTimeout() {
    return options.operationTimeout();
  }

  /** {@link KeyRules#MEMCACHED}. */
  @Override
  public KeyRules keyRules() {
    return KeyRules.MEMCACHED;
  }

  /**
   * {@value #DEFAULT_MAX_VALUE_BYTES} bytes, memcached's default item size. The item also holds the
   * key and about 60 bytes of header, so a default server stores values of at most {@code 1048517 -
   * keyBytes} bytes, 4 fewer when the flags are not 0 (1048512 for a one-byte key with flags);
   * larger ones fail with {@link MemcachedServerErrorException}.
   */
  @Override
  public int defaultMaxValueBytes() {
    return DEFAULT_MAX_VALUE_BYTES;
  }

  /** True: memcached keeps the 32-bit flags beside the value. */
  @Override
  public boolean storesFlags() {
    return true;
  }

  /**
   * Whether {@code failure} says the server is unhealthy (no reply, connection down, timeout) as
   * opposed to the server answering with an error ({@link MemcachedServerErrorException}) or with a
   * reply the client cannot parse ({@link MemcachedProtocolException}), or refusing the client's
   * SASL credentials or requiring SASL when none is configured (a {@link
   * io.shardwise.client.NodeAuthenticationException}, a configuration error). Unwraps {@link
   * CompletionException} and {@link ExecutionException}.
   */
  @Override
  public boolean isNodeFailure(Throwable failure) {
    return unwrap(failure) instanceof MemcachedUnavailableException;
  }

  /** A {@link MemcachedTimeoutException}: the server did not answer in time. */
  @Override
  public boolean isTimeout(Throwable failure) {
    Throwable t = unwrap(failure);
    return t instanceof MemcachedTimeoutException || Backend.super.isTimeout(t);
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** Closes every open connection of this backend, then stops its threads. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (SpymemcachedNodeConnection connection : new ArrayList<>(connections)) {
      connection.close();
    }
    timer.shutdownNow();
    callbacks.shutdown();
  }

  @Override
  public String toString() {
    return "MemcachedBackend[" + options + (closed ? ", closed" : "") + "]";
  }

  private static void routeSpymemcachedLoggingToSlf4j() {
    try {
      if (System.getProperty(SPYMEMCACHED_LOGGER_PROPERTY) == null) {
        System.setProperty(SPYMEMCACHED_LOGGER_PROPERTY, SPYMEMCACHED_SLF4J_LOGGER);
      }
    } catch (SecurityException e) {
      // spymemcached then logs with its default logger
    }
  }

  private static ThreadFactory threadFactory(String prefix, boolean daemon) {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
      thread.setDaemon(daemon);
      return thread;
    };
  }
}
