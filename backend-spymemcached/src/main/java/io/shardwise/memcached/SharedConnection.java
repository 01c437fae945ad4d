package io.shardwise.memcached;

import io.shardwise.routing.Node;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.ConnectionObserver;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedConnection;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.OperationFactory;
import net.spy.memcached.compat.log.Logger;
import net.spy.memcached.ops.Operation;
import org.slf4j.LoggerFactory;

/**
 * One spymemcached connection, with one I/O thread and one selector, for every node of a {@link
 * MemcachedBackend}. Nodes join and leave at any time ({@link #add}, {@link #remove}); every change
 * of the node set and every connection attempt runs on the I/O thread, queued by the callers and
 * drained at the top of each {@link #handleIO()} round.
 *
 * <p>Reconnection is done here rather than by spymemcached, to choose the backoff and to connect at
 * once when asked ({@link #reconnectNow}, used by {@code ping()} so that a server that came back is
 * readmitted as soon as the client's health probe asks, whatever the backoff). A lost connection is
 * retried at once, then after 250 ms doubling up to {@link MemcachedOptions#maxReconnectDelay()}.
 *
 * <p>Logging: one line per node and state change (first attempt failed, lost, connected again),
 * at WARN for the losses and INFO for the recoveries; attempts and spymemcached's own messages for
 * this connection are at DEBUG.
 */
final class SharedConnection extends MemcachedConnection {

  private static final org.slf4j.Logger log = LoggerFactory.getLogger(MemcachedBackend.class);

  private static final Logger SPY_LOG = new SpymemcachedDebugLogger(MemcachedConnection.class);

  /** The first pause after a failed attempt; it doubles up to the maximum reconnect delay. */
  static final long FIRST_RETRY_DELAY_MILLIS = 250;

  /** A connection that lasted less than this and was lost counts as a failed attempt. */
  static final long STABLE_CONNECTION_MILLIS = 2000;

  /** What a node's owner hears of its connection; called on the I/O thread, must not block. */
  interface Events {
    /** Connected; {@code again} after a connection that was lost or attempts that failed. */
    void connected(Endpoint endpoint, boolean again);

    /** The connection was lost (it was up). */
    void lost(Endpoint endpoint);

    /** An attempt to connect failed (the node was down already). */
    void attemptFailed(Endpoint endpoint);
  }

  /** A node of this connection. Fields are confined to the I/O thread unless volatile. */
  final class Endpoint {
    final Node node;
    final InetSocketAddress address;
    final MemcachedNode server;
    final Events events;
    private volatile boolean removed;
    private boolean connected;
    private boolean connecting;
    private boolean everConnected;
    private int failedInRow;
    private long upSinceNanos;
    private long downSinceNanos;
    private ScheduledFuture<?> retry;
    private final List<CompletableFuture<Boolean>> waiters = new ArrayList<>(1);

    private Endpoint(Node node, InetSocketAddress address, MemcachedNode server, Events events) {
      this.node = node;
      this.address = address;
      this.server = server;
      this.events = events;
    }

    @Override
    public String toString() {
      return node.address();
    }
  }

  private final ConcurrentLinkedQueue<Runnable> tasks;
  /** Nodes not connected (I/O thread only): requests that reach them are cancelled each round. */
  private final java.util.Set<Endpoint> down = new java.util.HashSet<>();
  private final Map<MemcachedNode, Endpoint> endpoints = new ConcurrentHashMap<>();
  private final SharedConnectionFactory factory;
  private final int bufferSize;
  private volatile ScheduledExecutorService timer;

  SharedConnection(
      int bufferSize,
      SharedConnectionFactory factory,
      List<InetSocketAddress> none,
      FailureMode failureMode,
      OperationFactory operations)
      throws IOException {
    super(bufferSize, factory, none, List.of(), failureMode, operations);
    // The I/O thread already runs: it finds the task queue once it is set (see handleIO).
    this.factory = factory;
    this.bufferSize = bufferSize;
    this.tasks = new ConcurrentLinkedQueue<>();
    setName("shardwise-memcached-io");
    addObserver(new Observer());
  }

  /** The timer that schedules reconnection attempts; set once, before the first node joins. */
  void useTimer(ScheduledExecutorService scheduler) {
    this.timer = scheduler;
  }

  private ChosenNodeLocator nodes() {
    return (ChosenNodeLocator) locator;
  }

  @Override
  protected Logger getLogger() {
    return SPY_LOG;
  }

  /**
   * Adds a node and starts connecting to it, without waiting: its first attempt runs on the I/O
   * thread, and {@code events} hears how it ends.
   */
  Endpoint add(Node node, InetSocketAddress address, Events events) throws IOException {
    SocketChannel channel = SocketChannel.open();
    MemcachedNode server;
    try {
      channel.configureBlocking(false);
      channel.socket().setTcpNoDelay(!factory.useNagleAlgorithm());
      server = factory.createMemcachedNode(address, channel, bufferSize);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    server.setConnection(this);
    Endpoint endpoint = new Endpoint(node, address, server, events);
    endpoints.put(server, endpoint);
    nodes().add(server);
    onIoThread(() -> attempt(endpoint, channel));
    return endpoint;
  }

  /**
   * Removes a node: its channel is closed and its queued requests cancelled, on the I/O thread; the
   * other nodes are not disturbed. Returns at once.
   */
  void remove(Endpoint endpoint) {
    endpoint.removed = true;
    onIoThread(
        () -> {
          endpoints.remove(endpoint.server);
          nodes().remove(endpoint.server);
          down.remove(endpoint);
          addedQueue.remove(endpoint.server);
          cancelRetry(endpoint);
          SelectionKey key = endpoint.server.getSk();
          if (key != null) {
            key.cancel();
          }
          closeQuietly(endpoint.server.getChannel());
          cancel(endpoint.server.destroyInputQueue());
          discardReplies(endpoint.server);
          endpoint.server.setupResend();
          completeWaiters(endpoint, false);
        });
  }

  /**
   * Completes with true once {@code endpoint} is connected, false if an attempt failed: connected at
   * once if it is; otherwise the attempt under way, or a new one started now rather than at the next
   * backoff step.
   */
  CompletableFuture<Boolean> reconnectNow(Endpoint endpoint) {
    CompletableFuture<Boolean> outcome = new CompletableFuture<>();
    if (endpoint.server.isActive()) {
      outcome.complete(true);
      return outcome;
    }
    onIoThread(
        () -> {
          if (endpoint.removed || shutDown) {
            outcome.complete(false);
          } else if (endpoint.connected && endpoint.server.isActive()) {
            outcome.complete(true);
          } else {
            endpoint.waiters.add(outcome);
            if (!endpoint.connecting) {
              cancelRetry(endpoint);
              attempt(endpoint, null);
            }
          }
        });
    return outcome;
  }

  /**
   * Queues {@code operation} for {@code server}, whatever its key (spymemcached's client asks the
   * locator; this skips it).
   *
   * @throws IllegalStateException if the connection is shut down
   */
  void send(MemcachedNode server, Operation operation) {
    checkState();
    addOperation(server, operation);
  }

  /** Runs {@code task} on the I/O thread, at the start of its next round. */
  private void onIoThread(Runnable task) {
    if (shutDown) {
      return;
    }
    tasks.add(task);
    selector.wakeup();
  }

  @Override
  public void handleIO() throws IOException {
    ConcurrentLinkedQueue<Runnable> pending = tasks;
    if (pending != null) {
      Runnable task;
      while ((task = pending.poll()) != null) {
        try {
          task.run();
        } catch (RuntimeException | AssertionError e) {
          log.error("memcached: unexpected failure on the I/O thread", e);
        }
      }
    }
    sweepDown();
    super.handleIO();
  }

  /**
   * Cancels what was queued for nodes that are not connected: a request that found its node still
   * connected just before the connection was lost reaches the node's queue after spymemcached
   * emptied it, and would otherwise wait there until the next connection or its deadline.
   */
  private void sweepDown() {
    java.util.Set<Endpoint> nodesDown = down;
    if (nodesDown == null || nodesDown.isEmpty()) {
      return;
    }
    for (Endpoint endpoint : nodesDown) {
      MemcachedNode server = endpoint.server;
      if (!server.isActive()) {
        cancel(server.destroyInputQueue());
        while (server.hasWriteOp()) {
          Operation operation = server.removeCurrentWriteOp();
          if (operation != null) {
            operation.cancel();
          }
        }
        // spymemcached keeps a node that is not connected in its queue of nodes with new
        // requests; while that queue is not empty, a round that selects nothing counts as an
        // "empty select", and after 256 of them it handles every key on every round and drops
        // the connections whose key was never selected. Of no use with nodes that fail fast.
        addedQueue.remove(server);
      }
    }
  }

  /** A connection attempt; on the I/O thread. {@code channel} is the node's first, or null. */
  private void attempt(Endpoint endpoint, SocketChannel first) {
    if (endpoint.removed || shutDown) {
      closeQuietly(first);
      return;
    }
    MemcachedNode server = endpoint.server;
    SocketChannel channel = first;
    endpoint.connecting = true;
    try {
      if (channel == null) {
        channel = SocketChannel.open();
        channel.configureBlocking(false);
        channel.socket().setTcpNoDelay(!factory.useNagleAlgorithm());
      }
      boolean connected = channel.connect(endpoint.address);
      SelectionKey key =
          channel.register(selector, connected ? 0 : SelectionKey.OP_CONNECT, server);
      if (channel == first) {
        server.setSk(key); // the node was created with this channel
      } else {
        server.registerChannel(channel, key);
      }
      if (connected) {
        server.connected();
        established(endpoint);
        addedQueue.offer(server);
      }
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      server.setChannel(null);
      if (log.isDebugEnabled()) {
        log.debug("memcached {}: connection attempt failed: {}", endpoint, e.toString());
      }
      failed(endpoint, false);
    }
  }

  /**
   * spymemcached's reaction to a failed attempt or a lost connection (from its I/O loop): the
   * channel is closed and the queued requests cancelled as spymemcached does, but the next attempt
   * is scheduled here.
   */
  @Override
  protected void queueReconnect(MemcachedNode server) {
    if (shutDown) {
      return;
    }
    SelectionKey key = server.getSk();
    if (key != null) {
      key.cancel();
    }
    server.reconnecting();
    closeQuietly(server.getChannel());
    server.setChannel(null);
    // The state change (and its log line) first: the requests cancelled below complete their
    // callers' futures at once.
    Endpoint endpoint = endpoints.get(server);
    if (endpoint != null) {
      failed(endpoint, endpoint.connected);
    }
    discardReplies(server);
    server.setupResend();
    cancel(server.destroyInputQueue());
    server.setupForAuth();
  }

  /** Shardwise reroutes requests itself: whatever spymemcached would move elsewhere fails. */
  @Override
  public void redistributeOperation(Operation operation) {
    if (!operation.isCancelled()) {
      operation.cancel();
    }
  }

  private void established(Endpoint endpoint) {
    boolean again = endpoint.everConnected || endpoint.failedInRow > 0;
    long now = System.nanoTime();
    if (again) {
      log.info(
          "memcached {}: connected{}",
          endpoint,
          endpoint.everConnected
              ? " again after " + millis(now - endpoint.downSinceNanos) + " ms"
              : " after " + endpoint.failedInRow + " failed attempts");
    } else if (log.isDebugEnabled()) {
      log.debug("memcached {}: connected", endpoint);
    }
    endpoint.connected = true;
    endpoint.connecting = false;
    endpoint.everConnected = true;
    down.remove(endpoint);
    endpoint.upSinceNanos = now;
    cancelRetry(endpoint);
    endpoint.events.connected(endpoint, again);
    completeWaiters(endpoint, true);
  }

  private void failed(Endpoint endpoint, boolean wasConnected) {
    endpoint.connecting = false;
    endpoint.connected = false;
    if (endpoint.removed) {
      completeWaiters(endpoint, false);
      return;
    }
    down.add(endpoint);
    long now = System.nanoTime();
    long delay;
    if (wasConnected) {
      endpoint.downSinceNanos = now;
      boolean stable = millis(now - endpoint.upSinceNanos) >= STABLE_CONNECTION_MILLIS;
      endpoint.failedInRow = stable ? 0 : endpoint.failedInRow + 1;
      delay = stable ? 0 : retryDelay(endpoint.failedInRow);
      log.warn(
          "memcached {}: connection lost; reconnecting in the background (every {} s at most)",
          endpoint,
          factory.options().maxReconnectDelay().toSeconds());
      endpoint.events.lost(endpoint);
    } else {
      endpoint.failedInRow++;
      delay = retryDelay(endpoint.failedInRow);
      if (endpoint.failedInRow == 1 && !endpoint.everConnected) {
        endpoint.downSinceNanos = now;
        log.warn(
            "memcached {}: cannot connect; retrying in the background (every {} s at most)",
            endpoint,
            factory.options().maxReconnectDelay().toSeconds());
      } else if (log.isDebugEnabled()) {
        log.debug(
            "memcached {}: attempt {} failed; next in {} ms", endpoint, endpoint.failedInRow, delay);
      }
      endpoint.events.attemptFailed(endpoint);
    }
    completeWaiters(endpoint, false);
    scheduleAttempt(endpoint, delay);
  }

  private long retryDelay(int failedInRow) {
    long max = factory.options().maxReconnectDelay().toMillis();
    int doublings = Math.min(Math.max(failedInRow - 1, 0), 20);
    return Math.min(max, FIRST_RETRY_DELAY_MILLIS << doublings);
  }

  private void scheduleAttempt(Endpoint endpoint, long delayMillis) {
    cancelRetry(endpoint);
    if (delayMillis <= 0) {
      onIoThread(() -> attemptIfDown(endpoint));
      return;
    }
    try {
      endpoint.retry =
          timer.schedule(
              () -> onIoThread(() -> attemptIfDown(endpoint)), delayMillis, TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      // the backend is closing
    }
  }

  private void attemptIfDown(Endpoint endpoint) {
    if (!endpoint.connected && !endpoint.connecting) {
      attempt(endpoint, null);
    }
  }

  private static void cancelRetry(Endpoint endpoint) {
    ScheduledFuture<?> retry = endpoint.retry;
    if (retry != null) {
      retry.cancel(false);
      endpoint.retry = null;
    }
  }

  private static void completeWaiters(Endpoint endpoint, boolean connected) {
    if (!endpoint.waiters.isEmpty()) {
      List<CompletableFuture<Boolean>> waiting = new ArrayList<>(endpoint.waiters);
      endpoint.waiters.clear();
      for (CompletableFuture<Boolean> waiter : waiting) {
        waiter.complete(connected);
      }
    }
  }

  /**
   * Cancels the requests waiting for a reply on a connection that is gone, as spymemcached's
   * {@code setupResend} would, but without its warning per request.
   */
  private static void discardReplies(MemcachedNode server) {
    while (server.hasReadOp()) {
      Operation operation = server.removeCurrentReadOp();
      if (operation != server.getCurrentWriteOp()) {
        operation.cancel();
      }
    }
  }

  private static void cancel(Iterable<Operation> operations) {
    for (Operation operation : operations) {
      operation.cancel();
    }
  }

  private static void closeQuietly(SocketChannel channel) {
    if (channel != null) {
      try {
        channel.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  /**
   * spymemcached reports a completed connection by address only: the nodes at that address that
   * just became active are the ones connected.
   */
  private final class Observer implements ConnectionObserver {
    @Override
    public void connectionEstablished(SocketAddress address, int reconnectCount) {
      for (Endpoint endpoint : endpoints.values()) {
        if (!endpoint.connected
            && endpoint.connecting
            && endpoint.address.equals(address)
            && endpoint.server.isActive()) {
          established(endpoint);
        }
      }
    }

    @Override
    public void connectionLost(SocketAddress address) {
      // queueReconnect has seen it
    }
  }

  @Override
  public String toString() {
    // Also called by spymemcached's constructor, before this class's fields are set.
    Map<MemcachedNode, Endpoint> all = endpoints;
    return "SharedConnection[" + (all == null ? 0 : all.size()) + " nodes]";
  }
}
