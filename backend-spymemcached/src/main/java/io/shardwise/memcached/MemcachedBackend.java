package io.shardwise.memcached;

import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.Invalidations;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicInteger;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.OperationFactory;
import net.spy.memcached.protocol.binary.BinaryOperationFactory;

/**
 * memcached through spymemcached: every node of the backend on one spymemcached connection (one I/O
 * thread, one selector), with Shardwise choosing the node of every request.
 *
 * <pre>{@code
 * try (MemcachedBackend backend = MemcachedBackend.create();
 *     NodeConnection connection = backend.connect(Node.of("127.0.0.1", 11211))) {
 *   connection.set("greeting", Codecs.utf8().encode("hello"), Duration.ZERO).join();
 * }
 * }</pre>
 *
 * <p>The futures complete on the I/O thread (code chained on them must not block). Threads, whatever
 * the number of nodes: the I/O thread, a timer thread, which fails overdue requests every {@value
 * #DEADLINE_SCAN_MILLIS} ms and schedules reconnection attempts, and, for a moment after each new
 * connection, one of two threads that probe whether a server requires SASL (with SASL configured,
 * spymemcached's authentication thread of the connection instead). {@link #connect} does not wait
 * for the network: nodes connect in parallel, and {@link NodeConnection#ready()} tells when the
 * first attempt has ended. {@link #close()} closes every connection still open and stops the
 * threads, in a time that does not grow with the number of nodes.
 *
 * <p>Logs: one line per node and change of state (cannot connect, connection lost, connected
 * again), none per request or per reconnection attempt; spymemcached's own messages about this
 * backend's connection are logged at DEBUG under their {@code net.spy.memcached} names (other
 * spymemcached clients in the JVM keep their logging). spymemcached logs through SLF4J: the
 * backend sets the system property {@value #SPYMEMCACHED_LOGGER_PROPERTY} to {@value
 * #SPYMEMCACHED_SLF4J_LOGGER} unless it is already set.
 */
public final class MemcachedBackend implements Backend {

  /** The backend's name in configuration: {@code memcached}. */
  public static final String NAME = "memcached";

  /**
   * memcached's default item size limit ({@code -I 1m}): the item holds the value, the key and
   * about 60 bytes of header (see {@link #checkValue}).
   */
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
  /** Probes new connections for a SASL requirement; its threads end when idle. */
  private final ThreadPoolExecutor probes;
  private final OperationFactory operations;
  /** Builds the operations; its connection is the {@link SharedConnection}. */
  private final MemcachedClient client;
  private final SharedConnection connection;
  private final Set<SpymemcachedNodeConnection> connections = ConcurrentHashMap.newKeySet();
  private final ItemSizeLimit itemSizeLimit = new ItemSizeLimit();
  /** Each open connection's read of its server's settings, done or not. */
  private final Map<NodeConnection, CompletableFuture<Void>> settingsReads = new ConcurrentHashMap<>();
  private volatile boolean closed;
  /** Told when a connection is lost ({@link #reportLostConnections}); null until a near cache asks. */
  private volatile Invalidations lossReport;

  private MemcachedBackend(MemcachedOptions options) {
    this.options = options;
    routeSpymemcachedLoggingToSlf4j();
    this.timer =
        new ScheduledThreadPoolExecutor(
            1, threadFactory("shardwise-memcached-timer-", options.daemonThreads()));
    this.timer.setRemoveOnCancelPolicy(true);
    this.probes =
        new ThreadPoolExecutor(
            PROBE_THREADS,
            PROBE_THREADS,
            2,
            TimeUnit.SECONDS,
            new LinkedBlockingQueue<>(),
            threadFactory("shardwise-memcached-sasl-check-", options.daemonThreads()));
    this.probes.allowCoreThreadTimeOut(true);
    this.operations =
        options.protocol() == MemcachedProtocol.TEXT
            ? new ErrorTolerantAsciiOperationFactory()
            : new BinaryOperationFactory();
    try {
      this.client =
          new MemcachedClient(
              new SharedConnectionFactory(options, operations, callbacks),
              // spymemcached wants one address; the shared connection starts without nodes.
              List.of(InetSocketAddress.createUnresolved("shardwise-shared-connection", 11211)));
    } catch (IOException e) {
      timer.shutdownNow();
      throw new UncheckedIOException("could not open the memcached I/O thread", e);
    }
    this.connection = (SharedConnection) client.getConnection();
    this.connection.useTimer(timer);
    // Request deadlines: every connection's overdue calls, every few milliseconds.
    this.timer.scheduleWithFixedDelay(
        () -> connections.forEach(SpymemcachedNodeConnection::expireOverdue),
        DEADLINE_SCAN_MILLIS,
        DEADLINE_SCAN_MILLIS,
        TimeUnit.MILLISECONDS);
  }

  /** How often request deadlines are checked: a request fails at most this late. */
  static final long DEADLINE_SCAN_MILLIS = 5;

  /** Threads that probe new connections for a SASL requirement (each probe is one round trip). */
  static final int PROBE_THREADS = 2;

  /** How long {@link #close()} waits for the I/O thread to end. */
  static final long IO_THREAD_JOIN_MILLIS = 1000;

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
  /**
   * Each connection opened from now on tells {@code invalidations} when it is lost: memcached
   * cannot say which values changed, but a lost connection may be a restart that emptied the
   * server, after which nothing read before may be served.
   */
  @Override
  public void reportLostConnections(Invalidations invalidations) {
    if (!connections.isEmpty()) {
      throw new IllegalStateException("connections are open already; lost connections are reported only for connections opened after this call");
    }
    this.lossReport = Objects.requireNonNull(invalidations, "invalidations");
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * Adds {@code node} to the shared connection and returns without waiting for the network (the
   * host name is resolved here). The connection's {@link NodeConnection#ready()} completes when the
   * first attempt has ended, or after {@link MemcachedOptions#connectTimeout()}; requests sent
   * before fail with {@link MemcachedUnavailableException}. A server that is down is not an error:
   * its requests fail fast until the background reconnection succeeds. May be called at any time,
   * also while other connections serve.
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
        SpymemcachedNodeConnection.open(
            node,
            nodeOptions,
            client,
            this.connection,
            operations,
            callbacks,
            timer,
            probes,
            closed -> {
              connections.remove(closed);
              itemSizeLimit.remove(closed);
              settingsReads.remove(closed);
            });
    Invalidations report = lossReport;
    if (report != null) {
      connection.reportLossTo(report);
    }
    connections.add(connection);
    itemSizeLimit.add(connection);
    CompletableFuture<Void> read = new CompletableFuture<>();
    settingsReads.put(connection, read);
    connection.ready().whenComplete((ignored, failure) -> readItemSize(connection, node, read));
    if (closed) {
      connection.close();
      throw new IllegalStateException("the memcached backend is closed; cannot connect to " + node);
    }
    return connection;
  }

  private void readItemSize(
      SpymemcachedNodeConnection connection, Node node, CompletableFuture<Void> read) {
    if (options.sasl()) {
      // A server with SASL speaks only the binary protocol, and only once authenticated: it would
      // wait for the rest of a binary header. memcached's defaults count. Once authenticated, it
      // answers stats: no proxy stands between (twemproxy has no SASL).
      connection.answersStats(true);
      read.complete(null);
      return;
    }
    try {
      probes.execute(
          () -> {
            try {
              ItemSizeLimit.Settings settings = itemSizeLimit.read(connection, node, options.connectTimeout());
              connection.metaCommands(settings.metaCommands() && options.protocol() == MemcachedProtocol.TEXT);
              connection.answersStats(settings != ItemSizeLimit.Settings.DEFAULTS);
            } finally {
              read.complete(null);
            }
          });
    } catch (RejectedExecutionException closing) {
      read.complete(null); // the backend is closing: the connection no longer takes values
    }
  }

  /**
   * Completes when the {@code item_size_max} of {@code connection}'s server has been read with
   * {@code stats settings}, or could not be (then memcached's default counts), shortly after the
   * connection's first attempt.
   */
  @Override
  public CompletableFuture<Void> limitsRead(NodeConnection connection) {
    CompletableFuture<Void> read = settingsReads.get(connection);
    return read != null ? read : CompletableFuture.completedFuture(null);
  }

  /** The configured {@link MemcachedOptions#operationTimeout()}. */
  @Override
  public Duration defaultRequestTimeout() {
    return options.operationTimeout();
  }

  /**
   * The key rules of the configured protocol: {@link KeyRules#MEMCACHED} (text) or {@link
   * KeyRules#MEMCACHED_BINARY}.
   */
  @Override
  public KeyRules keyRules() {
    return options.protocol().keyRules();
  }

  /**
   * No limit of its own ({@link Integer#MAX_VALUE}): the servers' item size decides, see {@link
   * #checkValue}. A configured limit applies in addition.
   */
  @Override
  public int defaultMaxValueBytes() {
    return Integer.MAX_VALUE;
  }

  /**
   * Refuses a value that memcached would not store under {@code key}: the item (value, key, flags
   * and about 60 bytes of header) must fit the {@code item_size_max} of the smallest of the
   * backend's servers, read from each with {@code stats settings} ({@value
   * #DEFAULT_MAX_VALUE_BYTES} with CAS, memcached's default, for a server that cannot be read). A
   * default server stores at most {@code 1048517 - keyBytes} bytes with flags 0, 4 fewer with
   * flags.
   */
  @Override
  public void checkValue(String key, io.shardwise.client.CachedValue value) {
    itemSizeLimit.check(key, value);
  }

  /**
   * The largest value {@link #checkValue} accepts now under {@code key} with {@code flags}: the
   * item size of the backend's smallest server (memcached's default until a server's settings have
   * been read, shortly after its first connection) less the item's header, key, flags, CRLF and CAS.
   */
  public long maxValueBytes(String key, int flags) {
    return itemSizeLimit.smallest()
        .maxValueBytes(key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length, flags);
  }

  /** True: a memcached server is reached by its host name or address. */
  @Override
  public boolean resolvesHosts() {
    return true;
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

  /** A {@link MemcachedQueueFullException}: the request was not sent, the server was not asked. */
  @Override
  public boolean isClientQueueFull(Throwable failure) {
    return unwrap(failure) instanceof MemcachedQueueFullException;
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

  /**
   * Closes every open connection of this backend, then stops its threads: the I/O thread closes
   * every socket at once; this waits up to {@value #IO_THREAD_JOIN_MILLIS} ms for it to end.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      for (SpymemcachedNodeConnection open : new ArrayList<>(connections)) {
        open.close();
      }
      client.shutdown();
      connection.join(IO_THREAD_JOIN_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      timer.shutdownNow();
      probes.shutdownNow();
      callbacks.shutdown();
    }
  }

  /** The shared connection (for tests). */
  SharedConnection sharedConnection() {
    return connection;
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
