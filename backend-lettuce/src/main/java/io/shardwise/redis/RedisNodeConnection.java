package io.shardwise.redis;

import io.lettuce.core.ConnectionFuture;
import io.lettuce.core.FlushMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.output.ValueOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.resource.Delay;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.ScheduledFuture;
import io.shardwise.client.CachedValue;
import io.shardwise.client.NodeSecurityException;
import io.shardwise.routing.Node;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.Invalidations;
import io.shardwise.spi.NodeConnection;
import io.shardwise.spi.ServerRun;
import java.nio.channels.ClosedChannelException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node: a single multiplexed Lettuce connection that every request shares.
 *
 * <p>The connection is made in the background, and made again in the background after a loss:
 * attempts repeat with the backend's reconnect delay, and meanwhile requests fail at once with
 * {@link RedisUnavailableException} instead of waiting in a buffer. {@link #ping()} is the
 * exception: while disconnected it makes the next attempt at once (sharing one already under way)
 * and sends {@code PING} if it succeeds, so that a probe of a server that is back succeeds
 * whatever the reconnect delay has grown to. Before the first connection (and after a connection
 * closed by its own handshake timeout), requests do the same as long as no attempt said anything
 * against the server (none ended yet, or the last one ran out the connect timeout, as attempts of
 * a process stopped or starved while it starts do): a slow start of this client does not fail
 * requests to a server that answers, nor get it ejected. A refused first attempt fails requests
 * at once.
 *
 * <p>Batches ({@link #setMulti}, {@link #deleteMulti}, the {@code PERSIST}+{@code EXISTS} of {@link
 * #touch} without expiry) are handed to Lettuce in one {@code dispatch(Collection)} call, which
 * writes and flushes them together: one write, one round trip, and no toggling of the shared
 * connection's auto-flush, which would hold back other threads' requests meanwhile.
 *
 * <p>Security failures (wrong credentials, no permission, TLS problems; see {@link
 * RedisSecurityDiagnosis}) are no node failures: requests fail at once with a {@link
 * NodeSecurityException} while the node refuses this client, the cause is logged once at ERROR,
 * and connection attempts slow down to the longest reconnect delay instead of retrying quickly. A
 * failed attempt that may hide a TLS mismatch is probed on a thread of its own, beside the next
 * attempt, which does not wait for it; {@link #ready()} does, unless the node connects first.
 *
 * <p>Futures complete on a Lettuce I/O thread: callers must not block in their callbacks.
 */
final class RedisNodeConnection implements NodeConnection {

  private static final Logger log = LoggerFactory.getLogger(RedisNodeConnection.class);

  private static final ByteArrayCodec CODEC = ByteArrayCodec.INSTANCE;

  /** The {@code PX} of {@code SET key value PX milliseconds}. */
  private static final byte[] PX = {'P', 'X'};

  /** While the server stays down, warn at most this often (debug otherwise). */
  private static final long STILL_DOWN_WARN_NANOS = TimeUnit.MINUTES.toNanos(1);

  /**
   * Shortest time between the starts of two attempts when {@link #ping()} brings one forward:
   * callers that ping in a loop get one attempt per 100 ms, not one per call.
   */
  private static final long MIN_ATTEMPT_SPACING_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /**
   * The attempt number whose reconnect delay follows a security failure: high enough for the
   * longest delay, since a configuration error does not go away in 100 ms.
   */
  private static final int SECURITY_RETRY_ATTEMPT = 30;

  /** Attempts whose outcome Lettuce lost that are made again at once, before the usual delay. */
  private static final int MAX_LOST_OUTCOME_RETRIES = 3;

  /**
   * The longest handshake timeout, as a multiple of the connect timeout, of an attempt that
   * follows attempts that ran out their time while the server answered (see {@link
   * #checkAnswer}): each such attempt doubles it.
   */
  static final int MAX_ATTEMPT_TIMEOUT_FACTOR = 4;

  private final Node node;
  private final String server;
  private final RedisClient client;
  private final RedisURI uri;
  private final Duration commandTimeout;
  /** Bounds an attempt: the TCP connect and the handshake (the URI's timeout). */
  private final Duration connectTimeout;
  private final Delay connectDelay;
  private final EventExecutorGroup scheduler;
  private final RedisSecurityDiagnosis security;
  private final Executor diagnosis;
  /**
   * Told of the server's invalidations of the keys read on this node's connections, and of each
   * connection lost or replaced; null when reads are not tracked (see {@link #track}).
   */
  private final Invalidations tracking;
  private final CompletableFuture<Void> closeFuture = new CompletableFuture<>();
  /** Completes when the first connection attempt has finished, either way. */
  private final CompletableFuture<Void> firstAttempt = new CompletableFuture<>();

  private final AtomicInteger attempts = new AtomicInteger();
  /** Attempts in a row whose outcome Lettuce lost (see {@link #isOutcomeLost}). */
  private final AtomicInteger lostOutcomes = new AtomicInteger();
  /** The connection while it is up (or lost a moment ago, not yet noticed); else null. */
  private volatile StatefulRedisConnection<byte[], byte[]> connection;
  private volatile Throwable lastConnectFailure;
  /** Why the node refuses this client, while it does; null once connected. */
  private volatile SecurityFailure securityFailure;
  private volatile boolean everConnected;
  /** Whether the last connection was closed by its own handshake timeout (see {@link #onDisconnected}). */
  private volatile boolean closedAtItsTimeout;
  private volatile boolean closed;

  // guarded by this
  private SecurityFailure loggedSecurityFailure;
  /** Whether a probe of a possible TLS mismatch is under way (see {@link #diagnose}). */
  private boolean diagnosing;
  /** Whether a check that the server answers is under way (see {@link #checkAnswer}). */
  private boolean checkingAnswer;
  /** The connection, if its attempt ran past the connect timeout (see {@link #onDisconnected}). */
  private StatefulRedisConnection<byte[], byte[]> lateConnection;
  private long connectedAtNanos;
  private ScheduledFuture<?> pendingAttempt;
  /** The attempt under way, completed when it has ended; null if none is. */
  private CompletableFuture<Void> attemptInFlight;
  /** Completes when the attempt under way, or the next one, has finished; null if none waits. */
  private CompletableFuture<Void> attemptWaiters;
  private long lastAttemptNanos;
  /**
   * The handshake timeout of the next attempt: the connect timeout, doubled after each attempt
   * that ran out its time while the server answered, up to {@link #MAX_ATTEMPT_TIMEOUT_FACTOR}
   * times it; back to the connect timeout once connected or once the server did not answer.
   */
  private long attemptTimeoutNanos;
  /** Failed attempts since the connection was last up: sets the next delay. */
  private int failedInARow;
  /** When the connection was lost; 0 while up or before the first connection. Read unguarded. */
  private volatile long downSinceNanos;
  private long lastWarnNanos;
  /** Whether this outage was reported at WARN, so that its end is reported at INFO. */
  private boolean outageWarned;
  /** Whether a refusal to track the reads was logged since the connection was last up. */
  private boolean refusalWarned;

  RedisNodeConnection(
      Node node,
      RedisClient client,
      RedisURI uri,
      Duration commandTimeout,
      Delay connectDelay,
      EventExecutorGroup scheduler,
      RedisSecurityDiagnosis security,
      Executor diagnosis,
      Invalidations tracking) {
    this.node = node;
    this.tracking = tracking;
    this.server = "redis " + node.address();
    this.client = client;
    this.uri = uri;
    this.commandTimeout = commandTimeout;
    this.connectTimeout = uri.getTimeout();
    this.connectDelay = connectDelay;
    this.scheduler = scheduler;
    this.security = security;
    this.diagnosis = diagnosis;
    long now = System.nanoTime();
    this.lastAttemptNanos = now - MIN_ATTEMPT_SPACING_NANOS;
    this.lastWarnNanos = now - STILL_DOWN_WARN_NANOS;
    this.attemptTimeoutNanos = connectTimeout.toNanos();
  }

  // ---- connecting ----------------------------------------------------------------------------
  //
  // This class reconnects by itself (the backend turns Lettuce's autoReconnect off). Lettuce's
  // ConnectionWatchdog puts each reconnection attempt on a timer with the next backoff delay and
  // has no public way to bring a scheduled attempt forward: after an outage of some seconds the
  // delay has grown to 5-10 s, so a server that is back waits up to 10 s for the next attempt,
  // and until then every probe of it fails at once ("Currently not connected") without doing
  // anything. That, plus the probe interval, is why a restarted Redis took 8-16 s to be
  // readmitted. A lower ceiling on the delay would shorten the wait but not remove it, and would
  // cost more connection attempts to a dead server, each one logged by the watchdog (an INFO and
  // a WARN line every 5 s per connection). Here ping() while disconnected brings the next attempt
  // forward and waits for it, so the first probe after the server's return succeeds; other
  // requests still fail at once. At most one attempt is under way at any time (callers share it),
  // those brought forward start at least MIN_ATTEMPT_SPACING_NANOS apart, and the background
  // attempts keep the backoff delay. The log gets one WARN when the connection is lost or the
  // first attempt fails, at most one a minute while the server stays down, one INFO when it is
  // back, and DEBUG for each attempt.

  /** Starts connecting in the background; never throws because the server is down. */
  void start() {
    attemptConnect();
  }

  /**
   * Makes a connection attempt now, unless one is under way, the connection is up, or the
   * connection is closed (then it completes whoever waits for an attempt).
   */
  private void attemptConnect() {
    int attempt;
    long timeoutNanos;
    CompletableFuture<Void> waiting = null;
    synchronized (this) {
      timeoutNanos = attemptTimeoutNanos;
      if (attemptInFlight != null) {
        return;
      }
      if (pendingAttempt != null) {
        pendingAttempt.cancel(false);
        pendingAttempt = null;
      }
      if (closed || isConnected()) {
        waiting = takeWaiters();
        attempt = 0;
      } else {
        attemptInFlight = new CompletableFuture<>();
        lastAttemptNanos = System.nanoTime();
        attempt = attempts.incrementAndGet();
      }
    }
    if (attempt == 0) {
      complete(waiting);
      return;
    }
    long started = System.nanoTime();
    ConnectionFuture<StatefulRedisConnection<byte[], byte[]>> future;
    try {
      future =
          client.connectAsync(
              CODEC,
              timeoutNanos == connectTimeout.toNanos()
                  ? uri
                  : RedisURI.builder(uri).withTimeout(Duration.ofNanos(timeoutNanos)).build());
    } catch (RuntimeException e) {
      onConnectFailure(attempt, started, e);
      return;
    }
    future.whenComplete(
        (c, t) -> {
          if (t != null) {
            onConnectFailure(attempt, started, trackingRefused(t));
            return;
          }
          track(c).whenComplete(
              (x, refused) -> {
                if (refused != null) {
                  c.closeAsync();
                  onConnectFailure(attempt, started, refused);
                } else if (System.nanoTime() - started >= connectTimeout.toNanos()) {
                  confirmLate(attempt, started, c);
                } else {
                  onConnected(attempt, started, c);
                }
              });
        });
  }

  /**
   * With reads tracked: listens for the server's invalidations on {@code c}, then turns tracking
   * on, before {@code c} serves any request, so that every key read on it is tracked. Default mode
   * (the server remembers the keys this connection read; BCAST would send every write of the
   * fleet's keys to every process), without NOLOOP (this client's own writes come back as
   * invalidations too, after their replies: one more drop of an entry the write dropped already)
   * and without REDIRECT (a second connection, whose loss would have to be watched as well, and
   * whose notices would come out of order with this connection's replies). The notices come in
   * order with the replies, on the connection's I/O thread, before the reply that follows them
   * completes its command. Fails with the reason if the server refuses (an error reply), and as the
   * attempt would otherwise if the command times out or the connection is lost.
   */
  private CompletableFuture<Void> track(StatefulRedisConnection<byte[], byte[]> c) {
    if (tracking == null) {
      return CompletableFuture.completedFuture(null);
    }
    c.addListener(this::onPush);
    CompletableFuture<String> on;
    try {
      on = c.async().clientTracking(TrackingArgs.Builder.enabled()).toCompletableFuture();
    } catch (RuntimeException e) {
      on = CompletableFuture.failedFuture(e);
    }
    return on.handle(
        (reply, t) -> {
          if (t == null) {
            return null;
          }
          Throwable cause = RedisFailures.unwrap(t);
          // An error reply is a refusal; a timeout or a lost connection fails the attempt as such.
          throw new CompletionException(
              cause instanceof RedisCommandExecutionException
                  ? refusedTracking(cause, "it answered CLIENT TRACKING ON with " + describe(cause))
                  : cause);
        });
  }

  /**
   * A failed attempt of a tracked connection whose handshake the server refused for want of RESP3
   * with an error reply ({@code HELLO} unknown, or {@code NOPROTO}): as the failure of tracking that
   * it is; others as they are (a connection closed in reply to {@code HELLO}: see {@link
   * #mayBeClosedOnHello}).
   */
  private Throwable trackingRefused(Throwable failure) {
    if (tracking == null) {
      return failure;
    }
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      String m = t.getMessage();
      if (m != null && (m.contains("NOPROTO") || m.contains("unknown command 'HELLO'") || m.contains("unknown command `HELLO`"))) {
        return refusedTracking(t, "it answered HELLO 3 with " + describe(t));
      }
    }
    return failure;
  }

  /**
   * The failure of an attempt whose server answers but refused to track the reads: it names the
   * server, the near cache, the rule and the fix. {@code how} says what the server did.
   */
  private RedisTrackingException refusedTracking(Throwable cause, String how) {
    return new RedisTrackingException(
        server
            + ": the near cache is on, and it needs this server to track the client's reads (RESP3"
            + " and CLIENT TRACKING: Redis 6 or later, reached directly, not through a proxy such"
            + " as twemproxy); the server refused: "
            + how
            + ". Turn the near cache off for this fleet (shardwise.near-cache.enabled=false, or no"
            + " nearCache on the builder)",
        cause);
  }

  /**
   * Whether a failed attempt of a tracked connection may be a server that refused RESP3 by closing
   * the connection without a reply, as twemproxy does on {@code HELLO}: Lettuce then reports the
   * connection closed during the handshake (or, when it lost the outcome, only that its handshake
   * handler is gone). {@link #checkClosedOnHello} tells it from a server that went away.
   */
  private boolean mayBeClosedOnHello(Throwable cause) {
    if (tracking == null || cause instanceof RedisTrackingException) {
      return false;
    }
    if (isOutcomeLost(cause)) {
      return true;
    }
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ClosedChannelException
          || (t instanceof RedisConnectionException
              && t.getMessage() != null
              && t.getMessage().contains("closed prematurely"))) {
        return true;
      }
    }
    return false;
  }

  /**
   * After a tracked connection's handshake was closed: asks the server, on a socket of its own and a
   * thread of the diagnosis pool, whether it answers a RESP2 {@code PING} ({@link
   * RedisSecurityDiagnosis#answersRespPing}). If it does, it closed the connection in reply to {@code
   * HELLO 3}, and the attempt fails as a refusal to track; if not, as it failed. The attempt stays
   * under way meanwhile (the probe takes at most the connect timeout).
   */
  private void checkClosedOnHello(int attempt, long tookNanos, Throwable cause) {
    try {
      diagnosis.execute(
          () -> {
            boolean answers = false;
            try {
              answers = !closed && security.answersRespPing();
            } finally {
              afterFailedAttempt(
                  attempt,
                  tookNanos,
                  answers
                      ? refusedTracking(
                          cause,
                          "it closed the connection in reply to HELLO 3 (RESP3), and answers a"
                              + " RESP2 PING")
                      : cause);
            }
          });
    } catch (RejectedExecutionException e) {
      afterFailedAttempt(attempt, tookNanos, cause); // the backend is closing: no probe
    }
  }

  /** A push message on a tracked connection: the server's invalidations. */
  private void onPush(PushMessage message) {
    if (!"invalidate".equals(message.getType())) {
      return;
    }
    List<Object> content = message.getContent(b -> StandardCharsets.UTF_8.decode(b).toString());
    Object keys = content.size() > 1 ? content.get(1) : null;
    if (keys instanceof List<?> list) {
      List<String> names = new ArrayList<>(list.size());
      for (Object k : list) {
        names.add(String.valueOf(k));
      }
      tracking.keys(names);
    } else {
      tracking.all("flush"); // a null list: the server flushed its data
    }
  }

  /**
   * A connection made past the connect timeout is taken only once a {@code PING} on it is
   * answered and its channel is still open: when a process stopped or starved while connecting
   * runs again, Lettuce's handshake may complete the connection while its handshake timeout closes
   * the channel, and requests sent in between would fail as "connection closed" and count against
   * a server that answers. Requests wait for this attempt meanwhile; a connection that does not
   * pass ends the attempt as one that ran out its time.
   */
  private void confirmLate(int attempt, long started, StatefulRedisConnection<byte[], byte[]> c) {
    CompletableFuture<String> pong;
    try {
      pong = c.async().ping().toCompletableFuture();
    } catch (RuntimeException e) {
      pong = CompletableFuture.failedFuture(e);
    }
    pong.whenComplete(
        (reply, t) -> {
          if (t == null && c.isOpen()) {
            onConnected(attempt, started, c);
            return;
          }
          c.closeAsync();
          onConnectFailure(
              attempt,
              started,
              t != null
                  ? t
                  : new RedisTimeoutException(
                      server
                          + ": a connection made past the connect timeout was closed by its"
                          + " handshake timeout",
                      null));
        });
  }

  /**
   * A future that completes once the attempt under way, or else the next one, has finished; the
   * next one is brought forward to now, or to {@link #MIN_ATTEMPT_SPACING_NANOS} after the last
   * one started. Not while a check that the server answers is under way ({@link #checkAnswer}): its
   * verdict starts the next attempt at once with a longer timeout, or lets the waiting requests go.
   * An attempt brought forward before the verdict would have the timeout that just ran out, and run
   * out again (seen under load: three attempts where two do).
   */
  private CompletableFuture<Void> nextAttempt() {
    CompletableFuture<Void> done;
    boolean now = false;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.completedFuture(null);
      }
      if (attemptWaiters == null) {
        attemptWaiters = new CompletableFuture<>();
      }
      done = attemptWaiters;
      if (attemptInFlight == null && !checkingAnswer) {
        long wait = lastAttemptNanos + MIN_ATTEMPT_SPACING_NANOS - System.nanoTime();
        if (wait <= 0) {
          now = true;
        } else if (pendingAttempt == null || pendingAttempt.getDelay(TimeUnit.NANOSECONDS) > wait) {
          if (pendingAttempt != null) {
            pendingAttempt.cancel(false);
          }
          pendingAttempt = schedule(wait);
          if (pendingAttempt == null) {
            now = true; // the scheduler is shut down: attemptConnect() completes the waiters
          }
        }
      }
    }
    if (now) {
      attemptConnect();
    }
    return done;
  }

  private void onConnected(int attempt, long startedNanos, StatefulRedisConnection<byte[], byte[]> c) {
    boolean accepted;
    StatefulRedisConnection<byte[], byte[]> previous = null;
    CompletableFuture<Void> waiting;
    long downNanos = 0;
    boolean reportBack;
    CompletableFuture<Void> ended;
    synchronized (this) {
      ended = attemptInFlight;
      attemptInFlight = null;
      accepted = !closed;
      if (accepted) {
        previous = connection;
        connection = c;
        long now = System.nanoTime();
        lateConnection = now - startedNanos >= connectTimeout.toNanos() ? c : null;
        connectedAtNanos = now;
        if (pendingAttempt != null) {
          pendingAttempt.cancel(false);
          pendingAttempt = null;
        }
        failedInARow = 0;
        attemptTimeoutNanos = connectTimeout.toNanos();
        if (downSinceNanos != 0) {
          downNanos = System.nanoTime() - downSinceNanos;
        }
        downSinceNanos = 0;
      }
      reportBack = outageWarned;
      outageWarned = false;
      refusalWarned = false;
      waiting = takeWaiters();
    }
    firstAttempt.complete(null);
    if (!accepted) {
      // Closed while connecting: close() waits for this too.
      c.closeAsync().whenComplete((ignored, t) -> complete(ended));
      complete(waiting);
      return;
    }
    complete(ended);
    if (previous != null && previous != c) {
      previous.closeAsync(); // lost, and its loss not handled yet
    }
    if (tracking != null && (everConnected || previous != null)) {
      // The notices of the keys read on the connection before were lost with it.
      tracking.all("reconnected");
    }
    lostOutcomes.set(0);
    if (connectDelay instanceof Delay.StatefulDelay) {
      ((Delay.StatefulDelay) connectDelay).reset();
    }
    lastConnectFailure = null;
    securityFailure = null;
    closedAtItsTimeout = false;
    everConnected = true;
    if (clearLoggedSecurityFailure()) {
      log.info(
          "{}: connected after {} attempts; the node accepts this client again", server, attempt);
    } else if (reportBack && downNanos != 0) {
      log.info(
          "{}: reconnected after {} ms down (attempt {})",
          server,
          TimeUnit.NANOSECONDS.toMillis(downNanos),
          attempt);
    } else if (reportBack) {
      log.info("{}: connected after {} attempts", server, attempt);
    } else {
      log.debug("{}: connected (attempt {})", server, attempt);
    }
    complete(waiting);
    if (!c.isOpen()) {
      onDisconnected(c); // lost before it was taken: Lettuce's notice was ignored
    }
  }

  /**
   * Lettuce saw a connection of this backend's client go inactive (called by the backend for each
   * such event): if it is this node's current connection, requests fail from now on and the
   * background attempts start again.
   *
   * <p>Except for a connection made late (its attempt ran past the connect timeout) and lost
   * within a connect timeout of being made: Lettuce's handshake timeout runs on another thread
   * than the handshake, and when a process stopped or starved while connecting runs again, both
   * can proceed, the handshake completing the connection and the timeout closing its channel
   * (seen in 4 of 5 connections of a client stopped 1 s in every 1.2 s while it started). That
   * says nothing against the server: the next attempt is made at once, and requests wait for it as
   * before a first connection.
   */
  void onDisconnected(Object lettuceConnection) {
    StatefulRedisConnection<byte[], byte[]> lost;
    boolean warn;
    boolean atItsTimeout;
    synchronized (this) {
      if (closed || lettuceConnection != connection || connection == null) {
        return;
      }
      lost = connection;
      connection = null;
      long now = System.nanoTime();
      atItsTimeout = lost == lateConnection && now - connectedAtNanos < connectTimeout.toNanos();
      closedAtItsTimeout = atItsTimeout;
      downSinceNanos = now;
      failedInARow = 0;
      warn = !atItsTimeout && now - lastWarnNanos >= STILL_DOWN_WARN_NANOS;
      if (warn) {
        lastWarnNanos = now;
        outageWarned = true;
      }
      if (attemptInFlight == null && pendingAttempt == null) {
        pendingAttempt = schedule(atItsTimeout ? 0 : connectDelay.createDelay(1).toNanos());
      }
    }
    lost.closeAsync();
    if (tracking != null) {
      tracking.all("connection lost"); // the notices of the keys read on it would be lost
    }
    if (atItsTimeout) {
      log.info(
          "{}: a connection made past the connect timeout ({} ms; this process was stopped or"
              + " starved while connecting) was closed as soon as it was made, by the handshake's"
              + " timeout; reconnecting at once",
          server,
          connectTimeout.toMillis());
    } else if (warn) {
      log.warn(
          "{}: connection lost; requests fail until it is back, reconnecting in the background",
          server);
    } else {
      log.debug("{}: connection lost again; reconnecting in the background", server);
    }
  }

  private void onConnectFailure(int attempt, long startedNanos, Throwable failure) {
    Throwable cause = RedisFailures.unwrap(failure);
    if (isOutcomeLost(cause) && lostOutcomes.getAndIncrement() < MAX_LOST_OUTCOME_RETRIES) {
      // Try again at once: the next attempt usually tells what the handshake met.
      CompletableFuture<Void> ended;
      synchronized (this) {
        ended = attemptInFlight;
        attemptInFlight = null;
      }
      complete(ended);
      log.debug(
          "{}: attempt {} ended before its handshake could be read; trying again", server, attempt);
      attemptConnect();
      return;
    }
    lostOutcomes.set(0);
    long tookNanos = System.nanoTime() - startedNanos;
    if (tookNanos < connectTimeout.toNanos() && mayBeClosedOnHello(cause)) {
      checkClosedOnHello(attempt, tookNanos, cause);
      return;
    }
    afterFailedAttempt(attempt, tookNanos, cause);
  }

  /** A failed attempt that took {@code tookNanos}, its lost outcome retried and its cause known. */
  private void afterFailedAttempt(int attempt, long tookNanos, Throwable cause) {
    Throwable recorded = lateAsTimeout(attempt, tookNanos, cause);
    lastConnectFailure = recorded;
    SecurityFailure found = security.ofConnectFailure(cause);
    boolean diagnosing =
        found == null
            && !(cause instanceof RedisTrackingException)
            && security.mayBeTlsMismatch(cause)
            && diagnose(attempt, recorded);
    boolean check = found == null && recorded instanceof RedisTimeoutException && awaitsConnection();
    afterConnectFailure(attempt, tookNanos, recorded, found, diagnosing, check);
  }

  /**
   * After an attempt that ran out its time while requests wait for a connection: asks the server
   * directly, on a thread of the diagnosis pool, whether it answers a {@code PING} (see {@link
   * RedisSecurityDiagnosis#answersPing}). Requests keep waiting meanwhile. If it answers, the
   * attempt ran out because this process was too slow to finish the handshake in time (stopped,
   * or starved of CPU): the next attempt is made at once with twice the handshake timeout (up to
   * {@link #MAX_ATTEMPT_TIMEOUT_FACTOR} times the connect timeout), and requests wait for it. If
   * not, or once an attempt with the longest timeout ran out too, the requests are let go and fail
   * as not connected; so they are if no check can be started (the backend is closing).
   *
   * <p>Started by {@link #afterConnectFailure} once the attempt that ran out is no longer under
   * way: a verdict that came while it still was would bring no attempt forward, and the requests
   * would wait for the background attempt, a reconnect delay later (seen under load: a request
   * waited past 30 s).
   */
  private void checkAnswer(int attempt, long tookNanos) {
    try {
      diagnosis.execute(
          () -> {
            boolean answered = false;
            try {
              answered = !closed && security.answersPing();
            } finally {
              afterAnswerCheck(attempt, tookNanos, answered);
            }
          });
    } catch (RejectedExecutionException e) {
      CompletableFuture<Void> waiting;
      synchronized (this) {
        checkingAnswer = false;
        waiting = takeWaiters();
      }
      complete(waiting);
    }
  }

  /** The verdict of {@link #checkAnswer}. */
  private void afterAnswerCheck(int attempt, long tookNanos, boolean answered) {
    CompletableFuture<Void> waiting = null;
    long nextTimeoutNanos = 0;
    synchronized (this) {
      checkingAnswer = false;
      if (closed || connection != null) {
        return; // close() or onConnected() let the requests go
      }
      long longest = connectTimeout.toNanos() * MAX_ATTEMPT_TIMEOUT_FACTOR;
      if (answered && attemptTimeoutNanos < longest) {
        attemptTimeoutNanos = Math.min(longest, 2 * attemptTimeoutNanos);
        nextTimeoutNanos = attemptTimeoutNanos;
      } else {
        attemptTimeoutNanos = connectTimeout.toNanos();
        waiting = takeWaiters();
      }
    }
    if (nextTimeoutNanos != 0) {
      log.info(
          "{}: connection attempt {} ran out its time ({} ms) while the server answers a PING:"
              + " this process was too slow to finish the handshake (stopped or starved);"
              + " reconnecting at once with a handshake timeout of {} ms, requests wait for it",
          server,
          attempt,
          TimeUnit.NANOSECONDS.toMillis(tookNanos),
          TimeUnit.NANOSECONDS.toMillis(nextTimeoutNanos));
      attemptConnect();
    }
    complete(waiting);
  }

  /**
   * An attempt that ended after the connect timeout had passed as a {@link RedisTimeoutException}:
   * Lettuce closed its channel at the timeout, and the failure that reached the connect future
   * first may be that close ({@code ClosedChannelException}) rather than the timeout. A process
   * stopped or starved during the attempt makes it run out the same way, so it says nothing
   * against the server. Other failures as they are.
   */
  private Throwable lateAsTimeout(int attempt, long tookNanos, Throwable cause) {
    if (tookNanos < connectTimeout.toNanos() || cause instanceof RedisTrackingException) {
      return cause;
    }
    return new RedisTimeoutException(
        server
            + ": connection attempt "
            + attempt
            + " ended after "
            + TimeUnit.NANOSECONDS.toMillis(tookNanos)
            + " ms, past the connect timeout of "
            + connectTimeout.toMillis()
            + " ms ("
            + describe(cause)
            + ")",
        cause);
  }

  /**
   * Starts confirming whether {@code cause} hides a TLS mismatch, with a probe that blocks a thread
   * of the backend's diagnosis pool for at most the connect timeout; returns false if it cannot
   * (the backend is closing). The next attempt does not wait for it, nor does any other node's
   * diagnosis: at most one probe per node runs at a time, each on a thread of its own. True also
   * when a probe of an earlier attempt is still under way: that one reports.
   */
  private boolean diagnose(int attempt, Throwable cause) {
    synchronized (this) {
      if (closed) {
        return false;
      }
      if (diagnosing) {
        return true;
      }
      diagnosing = true;
    }
    try {
      diagnosis.execute(
          () -> {
            SecurityFailure found = null;
            try {
              found = closed ? null : security.probeTlsMismatch();
            } finally {
              afterDiagnosis(attempt, cause, found);
            }
          });
      return true;
    } catch (RejectedExecutionException e) {
      synchronized (this) {
        diagnosing = false; // the backend is closing: no probe
      }
      return false;
    }
  }

  /**
   * The verdict of {@link #diagnose}: a confirmed TLS mismatch makes requests fail with it and
   * slows the attempts down to the longest delay, as any security failure; none lets the failure
   * stand as a node failure. Moot once the node connected meanwhile.
   */
  private void afterDiagnosis(int attempt, Throwable cause, SecurityFailure found) {
    boolean moot;
    synchronized (this) {
      diagnosing = false;
      moot = closed || connection != null;
      if (!moot) {
        securityFailure = found;
        if (found != null && pendingAttempt != null) {
          pendingAttempt.cancel(false);
          pendingAttempt = schedule(connectDelay.createDelay(SECURITY_RETRY_ATTEMPT).toNanos());
        }
      }
    }
    firstAttempt.complete(null);
    if (!moot && (found != null || attempts.get() == attempt)) {
      reportConnectFailure(attempt, cause, found);
    } else if (log.isDebugEnabled()) {
      // A later attempt has been made meanwhile, and reports for itself.
      log.debug("{}: connection attempt {} failed: {}", server, attempt, describe(cause));
    }
  }

  /**
   * After a failed attempt: the next one is scheduled at once (after the reconnect delay; the
   * longest after a security failure), and whoever waited for this one is told. {@code
   * diagnosing}: a probe of a possible TLS mismatch is under way; it reports the failure and
   * completes {@link #ready()} when done, and a mismatch it confirmed before stands meanwhile.
   * {@code check}: the attempt ran out its time while requests wait for a connection; a check
   * that the server answers ({@link #checkAnswer}) tells them instead, the one under way or one
   * started now.
   */
  private void afterConnectFailure(
      int attempt,
      long tookNanos,
      Throwable cause,
      SecurityFailure found,
      boolean diagnosing,
      boolean check) {
    if (found != null || !diagnosing) {
      securityFailure = found;
    }
    if (!diagnosing && cause instanceof RedisTrackingException && !everConnected) {
      // A setting the server cannot serve, not a node down: the client's build fails with it.
      firstAttempt.completeExceptionally(new IllegalArgumentException(cause.getMessage(), cause));
    } else if (!diagnosing) {
      firstAttempt.complete(null);
    }
    CompletableFuture<Void> waiting;
    CompletableFuture<Void> ended;
    boolean startCheck = false;
    synchronized (this) {
      ended = attemptInFlight;
      attemptInFlight = null;
      failedInARow++;
      if (!closed) {
        // After a security failure wait for the longest delay: a configuration error does not go
        // away in 100 ms.
        long delayFor =
            securityFailure != null
                ? Math.max(failedInARow, SECURITY_RETRY_ATTEMPT)
                : failedInARow;
        if (pendingAttempt != null) {
          pendingAttempt.cancel(false);
        }
        pendingAttempt = schedule(connectDelay.createDelay(delayFor).toNanos());
      }
      // While a check that the server answers is under way, it decides what the requests do.
      boolean checking = check && !closed;
      if (checking && !checkingAnswer) {
        checkingAnswer = true;
        startCheck = true;
      }
      waiting = checking ? null : takeWaiters();
    }
    complete(ended);
    complete(waiting);
    if (startCheck) {
      checkAnswer(attempt, tookNanos);
    }
    if (!closed && !diagnosing) {
      reportConnectFailure(attempt, cause, found);
    } else if (log.isDebugEnabled()) {
      log.debug("{}: connection attempt {} failed: {}", server, attempt, describe(cause));
    }
  }

  /**
   * Logs a failed attempt: a security failure once at ERROR; the first failure, the first refusal
   * to track the reads, and one a minute while the server stays down, at WARN; others at DEBUG.
   */
  private void reportConnectFailure(int attempt, Throwable cause, SecurityFailure found) {
    if (found != null) {
      logSecurityFailure(found, attempt);
      return;
    }
    long now = System.nanoTime();
    boolean warn = false;
    long downNanos = 0;
    synchronized (this) {
      boolean refusal = cause instanceof RedisTrackingException && !refusalWarned;
      refusalWarned |= refusal;
      if (!closed && (attempt == 1 || refusal || now - lastWarnNanos >= STILL_DOWN_WARN_NANOS)) {
        warn = true;
        lastWarnNanos = now;
        outageWarned = true;
        downNanos = downSinceNanos == 0 ? 0 : now - downSinceNanos;
      }
    }
    if (warn && everConnected) {
      log.warn(
          "{}: still cannot reconnect after {} s down: {}; {}, retrying in the background"
              + " (attempt {})",
          server,
          TimeUnit.NANOSECONDS.toSeconds(downNanos),
          describe(cause),
          awaitsConnection()
              ? "requests wait for the next attempt (the attempt ran out its time)"
              : "requests fail until it is back",
          attempt);
    } else if (warn) {
      log.warn(
          "{}: cannot connect: {}; {}, retrying in the background (attempt {})",
          server,
          describe(cause),
          awaitsConnection()
              ? "requests wait for the next attempt (the attempt ran out its time)"
              : "requests fail until it is reachable",
          attempt);
    } else if (log.isDebugEnabled()) {
      log.debug("{}: connection attempt {} failed: {}", server, attempt, describe(cause));
    }
  }

  /**
   * Whether Lettuce lost the outcome of an attempt: the handshake failed (and the channel closed)
   * before Lettuce's own connect listener ran, which then reports only that the handshake handler
   * is gone. Seen under load with a wrong password: it would pass a {@code WRONGPASS} off as an
   * unreachable node. Anywhere in the cause chain: {@code connectAsync} wraps it in a {@code
   * RedisConnectionException} ("Unable to connect to ...").
   */
  static boolean isOutcomeLost(Throwable cause) {
    for (Throwable t = cause; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof IllegalStateException && "RedisHandshakeHandler not registered".equals(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /** Schedules {@link #attemptConnect()}; null if the scheduler is shut down. Holds the lock. */
  private ScheduledFuture<?> schedule(long delayNanos) {
    try {
      return scheduler.schedule(this::attemptConnect, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      log.debug("{}: not retrying, Lettuce resources are shut down", server);
      return null;
    }
  }

  /** Takes the future of those waiting for an attempt to finish. Holds the lock. */
  private CompletableFuture<Void> takeWaiters() {
    CompletableFuture<Void> waiting = attemptWaiters;
    attemptWaiters = null;
    return waiting;
  }

  private static void complete(CompletableFuture<Void> waiting) {
    if (waiting != null) {
      waiting.complete(null);
    }
  }

  /**
   * Logs a security failure at ERROR the first time it is seen, and at DEBUG while it stays the
   * same: one line per node, not per attempt or request.
   */
  private void logSecurityFailure(SecurityFailure found, int attempt) {
    boolean first;
    synchronized (this) {
      first = !found.sameProblemAs(loggedSecurityFailure);
      loggedSecurityFailure = found;
    }
    if (first) {
      log.error(
          "{}: {}; requests to this node fail with {} until this is fixed (the node is not"
              + " ejected and its keys are not sent elsewhere); retrying in the background",
          server,
          found.description(),
          found.toException(node, null).getClass().getSimpleName());
    } else if (log.isDebugEnabled()) {
      log.debug("{}: attempt {} refused again: {}", server, attempt, found.description());
    }
  }

  private synchronized boolean clearLoggedSecurityFailure() {
    boolean had = loggedSecurityFailure != null;
    loggedSecurityFailure = null;
    return had;
  }

  /** Connection attempts made so far, the first one and reconnections (for tests). */
  int attempts() {
    return attempts.get();
  }

  /** Whether the connection is established and up (for tests and diagnostics). */
  boolean isConnected() {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    return c != null && c.isOpen();
  }

  // ---- operations ----------------------------------------------------------------------------

  @Override
  public Node node() {
    return node;
  }

  @Override
  public CompletableFuture<CachedValue> get(String key) {
    return dispatch(
        "GET",
        new BulkCommand<>(CommandType.GET, new ValueOutput<>(CODEC), keyBytes(key)),
        RedisNodeConnection::value);
  }

  @Override
  public CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(BatchReply.empty());
    }
    // A key named twice is asked twice (MGET answers each) and lands once in the map: no copy of
    // the list to drop duplicates, which the routing client never sends.
    List<String> names = keys instanceof java.util.RandomAccess ? keys : new ArrayList<>(keys);
    byte[][] k = new byte[names.size()][];
    for (int i = 0; i < k.length; i++) {
      k[i] = keyBytes(names.get(i));
    }
    // The values alone (null for none), in the order of the keys: Lettuce's mget would pair each
    // with its key in a KeyValue of its own. MgetReply reads the list as it is.
    return dispatch(
        "MGET",
        new BulkCommand<>(CommandType.MGET, new ValueListOutput<>(CODEC), k),
        values -> BatchReply.of(new MgetReply(names, values)));
  }

  @Override
  public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
    byte[] k = keyBytes(key);
    byte[] v = valueBytes(value);
    long px = ttlMillis(ttl);
    StatusOutput<byte[], byte[]> ok = new StatusOutput<>(CODEC);
    return dispatch(
        "SET",
        px == 0
            ? new BulkCommand<>(CommandType.SET, ok, k, v)
            : new BulkCommand<>(CommandType.SET, ok, k, v, PX, ascii(px)),
        reply -> null);
  }

  @Override
  public CompletableFuture<BatchReply<Boolean>> setMulti(
      Map<String, CachedValue> values, Duration ttl) {
    Objects.requireNonNull(values, "values");
    long px = ttlMillis(ttl);
    if (values.isEmpty()) {
      return CompletableFuture.completedFuture(BatchReply.empty());
    }
    List<String> keys = new ArrayList<>(values.size());
    List<AsyncCommand<byte[], byte[], String>> sets = new ArrayList<>(values.size());
    for (Map.Entry<String, CachedValue> e : values.entrySet()) {
      CommandArgs<byte[], byte[]> args =
          new CommandArgs<>(CODEC).addKey(keyBytes(e.getKey())).addValue(valueBytes(e.getValue()));
      if (px != 0) {
        args.add("PX").add(px);
      }
      keys.add(e.getKey());
      sets.add(new AsyncCommand<>(new Command<>(CommandType.SET, new StatusOutput<>(CODEC), args)));
    }
    return sendBatch(
        "SET",
        sets,
        () -> {
          Map<String, Boolean> stored = new HashMap<>(capacity(sets.size()));
          Map<String, Throwable> failed = new HashMap<>();
          Throwable nodeFailure = null;
          for (int i = 0; i < sets.size(); i++) {
            Throwable t = failureOf(sets.get(i));
            if (t == null) {
              stored.put(keys.get(i), Boolean.TRUE);
              continue;
            }
            Throwable translated = translate("SET", t);
            if (RedisFailures.isNodeFailure(translated)) {
              nodeFailure = nodeFailure == null ? translated : nodeFailure;
            } else {
              failed.put(keys.get(i), translated);
            }
          }
          if (nodeFailure != null) {
            throw new CompletionException(nodeFailure);
          }
          return BatchReply.of(stored, failed);
        });
  }

  @Override
  public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
    byte[] k = keyBytes(key);
    byte[] v = valueBytes(value);
    long px = ttlMillis(ttl);
    SetArgs args = px == 0 ? SetArgs.Builder.nx() : SetArgs.Builder.nx().px(px);
    // SET NX replies OK when it stored the value, nil when the key existed.
    return send("SET NX", a -> a.set(k, v, args), ok -> ok != null);
  }

  /** {@code PTTL}: -2 when the key is absent (null), -1 when it does not expire (zero). */
  @Override
  public CompletableFuture<Duration> remainingTtl(String key) {
    byte[] k = keyBytes(key);
    return send(
        "PTTL",
        a -> a.pttl(k),
        ms -> ms == null || ms == -2 ? null : ms == -1 ? Duration.ZERO : Duration.ofMillis(Math.max(1, ms)));
  }

  /**
   * The server's run from {@code INFO}: its {@code run_id} (new at every start, whether or not it
   * loads an AOF or RDB file) and the calls of {@code FLUSHALL} and {@code FLUSHDB} ({@code
   * commandstats}) make the id, the keys of every database ({@code keyspace}) the items.
   */
  @Override
  public CompletableFuture<ServerRun> serverRun() {
    Boolean answers = answersInfo;
    if (answers == null) {
      return checkInfo().thenCompose(checked -> Boolean.TRUE.equals(checked) ? serverRun() : CompletableFuture.completedFuture(null));
    }
    if (!answers) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<String> server = send("INFO", a -> a.info("server"), info -> info);
    CompletableFuture<String> keyspace = send("INFO", a -> a.info("keyspace"), info -> info);
    CompletableFuture<String> commands = send("INFO", a -> a.info("commandstats"), info -> info);
    return server.thenCombine(keyspace, (s, k) -> s + "\n" + k).thenCombine(commands, (sk, c) -> runOf(sk + "\n" + c));
  }

  /**
   * Whether the server answers {@code INFO}: null until a connection of its own asked. twemproxy
   * closes a client's connection on a command it does not proxy, {@code INFO} among them, so that
   * it is sent on this node's connection only once the server answered it on another.
   */
  private volatile Boolean answersInfo;

  /**
   * Asks {@code INFO server} on a connection of its own, closed after: true if it was answered,
   * false if the connection was closed or the command refused; null if no connection was made
   * (asked again next time).
   */
  private CompletableFuture<Boolean> checkInfo() {
    CompletableFuture<Boolean> answered = new CompletableFuture<>();
    client
        .connectAsync(CODEC, uri)
        .whenComplete(
            (c, connectFailure) -> {
              if (connectFailure != null) {
                answered.complete(null);
                return;
              }
              c.async()
                  .info("server")
                  .toCompletableFuture()
                  .orTimeout(commandTimeout.toMillis(), TimeUnit.MILLISECONDS)
                  .whenComplete(
                      (text, failure) -> {
                        c.closeAsync();
                        Boolean answers =
                            failure == null
                                ? Boolean.valueOf(text.contains("run_id:"))
                                : RedisFailures.unwrap(failure) instanceof java.util.concurrent.TimeoutException ? null : Boolean.FALSE;
                        answersInfo = answers;
                        answered.complete(answers);
                      });
            });
    return answered;
  }

  /** The run that the text of {@code INFO} sections describes, or null without a {@code run_id}. */
  static ServerRun runOf(String info) {
    String runId = null;
    long keys = 0;
    long flushes = 0;
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("run_id:")) {
        runId = line.substring("run_id:".length()).trim();
      } else if (line.startsWith("db") && line.contains(":keys=")) {
        keys += field(line, "keys=");
      } else if (line.startsWith("cmdstat_flushall:") || line.startsWith("cmdstat_flushdb:")) {
        flushes += field(line, "calls=");
      }
    }
    return runId == null || runId.isEmpty() ? null : new ServerRun(runId + ", flushes " + flushes, keys);
  }

  /** The number after {@code name} in an {@code INFO} line of {@code a=1,b=2} fields; 0 if none. */
  private static long field(String line, String name) {
    int at = line.indexOf(name, line.indexOf(':'));
    if (at < 0) {
      return 0;
    }
    int from = at + name.length();
    int to = from;
    while (to < line.length() && Character.isDigit(line.charAt(to))) {
      to++;
    }
    return to == from ? 0 : Long.parseLong(line.substring(from, to));
  }

  @Override
  public CompletableFuture<Boolean> delete(String key) {
    byte[] k = keyBytes(key);
    return send("DEL", a -> a.del(k), n -> n != null && n > 0);
  }

  @Override
  public CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys) {
    Objects.requireNonNull(keys, "keys");
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(BatchReply.empty());
    }
    // A key listed twice would read "deleted" then "absent": delete each key once.
    List<String> distinct = new ArrayList<>(new LinkedHashSet<>(keys));
    List<AsyncCommand<byte[], byte[], Long>> dels = new ArrayList<>(distinct.size());
    for (String key : distinct) {
      CommandArgs<byte[], byte[]> args = new CommandArgs<>(CODEC).addKey(keyBytes(key));
      dels.add(
          new AsyncCommand<>(new Command<>(CommandType.DEL, new IntegerOutput<>(CODEC), args)));
    }
    return sendBatch(
        "DEL",
        dels,
        () -> {
          throwFirstFailure("DEL", dels);
          Map<String, Boolean> existed = new HashMap<>(capacity(distinct.size()));
          for (int i = 0; i < dels.size(); i++) {
            Long n = dels.get(i).join();
            existed.put(distinct.get(i), n != null && n > 0);
          }
          return BatchReply.of(existed);
        });
  }

  @Override
  public CompletableFuture<Boolean> touch(String key, Duration ttl) {
    byte[] k = keyBytes(key);
    long px = ttlMillis(ttl);
    if (px != 0) {
      // PEXPIRE replies 1 when the key exists (and now expires), 0 when it does not.
      return send("PEXPIRE", a -> a.pexpire(k, px), set -> Boolean.TRUE.equals(set));
    }
    // PERSIST replies 1 only if it removed a TTL, so EXISTS says whether the key is there.
    AsyncCommand<byte[], byte[], Boolean> persist =
        new AsyncCommand<>(
            new Command<>(
                CommandType.PERSIST,
                new BooleanOutput<>(CODEC),
                new CommandArgs<>(CODEC).addKey(k)));
    AsyncCommand<byte[], byte[], Long> exists =
        new AsyncCommand<>(
            new Command<>(
                CommandType.EXISTS,
                new IntegerOutput<>(CODEC),
                new CommandArgs<>(CODEC).addKey(k)));
    List<AsyncCommand<byte[], byte[], ?>> both = List.of(persist, exists);
    return sendBatch(
        "PERSIST",
        both,
        () -> {
          throwFirstFailure("PERSIST", both);
          Long n = exists.join();
          return n != null && n > 0;
        });
  }

  @Override
  public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
    byte[][] keys = {keyBytes(key)};
    return counterScript(IncrScript.SHA1, IncrScript.SOURCE, keys, ascii(delta), ascii(initial), ascii(ttlMillis(ttl)));
  }

  /** {@link IncrScript#IF_PRESENT_SOURCE}: null, with nothing created, when the key is absent. */
  @Override
  public CompletableFuture<Long> incrIfPresent(String key, long delta) {
    byte[][] keys = {keyBytes(key)};
    return counterScript(IncrScript.IF_PRESENT_SHA1, IncrScript.IF_PRESENT_SOURCE, keys, ascii(delta));
  }

  /**
   * Runs a counter script by its SHA-1, loading it with {@code EVAL} the first time a server lacks
   * it; the counter it returns (null for none).
   */
  private CompletableFuture<Long> counterScript(String sha, String source, byte[][] keys, byte[]... args) {
    return whenAttempted(() -> counterScriptNow(sha, source, keys, args));
  }

  private CompletableFuture<Long> counterScriptNow(String sha, String source, byte[][] keys, byte[][] args) {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    if (c == null || closed) {
      return CompletableFuture.failedFuture(notConnected("INCR"));
    }
    CompletableFuture<Long> out = new CompletableFuture<>();
    try {
      RedisFuture<byte[]> first = c.async().evalsha(sha, ScriptOutputType.VALUE, keys, args);
      first.whenComplete(
          (counter, t) -> {
            if (t == null) {
              completeFrom("INCR", first, RedisNodeConnection::parseCounter, out);
            } else if (RedisFailures.unwrap(t) instanceof RedisNoScriptException) {
              // First use on this server (or after SCRIPT FLUSH / restart): EVAL loads it.
              try {
                completeFrom(
                    "INCR",
                    c.async().eval(source, ScriptOutputType.VALUE, keys, args),
                    RedisNodeConnection::parseCounter,
                    out);
              } catch (RuntimeException e) {
                out.completeExceptionally(translate("INCR", e));
              }
            } else {
              out.completeExceptionally(translate("INCR", t));
            }
          });
    } catch (RuntimeException e) {
      out.completeExceptionally(translate("INCR", e));
    }
    return out;
  }

  /**
   * True while reads are tracked and a connection is in use: a connection serves only once the
   * server accepted {@code CLIENT TRACKING ON} on it ({@link #track}), and a lost one is cleared
   * when Lettuce reports it.
   */
  @Override
  public boolean readsTracked() {
    return tracking != null && connection != null;
  }

  /**
   * {@code PING}. While disconnected it does not fail at once like other requests: it makes the
   * next connection attempt now (or joins the one under way, or waits for the one due within 100
   * ms of the last) and sends {@code PING} if the attempt succeeds, so that it may take up to the
   * connect timeout plus the command timeout. The duration is that of the {@code PING} alone. It
   * fails at once when the connection is closed or the node refuses this client (a {@link
   * NodeSecurityException}: attempts then keep their slow pace).
   */
  @Override
  public CompletableFuture<Duration> ping() {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    if (closed || (c != null && c.isOpen()) || securityFailure != null) {
      return sendPing();
    }
    return nextAttempt().thenCompose(attempted -> sendPing());
  }

  private CompletableFuture<Duration> sendPing() {
    long start = System.nanoTime();
    return sendNow(
        "PING", RedisAsyncCommands::ping, pong -> Duration.ofNanos(System.nanoTime() - start));
  }

  /**
   * The server's {@code run_id}, from {@code INFO server}: a random id Redis draws at every start,
   * so a value other than the one read before means that the server restarted in between (and
   * holds only what it persisted). Like every request it does not block, and fails at once while
   * disconnected. It fails with {@link RedisErrorReplyException} when the server refuses {@code
   * INFO} (some proxies do), with a {@link io.shardwise.client.NodePermissionException} when the
   * ACL user may not run it, and with {@link IllegalStateException} when the reply has no {@code
   * run_id} field.
   */
  public CompletableFuture<String> runId() {
    return send(
        "INFO",
        a -> a.info("server"),
        info -> {
          String id = runIdIn(info);
          if (id == null) {
            throw new IllegalStateException(
                server
                    + ": INFO server has no run_id field, so a restart cannot be told (a proxy in"
                    + " front of Redis?); the reply starts: "
                    + abbreviate(info, 200));
          }
          return id;
        });
  }

  /** The value of the {@code run_id} field of an {@code INFO} reply, or null if it has none. */
  static String runIdIn(String info) {
    if (info == null) {
      return null;
    }
    for (String line : info.split("\\r?\\n")) {
      if (line.startsWith("run_id:")) {
        String id = line.substring("run_id:".length()).trim();
        return id.isEmpty() ? null : id;
      }
    }
    return null;
  }

  private static String abbreviate(String text, int max) {
    if (text == null) {
      return "null";
    }
    String flat = text.replace("\r", "").replace('\n', ' ').trim();
    return flat.length() <= max ? "'" + flat + "'" : "'" + flat.substring(0, max) + "...'";
  }

  @Override
  public CompletableFuture<Void> flushAll() {
    // ASYNC: the keys are gone at once, memory is freed in the background, so a large database
    // does not block the server (or outlast the command timeout).
    return send("FLUSHDB", a -> a.flushdb(FlushMode.ASYNC), ok -> null);
  }

  /**
   * Starts closing and returns at once: requests in flight fail with {@link
   * RedisUnavailableException} as soon as Lettuce has closed the channel, and new ones fail at
   * once.
   */
  @Override
  public void close() {
    StatefulRedisConnection<byte[], byte[]> c;
    ScheduledFuture<?> pending;
    CompletableFuture<Void> waiting;
    CompletableFuture<Void> attempt;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      c = connection;
      pending = pendingAttempt;
      pendingAttempt = null;
      waiting = takeWaiters();
      attempt = attemptInFlight;
    }
    if (pending != null) {
      pending.cancel(false);
    }
    complete(waiting);
    // An attempt under way ends by itself within the connect timeout; until then the client and
    // its event loops must stay up, so closeFuture waits for it.
    CompletableFuture<Void> closing =
        c == null ? CompletableFuture.completedFuture(null) : c.closeAsync();
    CompletableFuture.allOf(
            closing, attempt == null ? CompletableFuture.completedFuture(null) : attempt)
        .whenComplete((ignored, t) -> closeFuture.complete(null));
  }

  /**
   * Completes when the first connection attempt has finished, either way; exceptionally, with an
   * {@link IllegalArgumentException}, when the server answered but refused to track the reads.
   */
  @Override
  public CompletableFuture<Void> ready() {
    return firstAttempt.copy();
  }

  /**
   * Completes once {@link #close()} has closed the Lettuce connection and any connection attempt
   * under way has ended.
   */
  CompletableFuture<Void> closeFuture() {
    return closeFuture;
  }

  @Override
  public String toString() {
    return "RedisNodeConnection["
        + node.address()
        + ", "
        + (closed ? "closed" : isConnected() ? "connected" : "not connected")
        + "]";
  }

  // ---- plumbing ------------------------------------------------------------------------------

  /**
   * Sends one command; {@code result} maps the reply, failures are translated. The returned future
   * is the one stage Shardwise adds to Lettuce's: it fails with a {@link CompletionException}
   * whose cause is the translated failure (callers unwrap it, as {@code get()} does).
   */
  private <T, R> CompletableFuture<R> send(
      String operation,
      Function<RedisAsyncCommands<byte[], byte[]>, RedisFuture<T>> command,
      Function<? super T, ? extends R> result) {
    return whenAttempted(() -> sendNow(operation, command, result));
  }

  /** {@link #send} without waiting for a first connection. */
  private <T, R> CompletableFuture<R> sendNow(
      String operation,
      Function<RedisAsyncCommands<byte[], byte[]>, RedisFuture<T>> command,
      Function<? super T, ? extends R> result) {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    if (c == null || closed) {
      return CompletableFuture.failedFuture(notConnected(operation));
    }
    RedisFuture<T> reply;
    try {
      reply = command.apply(c.async());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(translate(operation, e));
    }
    return handle(operation, reply.toCompletableFuture(), result);
  }

  /**
   * {@link #send} of a command made here, handed to the connection as Lettuce's async API hands
   * its own ({@code AbstractRedisAsyncCommands.dispatch}).
   */
  private <T, R> CompletableFuture<R> dispatch(
      String operation, BulkCommand<T> command, Function<? super T, ? extends R> result) {
    return whenAttempted(() -> dispatchNow(operation, command, result));
  }

  private <T, R> CompletableFuture<R> dispatchNow(
      String operation, BulkCommand<T> command, Function<? super T, ? extends R> result) {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    if (c == null || closed) {
      return CompletableFuture.failedFuture(notConnected(operation));
    }
    AsyncCommand<byte[], byte[], T> reply = new AsyncCommand<>(command);
    try {
      if (c.dispatch(reply) instanceof AsyncCommand<byte[], byte[], T> dispatched) {
        reply = dispatched;
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(translate(operation, e));
    }
    return handle(operation, reply, result);
  }

  /**
   * {@code request} at once; but while the node {@link #awaitsConnection() awaits a connection},
   * once the attempt under way, or the next one brought forward, has ended (one attempt: then
   * {@code request} is sent, or fails as not connected).
   */
  private <R> CompletableFuture<R> whenAttempted(Supplier<CompletableFuture<R>> request) {
    if (connection != null || !awaitsConnection()) {
      return request.get();
    }
    return nextAttempt().thenCompose(attempted -> request.get());
  }

  /**
   * Whether a request waits for the next attempt rather than fail at once: before the node's
   * first connection (or after a connection closed by its own handshake timeout, see {@link
   * #onDisconnected}), as long as no attempt said anything against the server (none has ended
   * yet, or the last one ran out the connect timeout, as it does when this process was stopped or
   * starved during it). So a client that starts slowly does not fail requests, and get servers
   * ejected, only because it had not connected to them yet; a refused connection still fails at
   * once, and a lost connection fails requests at once until it is back.
   */
  private boolean awaitsConnection() {
    if ((everConnected && !closedAtItsTimeout) || closed || securityFailure != null) {
      return false;
    }
    Throwable last = lastConnectFailure;
    return last == null || last instanceof RedisTimeoutException;
  }

  /** The reply mapped by {@code result}, or its failure translated: see {@link #send}. */
  private <T, R> CompletableFuture<R> handle(
      String operation, CompletableFuture<T> reply, Function<? super T, ? extends R> result) {
    return reply.handle(
        (value, t) -> {
          if (t != null) {
            throw new CompletionException(translate(operation, t));
          }
          return result.apply(value);
        });
  }

  private <T, R> void completeFrom(
      String operation,
      CompletionStage<T> reply,
      Function<? super T, ? extends R> result,
      CompletableFuture<R> out) {
    reply.whenComplete(
        (value, t) -> {
          if (t != null) {
            out.completeExceptionally(translate(operation, t));
            return;
          }
          try {
            out.complete(result.apply(value));
          } catch (RuntimeException e) {
            out.completeExceptionally(e);
          }
        });
  }

  /**
   * Writes {@code commands} in one go and, once every one has completed, returns what {@code
   * result} makes of them. {@code result} may throw a {@link CompletionException} to fail the batch
   * with its cause.
   */
  private <R> CompletableFuture<R> sendBatch(
      String operation,
      List<? extends AsyncCommand<byte[], byte[], ?>> commands,
      Supplier<R> result) {
    return whenAttempted(() -> sendBatchNow(operation, commands, result));
  }

  private <R> CompletableFuture<R> sendBatchNow(
      String operation,
      List<? extends AsyncCommand<byte[], byte[], ?>> commands,
      Supplier<R> result) {
    StatefulRedisConnection<byte[], byte[]> c = connection;
    if (c == null || closed) {
      return CompletableFuture.failedFuture(notConnected(operation));
    }
    try {
      c.dispatch(commands);
    } catch (RuntimeException e) {
      commands.forEach(command -> command.completeExceptionally(e));
    }
    CompletableFuture<R> out = new CompletableFuture<>();
    CompletableFuture.allOf(commands.toArray(new CompletableFuture<?>[0]))
        .whenComplete(
            (ignored, t) -> {
              try {
                out.complete(result.get());
              } catch (CompletionException e) {
                out.completeExceptionally(e.getCause() != null ? e.getCause() : e);
              } catch (RuntimeException e) {
                out.completeExceptionally(e);
              }
            });
    return out;
  }

  /** Throws the first failure of {@code commands}, a node failure before an error reply. */
  private void throwFirstFailure(String operation, List<? extends CompletableFuture<?>> commands) {
    Throwable first = null;
    for (CompletableFuture<?> command : commands) {
      Throwable t = failureOf(command);
      if (t != null) {
        Throwable translated = translate(operation, t);
        if (RedisFailures.isNodeFailure(translated)) {
          throw new CompletionException(translated);
        }
        first = first == null ? translated : first;
      }
    }
    if (first != null) {
      throw new CompletionException(first);
    }
  }

  /** The failure of a completed future, or null if it succeeded. */
  private static Throwable failureOf(CompletableFuture<?> done) {
    if (!done.isCompletedExceptionally()) {
      return null;
    }
    try {
      done.join();
      return null;
    } catch (CompletionException e) {
      return e.getCause() != null ? e.getCause() : e;
    } catch (CancellationException e) {
      return e;
    }
  }

  private Throwable translate(String operation, Throwable t) {
    Throwable failure = RedisFailures.unwrap(t);
    if (failure instanceof NodeSecurityException) {
      return failure;
    }
    SecurityFailure refused = security.ofRequestFailure(failure);
    if (refused != null) {
      return refused.toException(node, operation);
    }
    Throwable translated = RedisFailures.translate(server, operation, t, commandTimeout);
    SecurityFailure known = securityFailure;
    if (known != null && translated instanceof RedisUnavailableException && !isConnected()) {
      // Rejected while disconnected, and the reconnection fails for a security reason.
      return known.toException(node, operation);
    }
    return translated;
  }

  private Throwable notConnected(String operation) {
    if (closed) {
      return new RedisUnavailableException(
          server + ": " + operation + " failed: the connection is closed", null);
    }
    SecurityFailure known = securityFailure;
    if (known != null) {
      return known.toException(node, operation);
    }
    Throwable last = lastConnectFailure;
    String lastAttempt = last == null ? "" : ", last: " + describe(last);
    long down = downSinceNanos;
    if (everConnected) {
      return new RedisUnavailableException(
          server
              + ": "
              + operation
              + " failed: not connected; reconnecting in the background ("
              + (down == 0
                  ? "connection lost"
                  : "connection lost " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - down)
                      + " ms ago")
              + lastAttempt
              + ")",
          last);
    }
    return new RedisUnavailableException(
        server
            + ": "
            + operation
            + " failed: not connected yet; connecting in the background ("
            + attempts.get()
            + " attempts so far"
            + lastAttempt
            + ")",
        last);
  }

  /**
   * The innermost message: "Connection refused: /127.0.0.1:6379" rather than its wrappers; a
   * refusal to track reads says it all, and is not replaced by its cause's.
   */
  private static String describe(Throwable t) {
    String message = null;
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (c.getMessage() != null && !c.getMessage().isEmpty()) {
        message = c.getMessage();
      }
      if (c instanceof RedisTrackingException) {
        break;
      }
    }
    return message != null ? message : RedisFailures.withoutMessage(t);
  }

  /** The counter a script returned, or null for nil (an absent key, from {@code incrIfPresent}). */
  private static Long parseCounter(byte[] reply) {
    return reply == null ? null : Long.parseLong(new String(reply, StandardCharsets.US_ASCII));
  }

  private static CachedValue value(byte[] bytes) {
    return bytes == null ? null : CachedValue.of(bytes, 0);
  }

  private static byte[] keyBytes(String key) {
    return Objects.requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] valueBytes(CachedValue value) {
    return Objects.requireNonNull(value, "value").bytes();
  }

  /** PX milliseconds of {@code ttl}, rounded up; 0 for {@link Duration#ZERO} (no expiry). */
  static long ttlMillis(Duration ttl) {
    Objects.requireNonNull(ttl, "ttl");
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must be >= 0 (0 for no expiry) but was " + ttl);
    }
    if (ttl.isZero()) {
      return 0;
    }
    try {
      long ms = ttl.toMillis();
      return ttl.compareTo(Duration.ofMillis(ms)) > 0 ? ms + 1 : ms;
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE; // Redis answers "invalid expire time"
    }
  }

  private static byte[] ascii(long n) {
    return Long.toString(n).getBytes(StandardCharsets.US_ASCII);
  }

  private static int capacity(int entries) {
    return (int) Math.min(1 << 30, entries * 4L / 3 + 1);
  }
}
