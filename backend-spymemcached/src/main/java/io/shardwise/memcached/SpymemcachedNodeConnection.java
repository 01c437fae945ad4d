package io.shardwise.memcached;

import io.shardwise.client.CachedValue;
import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.NodeSecurityException;
import io.shardwise.routing.Node;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.Invalidations;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import io.shardwise.spi.ServerRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import net.spy.memcached.FailureMode;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.OperationFactory;
import net.spy.memcached.auth.AuthThread;
import net.spy.memcached.internal.OperationFuture;
import net.spy.memcached.ops.DeleteOperation;
import net.spy.memcached.ops.GetOperation;
import net.spy.memcached.ops.Operation;
import net.spy.memcached.ops.OperationCallback;
import net.spy.memcached.ops.OperationException;
import net.spy.memcached.ops.OperationStatus;
import net.spy.memcached.ops.StatsOperation;
import net.spy.memcached.ops.StatusCode;
import net.spy.memcached.ops.StoreOperation;
import net.spy.memcached.ops.StoreType;

/**
 * A {@link NodeConnection} to one node of the backend's shared spymemcached connection. {@code
 * get}, {@code set}, {@code add}, {@code delete}, {@code touch} and the multi-key operations are
 * built with spymemcached's operation factory and queued on this node directly, the request being
 * the operation's callback; {@code incr}/{@code decr} go through the backend's {@link
 * MemcachedClient}, which {@link ChosenNodeLocator} points at this node.
 *
 * <p>Every operation is asynchronous: its {@link CompletableFuture} is completed on spymemcached's
 * I/O thread, and the backend's timer fails it with {@link MemcachedTimeoutException} once the
 * operation timeout has passed (checked every few milliseconds). A request for a node that is
 * disconnected is cancelled at once (spymemcached's {@link FailureMode#Cancel}); that becomes a
 * {@link MemcachedUnavailableException}. Error replies become {@link
 * MemcachedServerErrorException}s, a one-line reply that cannot be parsed a {@link
 * MemcachedProtocolException} (both keep the connection); misses are null, false or absent keys,
 * never errors. A server that requires SASL when none is configured, or refuses the configured
 * credentials, fails every request with a {@link NodeAuthenticationException} (see {@link
 * SaslRequirement} and {@link SaslAuthentication}).
 */
final class SpymemcachedNodeConnection implements NodeConnection {

  /** incr without a create-if-absent request: incr, then add when absent, then incr again. */
  private static final int MAX_INCR_ATTEMPTS = 3;

  private static final CachedValueTranscoder TRANSCODER = CachedValueTranscoder.INSTANCE;

  private final Node node;
  private final MemcachedProtocol protocol;
  private final Duration operationTimeout;
  private final long operationTimeoutNanos;
  /** The backend's client: it builds the operations, which go to {@link #server}. */
  private final MemcachedClient client;
  private final SharedConnection connection;
  private final OperationFactory operations;
  private final ExecutorService callbacks;
  private final Consumer<SpymemcachedNodeConnection> onClose;
  /** SASL authentication, or null without. */
  private final SaslAuthentication sasl;
  /** Without SASL: whether the server requires it nonetheless; null with SASL. */
  private final SaslRequirement saslRequirement;
  /** Runs the probes of {@link #saslRequirement} off the I/O thread. */
  private final Executor probes;
  /** Completes when the first connection attempt has ended (see {@link #ready()}). */
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  /** This node on the shared connection; set once {@link #open} has added it. */
  private volatile SharedConnection.Endpoint endpoint;
  /** The node's spymemcached connection state and queues. */
  private volatile MemcachedNode server;
  /**
   * Completes when the SASL requirement of the current connection has been probed; requests wait
   * for it (see {@link #notSendableYet()}).
   */
  private volatile CompletableFuture<Void> saslChecked = CompletableFuture.completedFuture(null);
  /** The SASL authentication thread of the current connection, or null. */
  private Thread authThread; // guarded by this
  /**
   * Calls in the order they began: every call has the same timeout, so their deadlines come in
   * this order, and {@link #expireOverdue()} only looks at the head. A queue node per call instead
   * of a timer task per call (whose scheduling and cancelling woke the timer thread per request).
   * Every call not yet done is in it (a call leaves once done or expired), which is how {@link
   * #close()} finds the calls in flight.
   */
  private final java.util.concurrent.ConcurrentLinkedQueue<Call<?>> deadlineOrder =
      new java.util.concurrent.ConcurrentLinkedQueue<>();
  private volatile boolean closed;
  /** Told when this connection is lost ({@link MemcachedBackend#reportLostConnections}); null when none is. */
  private volatile Invalidations lossReport;

  private SpymemcachedNodeConnection(
      Node node,
      MemcachedOptions options,
      MemcachedClient client,
      SharedConnection connection,
      OperationFactory operations,
      ExecutorService callbacks,
      Executor probes,
      Consumer<SpymemcachedNodeConnection> onClose,
      SaslAuthentication sasl,
      SaslRequirement saslRequirement) {
    this.node = node;
    this.protocol = options.protocol();
    this.operationTimeout = options.operationTimeout();
    this.operationTimeoutNanos = operationTimeout.toNanos();
    this.client = client;
    this.connection = connection;
    this.operations = operations;
    this.callbacks = callbacks;
    this.probes = probes;
    this.onClose = onClose;
    this.sasl = sasl;
    this.saslRequirement = saslRequirement;
  }

  /**
   * Adds {@code node} to the backend's shared connection and returns at once: the connection is
   * made on the I/O thread, and {@link #ready()} completes when its first attempt has ended (with
   * SASL, when authentication succeeded or was refused), or after the connect timeout. A server
   * that is down is not an error: the connection keeps trying in the background, and requests fail
   * fast until it is up.
   *
   * <p>Without SASL, each new connection first has its server probed for a SASL requirement (see
   * {@link SaslRequirement}), off the I/O thread; requests wait until the probe has answered, for
   * up to the smaller of the connect and operation timeouts (and the probes of other connections
   * ahead of it on the backend's two probe threads).
   */
  static SpymemcachedNodeConnection open(
      Node node,
      MemcachedOptions options,
      MemcachedClient client,
      SharedConnection connection,
      OperationFactory operations,
      ExecutorService callbacks,
      ScheduledExecutorService timer,
      Executor probes,
      Consumer<SpymemcachedNodeConnection> onClose) {
    InetSocketAddress address = new InetSocketAddress(node.host(), node.port());
    if (address.isUnresolved()) {
      throw new UncheckedIOException(
          new UnknownHostException(
              "cannot resolve the host of memcached node " + node + ": " + node.host()));
    }
    SaslAuthentication sasl =
        options.sasl()
            ? new SaslAuthentication(
                node, options.saslUsername().orElseThrow(), options.saslPassword().orElseThrow())
            : null;
    SaslRequirement saslRequirement =
        sasl == null
            ? new SaslRequirement(
                node,
                address,
                options.protocol(),
                min(options.connectTimeout(), options.operationTimeout()),
                options.daemonThreads())
            : null;
    SpymemcachedNodeConnection opened =
        new SpymemcachedNodeConnection(
            node,
            options,
            client,
            connection,
            operations,
            callbacks,
            probes,
            onClose,
            sasl,
            saslRequirement);
    SharedConnection.Endpoint endpoint;
    try {
      endpoint = connection.add(node, address, opened.new Events());
    } catch (IOException e) {
      throw new UncheckedIOException("could not open a connection to memcached node " + node, e);
    }
    opened.endpoint = endpoint;
    opened.server = endpoint.server;
    if (sasl != null) {
      sasl.firstOutcome().thenRun(() -> opened.ready.complete(null));
    }
    long wait = options.connectTimeout().toMillis();
    if (wait <= 0) {
      opened.ready.complete(null);
    } else {
      try {
        timer.schedule(() -> opened.ready.complete(null), wait, TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        opened.ready.complete(null);
      }
    }
    return opened;
  }

  /** Tells {@code report} each time this connection is lost (a restart, a network cut). */
  void reportLossTo(Invalidations report) {
    this.lossReport = report;
  }

  /** What this connection does when its node connects or loses its connection (I/O thread). */
  private final class Events implements SharedConnection.Events {
    @Override
    public void connected(SharedConnection.Endpoint at, boolean again) {
      if (closed) {
        return;
      }
      if (sasl != null) {
        authenticate(at.server);
      } else if (saslRequirement != null) {
        CompletableFuture<Void> checked = new CompletableFuture<>();
        saslChecked = checked;
        try {
          probes.execute(
              () -> {
                try {
                  if (saslRequirement.probe()) {
                    failInFlight();
                  }
                } finally {
                  checked.complete(null);
                  ready.complete(null);
                }
              });
        } catch (java.util.concurrent.RejectedExecutionException e) {
          checked.complete(null);
          ready.complete(null);
        }
      } else {
        ready.complete(null);
      }
    }

    @Override
    public void lost(SharedConnection.Endpoint at) {
      if (sasl != null) {
        sasl.connectionLost();
      }
      if (saslRequirement != null) {
        saslRequirement.connectionLost();
      }
      Invalidations report = lossReport;
      if (report != null) {
        report.all("connection to memcached node " + node + " lost");
      }
    }

    @Override
    public void attemptFailed(SharedConnection.Endpoint at) {
      ready.complete(null);
    }
  }

  /**
   * Starts SASL authentication on a new connection, on a thread of spymemcached's (which waits for
   * the server's answers), stopping the one of the previous connection if it still runs.
   */
  private synchronized void authenticate(MemcachedNode at) {
    if (authThread != null && authThread.isAlive()) {
      authThread.interrupt();
    }
    authThread = new QuietAuthThread(connection, sasl.operations(), sasl.descriptor(), at);
  }

  private synchronized void stopAuthentication() {
    if (authThread != null && authThread.isAlive()) {
      authThread.interrupt();
    }
    authThread = null;
  }

  /** spymemcached's SASL thread, logging at DEBUG. */
  private static final class QuietAuthThread extends AuthThread {
    private static final net.spy.memcached.compat.log.Logger LOG =
        new SpymemcachedDebugLogger(AuthThread.class);

    QuietAuthThread(
        SharedConnection connection,
        OperationFactory operations,
        net.spy.memcached.auth.AuthDescriptor descriptor,
        MemcachedNode node) {
      super(connection, operations, descriptor, node);
    }

    @Override
    protected net.spy.memcached.compat.log.Logger getLogger() {
      return LOG;
    }
  }

  /**
   * Completes when the first connection attempt has ended: connected (and, with SASL,
   * authenticated or refused), refused or failed, or the connect timeout passed. Requests made
   * before wait for it (within the connect timeout), so that a node is not taken for down only
   * because it is still connecting.
   */
  @Override
  public CompletableFuture<Void> ready() {
    return ready;
  }

  /**
   * What a request waits for before it is sent, or null if it is sent now: the end of the first
   * attempt ({@link #ready()}), then the SASL check of a new connection, which ends within the
   * probe timeout once one of the backend's two probe threads takes it. So a check queued behind
   * others' (probes of servers that do not answer, or of a starved process) does not make a request
   * to a server that answers fail as not connected, which would count against the server.
   */
  private CompletableFuture<?> notSendableYet() {
    if (!ready.isDone()) {
      return ready;
    }
    CompletableFuture<Void> checked = saslChecked;
    if (saslRequirement != null && !closed && !checked.isDone() && server.isActive()) {
      return checked;
    }
    return null;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  @Override
  public Node node() {
    return node;
  }

  /** SASL attempts so far, 0 without SASL (for tests). */
  int saslAttempts() {
    return sasl == null ? 0 : sasl.attempts();
  }

  /** Probes for a SASL requirement so far, 0 with SASL (for tests). */
  int saslProbes() {
    return saslRequirement == null ? 0 : saslRequirement.probes();
  }

  // ---- operations ----------------------------------------------------------------------------

  @Override
  public CompletableFuture<CachedValue> get(String key) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> get(key));
    }
    Read read = new Read(key);
    if (begin(read)) {
      read.send(operations.get(key, read));
    }
    return read.result;
  }

  @Override
  public CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> getMulti(keys));
    }
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(BatchReply.empty());
    }
    return single(
        "getMulti of " + keys.size() + " keys",
        null,
        call -> {
          // Sent to the node directly, which does not fail fast while disconnected: check first.
          if (!server.isActive()) {
            call.abort(notConnected(call, null));
            return;
          }
          issueMultiGet(call, keys);
        });
  }

  /**
   * One multi-key get operation for this node, its replies put straight into the map returned: no
   * per-key future and no copy, as spymemcached's {@code asyncGetBulk} would make. The callbacks
   * run one after the other on the I/O thread.
   */
  private void issueMultiGet(Call<BatchReply<CachedValue>> call, List<String> keys) {
    Map<String, CachedValue> found = new HashMap<>(Math.max(16, keys.size() * 4 / 3 + 1));
    Operation[] operation = new Operation[1];
    operation[0] =
        operations.get(
            keys,
            new GetOperation.Callback() {
              @Override
              public void receivedStatus(OperationStatus status) {
                // END (text) or the noop (binary): the values came in gotData
              }

              @Override
              public void gotData(String key, int flags, byte[] data) {
                found.put(key, CachedValue.of(data, flags));
              }

              @Override
              public void complete() {
                Operation op = operation[0];
                call.complete(
                    () -> {
                      if (op.isCancelled()) {
                        throw new ExecutionException(new CancellationException("Cancelled"));
                      }
                      if (op.hasErrored()) {
                        throw new ExecutionException(op.getException());
                      }
                      return BatchReply.of(found);
                    });
              }
            });
    call.cancelWith(operation[0]::cancel);
    connection.send(server, operation[0]);
  }

  @Override
  public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> set(key, value, ttl));
    }
    Store set = new Store(key);
    if (begin(set)) {
      issueStore(set, StoreType.set, key, value, ttl, 0);
    }
    return set.result;
  }

  /**
   * Sends a {@code set} or {@code add} for {@code write}, with the expiry {@code ttl} gives or, when
   * {@code ttl} is null, {@code exptime}.
   */
  private void issueStore(
      StoreCall<?> write, StoreType type, String key, CachedValue value, Duration ttl, int exptime) {
    if (write.result.isDone()) {
      return;
    }
    Operation store;
    try {
      int expiry = ttl == null ? exptime : exptime(ttl);
      checkFlags(value);
      store = operations.store(type, key, value.flags(), expiry, value.bytes(), write);
    } catch (RuntimeException e) {
      write.abort(translateIssueFailure(write, e));
      return;
    }
    write.send(store);
  }

  @Override
  public CompletableFuture<BatchReply<Boolean>> setMulti(
      Map<String, CachedValue> values, Duration ttl) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> setMulti(values, ttl));
    }
    if (values.isEmpty()) {
      return CompletableFuture.completedFuture(BatchReply.empty());
    }
    Batch<BatchReply<Boolean>> batch = new Batch<>("setMulti of " + values.size() + " keys");
    if (!begin(batch)) {
      return batch.result;
    }
    int exptime;
    try {
      exptime = exptime(ttl);
    } catch (RuntimeException e) {
      batch.abort(e);
      return batch.result;
    }
    Map<String, Store> writes = new LinkedHashMap<>();
    for (Map.Entry<String, CachedValue> e : values.entrySet()) {
      Store write = new Store(e.getKey());
      writes.put(e.getKey(), write);
      batch.children.add(write);
    }
    batch.whenChildrenDone(
        () -> {
          Map<String, Boolean> stored = new HashMap<>(capacity(writes.size()));
          Map<String, Throwable> failures = new LinkedHashMap<>();
          for (Map.Entry<String, Store> e : writes.entrySet()) {
            Throwable failure = e.getValue().failure();
            if (failure != null) {
              failures.put(e.getKey(), failure);
            } else {
              stored.put(e.getKey(), Boolean.TRUE);
            }
          }
          if (failures.size() == writes.size()
              && failures.values().stream()
                  .allMatch(f -> f instanceof MemcachedUnavailableException)) {
            Throwable first = failures.values().iterator().next();
            batch.abort(summarize(batch, "no write was answered: " + first.getMessage(), first));
          } else {
            batch.result.complete(BatchReply.of(stored, failures));
          }
        });
    for (Map.Entry<String, CachedValue> e : values.entrySet()) {
      issueStore(writes.get(e.getKey()), StoreType.set, e.getKey(), e.getValue(), null, exptime);
    }
    return batch.result;
  }

  @Override
  public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> add(key, value, ttl));
    }
    Add add = new Add(key);
    if (begin(add)) {
      issueStore(add, StoreType.add, key, value, ttl, 0);
    }
    return add.result;
  }

  @Override
  public CompletableFuture<Boolean> delete(String key) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> delete(key));
    }
    Delete delete = new Delete(key);
    if (begin(delete)) {
      issueDelete(delete);
    }
    return delete.result;
  }

  private void issueDelete(Delete delete) {
    if (!delete.result.isDone()) {
      delete.send(operations.delete(delete.key, delete));
    }
  }

  @Override
  public CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> deleteMulti(keys));
    }
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(BatchReply.empty());
    }
    Batch<BatchReply<Boolean>> batch = new Batch<>("deleteMulti of " + keys.size() + " keys");
    if (!begin(batch)) {
      return batch.result;
    }
    Map<String, Delete> deletes = new LinkedHashMap<>();
    for (String key : keys) {
      if (!deletes.containsKey(key)) {
        Delete delete = new Delete(key);
        deletes.put(key, delete);
        batch.children.add(delete);
      }
    }
    batch.whenChildrenDone(
        () -> {
          Map<String, Boolean> existed = new HashMap<>(capacity(deletes.size()));
          Map<String, Throwable> failures = new LinkedHashMap<>();
          for (Map.Entry<String, Delete> e : deletes.entrySet()) {
            Throwable failure = e.getValue().failure();
            if (failure != null) {
              failures.put(e.getKey(), failure);
            } else {
              existed.put(e.getKey(), e.getValue().result.join());
            }
          }
          if (failures.size() == deletes.size()) {
            Throwable first = failures.values().iterator().next();
            batch.abort(
                summarize(
                    batch,
                    failures.size() + " of " + deletes.size() + " deletes failed; first: " + first.getMessage(),
                    first));
          } else {
            // Each key's outcome is its own: a key whose delete failed is named with its reason.
            batch.result.complete(BatchReply.of(existed, failures));
          }
        });
    for (Delete delete : deletes.values()) {
      issueDelete(delete);
    }
    return batch.result;
  }

  /**
   * Whether the server has memcached's meta commands (1.6 and later, on the text protocol), read
   * with {@code version} once the connection's first attempt is done; until then, and when a meta
   * command is answered with an error, {@link #remainingTtl} cannot tell.
   */
  private volatile boolean metaCommands;

  void metaCommands(boolean on) {
    metaCommands = on;
  }

  /**
   * How long {@code key} has left, from a meta get ({@code mg <key> t}); null when the key is absent
   * or the server has no meta commands (the binary protocol, memcached before 1.6, a proxy).
   */
  @Override
  public CompletableFuture<Duration> remainingTtl(String key) {
    if (!metaCommands) {
      return CompletableFuture.completedFuture(null);
    }
    if (!ready.isDone()) {
      return ready.thenCompose(connected -> remainingTtl(key));
    }
    RemainingTtl call = new RemainingTtl(key);
    if (begin(call)) {
      call.send(new MetaTtlOperation(key, call));
    }
    return call.result;
  }

  /**
   * Whether the server answered {@code stats settings} (read beside the connection; see {@link
   * ItemSizeLimit}): only then is {@code stats} sent on the connection. twemproxy closes a client's
   * connection on a command it does not proxy, {@code stats} among them.
   */
  private volatile boolean answersStats;

  void answersStats(boolean on) {
    answersStats = on;
  }

  /**
   * The server's run from {@code stats}: its {@code pid}, its start ({@code time} less {@code
   * uptime}, both in the server's seconds) and {@code cmd_flush} make the id, {@code curr_items} the
   * items. Null when the server did not answer {@code stats settings} (a proxy), or its {@code stats}
   * lack a field.
   */
  @Override
  public CompletableFuture<ServerRun> serverRun() {
    if (!ready.isDone()) {
      return ready.thenCompose(connected -> serverRun());
    }
    if (!answersStats) {
      return CompletableFuture.completedFuture(null);
    }
    Stats call = new Stats();
    if (begin(call)) {
      call.send(operations.stats(null, call));
    }
    return call.result;
  }

  @Override
  public CompletableFuture<Boolean> touch(String key, Duration ttl) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> touch(key, ttl));
    }
    Touch touch = new Touch(key);
    if (begin(touch)) {
      int exptime;
      try {
        exptime = exptime(ttl);
      } catch (RuntimeException e) {
        touch.abort(translateIssueFailure(touch, e));
        return touch.result;
      }
      touch.send(operations.touch(key, exptime, touch));
    }
    return touch.result;
  }

  /**
   * Counters are unsigned 64-bit: {@code initial} and the value returned hold the counter's 64
   * bits, so values from 2^63 up are negative longs ({@code Long.toUnsignedString} prints the
   * server's number). An increment wraps at 2^64, a decrement stops at 0.
   */
  @Override
  public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> incr(key, delta, initial, ttl));
    }
    return single(
        delta < 0 ? "decr" : "incr",
        key,
        call -> {
          checkDelta(delta);
          int exptime = exptime(ttl);
          // spymemcached's binary incr asserts that the initial value is >= 0 as a signed long;
          // an initial value from 2^63 up is created the way the text protocol does it.
          if (protocol == MemcachedProtocol.BINARY && initial >= 0) {
            OperationFuture<Long> future =
                delta >= 0
                    ? client.asyncIncr(key, delta, initial, exptime)
                    : client.asyncDecr(key, -delta, initial, exptime);
            bridge(call, future, (value, status) -> counterValue(call, value, status));
          } else {
            incrOrAdd(call, key, delta, initial, exptime, 1);
          }
        });
  }

  /**
   * {@code incr} or {@code decr} without an initial value: memcached answers {@code NOT_FOUND} for
   * an absent key (on the binary protocol spymemcached sends the expiry 0xffffffff for that), and
   * nothing is created.
   */
  @Override
  public CompletableFuture<Long> incrIfPresent(String key, long delta) {
    if (!ready.isDone()) {
      return ready.thenCompose(connected -> incrIfPresent(key, delta));
    }
    return single(
        delta < 0 ? "decr" : "incr",
        key,
        call -> {
          checkDelta(delta);
          incrExisting(call, key, delta, () -> call.result.complete(null));
        });
  }

  private static void checkDelta(long delta) {
    if (delta == Long.MIN_VALUE) {
      throw new IllegalArgumentException("delta must be > " + Long.MIN_VALUE + " but was " + delta);
    }
  }

  /**
   * {@code incr} or {@code decr} of {@code key} without an initial value: completes {@code call}
   * with the counter, or runs {@code absent} on {@code NOT_FOUND} (on the I/O thread, in the call).
   */
  private void incrExisting(Call<Long> call, String key, long delta, Step absent) {
    OperationFuture<Long> future = delta >= 0 ? client.asyncIncr(key, delta) : client.asyncDecr(key, -delta);
    call.cancelWith(future);
    future.addListener(
        done ->
            call.run(
                () -> {
                  Long value = future.get();
                  OperationStatus status = future.getStatus();
                  if (!is(status, StatusCode.ERR_NOT_FOUND)) {
                    call.result.complete(counterValue(call, value, status));
                  } else {
                    absent.run();
                  }
                }));
  }

  /**
   * A counter update without a create-if-absent request (the text protocol has none), done as
   * spymemcached's synchronous {@code incr(key, by, default, exp)} does it, without blocking: incr;
   * on NOT_FOUND add the initial value; if another client added it first, incr again. On the
   * binary protocol spymemcached's incr without an initial value sends the expiry 0xffffffff,
   * which makes memcached answer NOT_FOUND for an absent key in the same way.
   */
  private void incrOrAdd(
      Call<Long> call, String key, long delta, long initial, int exptime, int attempt) {
    incrExisting(call, key, delta, () -> addInitial(call, key, delta, initial, exptime, attempt));
  }

  private void addInitial(
      Call<Long> call, String key, long delta, long initial, int exptime, int attempt) {
    byte[] digits = Long.toUnsignedString(initial).getBytes(StandardCharsets.US_ASCII);
    OperationFuture<Boolean> add = client.add(key, exptime, CachedValue.of(digits, 0), TRANSCODER);
    call.cancelWith(add);
    add.addListener(
        done ->
            call.run(
                () -> {
                  Boolean stored = add.get();
                  OperationStatus status = add.getStatus();
                  if (Boolean.TRUE.equals(stored)) {
                    call.result.complete(initial);
                  } else if (!is(status, StatusCode.ERR_NOT_STORED, StatusCode.ERR_EXISTS)) {
                    throw errorReply(call, status);
                  } else if (attempt < MAX_INCR_ATTEMPTS) {
                    // Another client created the counter between our incr and add.
                    incrOrAdd(call, key, delta, initial, exptime, attempt + 1);
                  } else {
                    throw new MemcachedServerErrorException(
                        call.describe()
                            + ": the counter was deleted and created again by other"
                            + " clients "
                            + attempt
                            + " times in a row",
                        status.getMessage(),
                        null);
                  }
                }));
  }

  /**
   * {@code version}. On a node that is not connected, first a connection attempt now rather than
   * at the next step of the reconnection backoff: the client's health probe readmits a server that
   * came back as soon as it asks.
   */
  @Override
  public CompletableFuture<Duration> ping() {
    if (!ready.isDone()) {
      return ready.thenCompose(connected -> ping());
    }
    return single(
        "version",
        null,
        call -> {
          if (server.isActive()) {
            version(call);
            return;
          }
          connection
              .reconnectNow(endpoint)
              .thenCompose(connected -> saslChecked)
              .whenComplete(
                  (checked, failure) ->
                      call.run(
                          () -> {
                            if (!server.isActive()) {
                              call.abort(notConnected(call, null));
                            } else if (admissible(call)) {
                              version(call);
                            }
                          }));
        });
  }

  private void version(Call<Duration> call) {
    long start = System.nanoTime();
    broadcast(call, operations::version, (status, repliedAt) -> Duration.ofNanos(repliedAt - start));
  }

  @Override
  public CompletableFuture<Void> flushAll() {
    CompletableFuture<?> before = notSendableYet();
    if (before != null) {
      return before.thenCompose(sendable -> flushAll());
    }
    return single(
        "flush_all",
        null,
        call ->
            broadcast(
                call, callback -> operations.flush(0, callback), (status, repliedAt) -> null));
  }

  /**
   * Takes this node off the shared connection (on the I/O thread, without waiting) and fails the
   * requests in flight; other nodes are not disturbed.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      connection.remove(endpoint);
      stopAuthentication();
    } finally {
      for (Call<?> call : deadlineOrder) {
        call.abort(closedFailure(call));
      }
      ready.complete(null);
      onClose.accept(this);
    }
  }

  @Override
  public String toString() {
    return "SpymemcachedNodeConnection["
        + node
        + ", "
        + protocol
        + (closed ? ", closed" : "")
        + "]";
  }

  // ---- plumbing ------------------------------------------------------------------------------

  /** A hash map's initial capacity for {@code n} entries at the default load factor. */
  private static int capacity(int n) {
    return Math.max(16, n * 4 / 3 + 1);
  }

  /** Issues one request: {@code issue} sends it and arranges for the call to complete. */
  private <T> CompletableFuture<T> single(String command, String key, Consumer<Call<T>> issue) {
    Call<T> call = new Call<>(command, key);
    if (begin(call)) {
      call.run(() -> issue.accept(call));
    }
    return call.result;
  }

  /** Fails the calls whose deadline passed; run every few milliseconds by the backend's timer. */
  void expireOverdue() {
    long now = System.nanoTime();
    Call<?> head;
    // Done calls leave too, not only overdue ones: replies mostly come in order, so the queue holds
    // about one sweep interval of calls instead of a whole timeout's worth of them (and of the
    // values they hold), which the collector would otherwise have to carry and promote.
    while ((head = deadlineOrder.peek()) != null
        && (head.result.isDone() || head.deadlineNanos - now <= 0)) {
      deadlineOrder.poll();
      if (!head.result.isDone()) {
        head.expire();
      }
    }
  }

  /**
   * Fails every call in flight: the server turned out to require SASL on a new connection, so
   * whatever is queued would only be refused. Cancelling them keeps spymemcached from writing
   * them.
   */
  private void failInFlight() {
    for (Call<?> call : deadlineOrder) {
      call.abort(saslRequirement.failure(call.describe()));
    }
  }

  /**
   * Registers the call and arms its deadline; false (with the call failed) when closed, when
   * connected but not authenticated, or when the server requires SASL and none is configured.
   */
  private boolean begin(Call<?> call) {
    if (!admissible(call)) {
      return false;
    }
    call.deadlineNanos = System.nanoTime() + operationTimeoutNanos;
    deadlineOrder.add(call);
    if (closed) {
      call.abort(closedFailure(call));
      return false;
    }
    return true;
  }

  /** False (with the call failed) when closed, or when SASL stands in the way of sending it. */
  private boolean admissible(Call<?> call) {
    if (closed) {
      call.abort(closedFailure(call));
      return false;
    }
    if (saslRequirement != null && !saslChecked.isDone() && server.isActive()) {
      call.abort(
          new MemcachedUnavailableException(
              call.describe()
                  + ": connected to "
                  + address()
                  + " but still checking whether the server requires SASL authentication",
              null));
      return false;
    }
    if (saslRequirement != null && saslRequirement.required()) {
      call.abort(saslRequirement.failure(call.describe()));
      saslRequirement.reprobeIfDue();
      return false;
    }
    if (sasl != null && server.isActive() && !sasl.authenticated()) {
      // spymemcached would block this thread for the authentication, then cancel the request.
      call.abort(
          sasl.refused()
              ? sasl.refusal(call.describe())
              : new MemcachedUnavailableException(
                  call.describe()
                      + ": connected to "
                      + address()
                      + " but SASL authentication is still in progress",
                  null));
      return false;
    }
    return true;
  }

  /**
   * Completes {@code call} from a spymemcached future once it is done, mapping value and status.
   */
  private <X, T> void bridge(Call<T> call, OperationFuture<X> future, ReplyMapper<X, T> mapper) {
    call.cancelWith(future);
    future.addListener(done -> call.complete(() -> mapper.map(future.get(), future.getStatus())));
  }

  /** Sends a no-key operation ({@code version}, {@code flush_all}) to the server. */
  private <T> void broadcast(
      Call<T> call, Function<OperationCallback, Operation> newOperation, BroadcastReply<T> reply) {
    // Broadcast operations are queued on a disconnected server instead of failing.
    if (!server.isActive()) {
      call.abort(notConnected(call, null));
      return;
    }
    client.broadcastOp(
        (memcachedNode, latch) -> {
          OperationStatus[] status = new OperationStatus[1];
          Operation[] operation = new Operation[1];
          operation[0] =
              newOperation.apply(
                  new OperationCallback() {
                    @Override
                    public void receivedStatus(OperationStatus received) {
                      status[0] = received;
                    }

                    @Override
                    public void complete() {
                      long repliedAt = System.nanoTime();
                      latch.countDown();
                      Operation op = operation[0];
                      try {
                        callbacks.execute(
                            () ->
                                call.complete(
                                    () -> {
                                      if (op.isCancelled()) {
                                        throw new ExecutionException(
                                            new CancellationException("Cancelled"));
                                      }
                                      if (op.hasErrored()) {
                                        throw new ExecutionException(op.getException());
                                      }
                                      if (status[0] == null || !status[0].isSuccess()) {
                                        throw errorReply(call, status[0]);
                                      }
                                      return reply.map(status[0], repliedAt);
                                    }));
                      } catch (RejectedExecutionException e) {
                        call.abort(closedFailure(call));
                      }
                    }
                  });
          call.cancelWith(operation[0]::cancel);
          return operation[0];
        },
        List.of(server));
  }

  private static boolean is(OperationStatus status, StatusCode... codes) {
    if (status == null) {
      return false;
    }
    for (StatusCode code : codes) {
      if (status.getStatusCode() == code) {
        return true;
      }
    }
    return false;
  }

  private Boolean foundOrMissing(Call<?> call, Boolean found, OperationStatus status) {
    if (Boolean.TRUE.equals(found)) {
      return true;
    }
    if (is(status, StatusCode.ERR_NOT_FOUND)) {
      return false;
    }
    throw errorReply(call, status);
  }

  private Long counterValue(Call<?> call, Long value, OperationStatus status) {
    if (status != null && status.isSuccess() && value != null) {
      return value;
    }
    throw errorReply(call, status);
  }

  private int exptime(Duration ttl) {
    return Expiry.exptime(ttl, System.currentTimeMillis() / 1000);
  }

  private void checkFlags(CachedValue value) {
    if (protocol == MemcachedProtocol.TEXT && value.flags() < 0) {
      throw new IllegalArgumentException(
          "flags must be in 0..2147483647 on the text protocol (spymemcached writes them as signed"
              + " decimals) but were 0x"
              + Integer.toHexString(value.flags())
              + "; use MemcachedProtocol.BINARY for full 32-bit flags");
    }
  }

  // ---- failures ------------------------------------------------------------------------------

  private String address() {
    return node.address();
  }

  private RuntimeException errorReply(Call<?> call, OperationStatus status) {
    if (status instanceof ErrorTolerantAsciiOperationFactory.UnparseableReply) {
      ErrorTolerantAsciiOperationFactory.UnparseableReply unparseable =
          (ErrorTolerantAsciiOperationFactory.UnparseableReply) status;
      return new MemcachedProtocolException(
          call.describe()
              + " on "
              + address()
              + ": cannot parse the reply '"
              + KeyRules.shorten(unparseable.line())
              + "'; expected "
              + unparseable.expected()
              + " (only this request failed; the connection is kept)",
          unparseable.line(),
          null);
    }
    String reply = status == null ? "no status" : status.getMessage();
    if (isAuthRefusal(reply)) {
      return authRequired(call, reply, null);
    }
    return new MemcachedServerErrorException(
        call.describe()
            + ": server replied "
            + reply
            + (status == null ? "" : " (" + status.getStatusCode() + ")"),
        reply,
        null);
  }

  /** memcached's answer to a command before (or without) SASL authentication: status 0x20. */
  private static boolean isAuthRefusal(String reply) {
    return reply != null && reply.contains("Auth failure");
  }

  /**
   * A command refused for want of authentication. With SASL on, requests wait for it (see {@link
   * #begin}), so this means it was refused. Without SASL the server requires it and none is
   * configured: memcached closes the connection after this reply, so the requests in flight behind
   * it fail too, with the same exception (see {@link #translate}), and no request is sent until a
   * probe finds that SASL is no longer required (see {@link SaslRequirement}).
   */
  private NodeAuthenticationException authRequired(Call<?> call, String reply, Throwable cause) {
    if (saslRequirement != null) {
      saslRequirement.refusedWith(reply);
      return saslRequirement.failure(call.describe());
    }
    return sasl.refused()
        ? sasl.refusal(call.describe())
        : new NodeAuthenticationException(
            node,
            call.describe()
                + " failed: the server requires SASL authentication and it has not succeeded ("
                + reply.trim()
                + ")",
            cause);
  }

  private MemcachedUnavailableException notConnected(Call<?> call, Throwable cause) {
    return new MemcachedUnavailableException(
        call.describe()
            + ": not connected to "
            + address()
            + " (the server is down or unreachable, or the connection was lost before the reply)",
        cause);
  }

  private MemcachedUnavailableException closedFailure(Call<?> call) {
    return new MemcachedUnavailableException(
        call.describe() + ": the connection to " + address() + " is closed", null);
  }

  /** The failure a spymemcached future reported, as a Shardwise exception. */
  private Throwable translate(Call<?> call, Throwable cause) {
    if (cause instanceof MemcachedException || cause instanceof NodeSecurityException) {
      return cause;
    }
    if (cause instanceof CancellationException) {
      if (closed) {
        return closedFailure(call);
      }
      // Lost with the connection that memcached closed after refusing an unauthenticated request.
      return saslRequirement != null && saslRequirement.required()
          ? saslRequirement.failure(call.describe())
          : notConnected(call, cause);
    }
    if (cause instanceof OperationException) {
      String reply = cause.getMessage() != null ? cause.getMessage() : cause.toString();
      if (isAuthRefusal(reply)) {
        return authRequired(call, reply, null);
      }
      return new MemcachedServerErrorException(
          call.describe() + ": server replied " + reply, reply, cause);
    }
    if (cause instanceof TimeoutException) {
      return call.timeout();
    }
    return new MemcachedUnavailableException(call.describe() + ": request failed: " + cause, cause);
  }

  /** A failure thrown while handing a request to spymemcached. */
  private Throwable translateIssueFailure(Call<?> call, RuntimeException e) {
    if (e instanceof IllegalArgumentException || e instanceof NullPointerException) {
      return e;
    }
    if (e instanceof IllegalStateException) {
      // "Shutting down", or the request queue is full ("Timed out waiting to add ...").
      if (closed) {
        return closedFailure(call);
      }
      String message = e.getMessage();
      return message != null && message.startsWith("Timed out waiting to add")
          ? new MemcachedQueueFullException(
              call.describe() + ": not sent: the queue of requests for " + address() + " is full", e)
          : new MemcachedUnavailableException(
              call.describe()
                  + ": could not queue the request for "
                  + address()
                  + ": "
                  + e.getMessage(),
              e);
    }
    return translate(call, e);
  }

  /** A batch failure of the same kind as {@code first}. */
  private Throwable summarize(Call<?> batch, String what, Throwable first) {
    String message = batch.describe() + ": " + what;
    if (first instanceof NodeSecurityException) {
      return new NodeAuthenticationException(node, message, first);
    }
    if (first instanceof MemcachedTimeoutException) {
      MemcachedTimeoutException timeout =
          new MemcachedTimeoutException(message, ((MemcachedTimeoutException) first).timeout());
      timeout.initCause(first);
      return timeout;
    }
    if (first instanceof MemcachedServerErrorException) {
      return new MemcachedServerErrorException(
          message, ((MemcachedServerErrorException) first).reply(), first);
    }
    return new MemcachedUnavailableException(message, first);
  }

  @FunctionalInterface
  private interface ReplyMapper<X, T> {
    T map(X value, OperationStatus status) throws Exception;
  }

  @FunctionalInterface
  private interface BroadcastReply<T> {
    T map(OperationStatus status, long repliedAtNanos);
  }

  @FunctionalInterface
  private interface Reply<T> {
    T get() throws Exception;
  }

  @FunctionalInterface
  private interface Step {
    void run() throws Exception;
  }

  /** One request in flight: the caller's future, its deadline, and how to cancel it. */
  private class Call<T> {
    final String command;
    final String key;
    final CompletableFuture<T> result = new CompletableFuture<>();
    volatile long deadlineNanos;
    private volatile Runnable canceller;

    /** The request's operation when the call sent it itself ({@link Direct}), else null. */
    volatile Operation operation;

    Call(String command, String key) {
      this.command = command;
      this.key = key;
    }

    String describe() {
      return key == null ? command : command + " '" + KeyRules.shorten(key) + "'";
    }

    void cancelWith(Future<?> future) {
      canceller = () -> future.cancel(false);
    }

    void cancelWith(Runnable cancel) {
      canceller = cancel;
    }

    /** Completes with the reply, or with the failure getting it raised. */
    void complete(Reply<T> reply) {
      execute(() -> result.complete(reply.get()), false);
    }

    /**
     * Runs a step of the call that may issue requests (the first, or a follow-up); a failure it
     * raises fails the call. Requests issued go to this connection's node.
     */
    void run(Step step) {
      execute(step, true);
    }

    private void execute(Step step, boolean issuing) {
      if (result.isDone()) {
        return;
      }
      MemcachedNode previous = issuing ? ChosenNodeLocator.issueOn(server) : null;
      try {
        step.run();
      } catch (ExecutionException e) {
        abort(translate(this, e.getCause()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        abort(translate(this, e));
      } catch (RuntimeException e) {
        abort(translateIssueFailure(this, e));
      } catch (Exception e) {
        abort(translate(this, e));
      } finally {
        if (issuing) {
          ChosenNodeLocator.restore(previous);
        }
      }
    }

    /** Fails the call (if still pending) and cancels what it left in spymemcached. */
    void abort(Throwable failure) {
      if (result.completeExceptionally(failure)) {
        cancelInSpymemcached();
      }
    }

    void cancelInSpymemcached() {
      Operation sent = operation;
      if (sent != null) {
        sent.cancel();
        return;
      }
      Runnable cancel = canceller;
      if (cancel != null) {
        try {
          cancel.run();
        } catch (RuntimeException e) {
          // the operation completed or was cancelled meanwhile
        }
      }
    }

    /**
     * The deadline passed. While the server requires SASL that is why: the request was queued
     * behind one that the server refused before closing the connection.
     */
    void expire() {
      abort(
          saslRequirement != null && saslRequirement.required()
              ? saslRequirement.failure(describe())
              : timeout());
    }

    MemcachedTimeoutException timeout() {
      return new MemcachedTimeoutException(
          describe()
              + ": no reply from "
              + address()
              + " within "
              + operationTimeout.toMillis()
              + " ms",
          operationTimeout);
    }

    /** The failure of a completed call, or null if it succeeded. */
    Throwable failure() {
      try {
        result.join();
        return null;
      } catch (java.util.concurrent.CompletionException e) {
        return e.getCause();
      } catch (CancellationException e) {
        return e;
      }
    }
  }

  /**
   * A single-key request that is its own spymemcached callback. Its operation is built by the
   * operation factory and queued on this connection's node directly, so nothing stands between the
   * reply and the caller's future: spymemcached's {@code asyncGet} and {@code set} would add a
   * future, a latch, a callback and (here) a listener per request, and look the node up by key.
   * The callbacks run on the I/O thread (or on the thread that cancels the operation).
   */
  private abstract class Direct<T> extends Call<T> implements OperationCallback {
    private OperationStatus status;

    Direct(String command, String key) {
      super(command, key);
    }

    /**
     * Queues {@code op} on the node. As {@link NodeConnection} says, keys reach here validated by
     * the routing client (with {@link MemcachedProtocol#keyRules()}), so spymemcached's own key
     * check is not repeated. A request for a node that is disconnected is cancelled, as
     * spymemcached does with {@code FailureMode.Cancel}, and fails as not connected.
     */
    final void send(Operation op) {
      operation = op;
      try {
        if (!server.isActive()) {
          op.cancel();
          return;
        }
        connection.send(server, op);
      } catch (RuntimeException e) {
        abort(translateIssueFailure(this, e));
      }
    }

    @Override
    public final void receivedStatus(OperationStatus received) {
      status = received;
    }

    /** Checked in the order of spymemcached's {@code OperationFuture.get}. */
    @Override
    public final void complete() {
      Operation op = operation;
      if (op.hasErrored()) {
        abort(translate(this, op.getException()));
      } else if (op.isCancelled()) {
        abort(translate(this, new CancellationException("Cancelled")));
      } else if (op.isTimedOut()) {
        abort(timeout());
      } else {
        try {
          result.complete(reply(status));
        } catch (RuntimeException e) {
          abort(translateIssueFailure(this, e));
        }
      }
    }

    /** The result for the status the server sent (null if none came), or the failure thrown. */
    abstract T reply(OperationStatus status);
  }

  private final class Read extends Direct<CachedValue> implements GetOperation.Callback {
    private CachedValue value;

    Read(String key) {
      super("get", key);
    }

    @Override
    public void gotData(String receivedKey, int flags, byte[] data) {
      value = CachedValue.of(data, flags);
    }

    /** The value, or null for a miss; as for spymemcached's {@code asyncGet}, whatever the status. */
    @Override
    CachedValue reply(OperationStatus status) {
      return value;
    }
  }

  private abstract class StoreCall<T> extends Direct<T> implements StoreOperation.Callback {
    StoreCall(String command, String key) {
      super(command, key);
    }

    @Override
    public void gotData(String receivedKey, long cas) {
      // the CAS of the stored item: not used
    }
  }

  private final class Store extends StoreCall<Void> {
    Store(String key) {
      super("set", key);
    }

    @Override
    Void reply(OperationStatus status) {
      if (status != null && status.isSuccess()) {
        return null;
      }
      throw errorReply(this, status);
    }
  }

  private final class Add extends StoreCall<Boolean> {
    Add(String key) {
      super("add", key);
    }

    @Override
    Boolean reply(OperationStatus status) {
      if (status != null && status.isSuccess()) {
        return true;
      }
      if (is(status, StatusCode.ERR_NOT_STORED, StatusCode.ERR_EXISTS)) {
        return false;
      }
      throw errorReply(this, status);
    }
  }

  private final class Delete extends Direct<Boolean> implements DeleteOperation.Callback {
    Delete(String key) {
      super("delete", key);
    }

    @Override
    public void gotData(long cas) {
      // the CAS of the deleted item: not used
    }

    @Override
    Boolean reply(OperationStatus status) {
      return foundOrMissing(this, status != null && status.isSuccess(), status);
    }
  }

  private final class RemainingTtl extends Direct<Duration> {
    RemainingTtl(String key) {
      super("mg", key);
    }

    @Override
    Duration reply(OperationStatus status) {
      Duration left = MetaTtlOperation.remaining(status == null ? null : status.getMessage());
      if (left == null) {
        metaCommands = false; // an error: not asked again
        return null;
      }
      return left == MetaTtlOperation.ABSENT ? null : left;
    }
  }

  private final class Stats extends Direct<ServerRun> implements StatsOperation.Callback {
    private final Map<String, String> stats = new HashMap<>();

    Stats() {
      super("stats", null);
    }

    @Override
    public void gotStat(String name, String value) {
      stats.put(name, value);
    }

    @Override
    ServerRun reply(OperationStatus status) {
      return runOf(stats);
    }
  }

  /** The run that {@code stats} describe, or null if a field it needs is missing or malformed. */
  static ServerRun runOf(Map<String, String> stats) {
    try {
      String pid = stats.get("pid");
      long started = Long.parseLong(stats.get("time")) - Long.parseLong(stats.get("uptime"));
      long items = Long.parseLong(stats.get("curr_items"));
      String flushes = stats.getOrDefault("cmd_flush", "0");
      if (pid == null || items < 0) {
        return null;
      }
      return new ServerRun("pid " + pid + ", started " + started + ", flushes " + flushes, items);
    } catch (RuntimeException e) { // a field absent (null) or not a number
      return null;
    }
  }

  private final class Touch extends Direct<Boolean> {
    Touch(String key) {
      super("touch", key);
    }

    @Override
    Boolean reply(OperationStatus status) {
      return foundOrMissing(this, status != null && status.isSuccess(), status);
    }
  }

  /** Requests sent together under one deadline; the batch completes once every part has. */
  private final class Batch<T> extends Call<T> {
    final List<Call<?>> children = new ArrayList<>();

    Batch(String command) {
      super(command, null);
    }

    /** Runs {@code onDone} once every child completed (they must all be added before). */
    void whenChildrenDone(Runnable onDone) {
      AtomicInteger remaining = new AtomicInteger(children.size());
      for (Call<?> child : children) {
        child.result.whenComplete(
            (value, failure) -> {
              if (remaining.decrementAndGet() == 0 && !result.isDone()) {
                onDone.run();
              }
            });
      }
    }

    @Override
    void expire() {
      for (Call<?> child : children) {
        child.expire();
      }
    }

    @Override
    void cancelInSpymemcached() {
      for (Call<?> child : children) {
        child.cancelInSpymemcached();
      }
    }
  }
}
