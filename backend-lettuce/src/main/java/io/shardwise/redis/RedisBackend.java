package io.shardwise.redis;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.shardwise.client.NodeSecurityException;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.Invalidations;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Redis servers through Lettuce: one multiplexed connection per node, all sharing one Lettuce
 * {@link RedisClient} and one set of {@link ClientResources}.
 *
 * <pre>{@code
 * RedisBackendOptions options = RedisBackendOptions.builder().database(1).build();
 * try (RedisBackend backend = RedisBackend.create(options);
 *     NodeConnection node = backend.connect(Node.of("10.0.0.1", 6379))) {
 *   node.set("user:42", CachedValue.of(bytes, 0), Duration.ofMinutes(5)).join();
 * }
 * }</pre>
 *
 * <p>{@link #connect} never fails because a server is down: the connection is made in the
 * background and retried with the reconnect delay; requests fail at once until it is up, and again
 * whenever it is lost, rather than wait in a buffer. A {@code ping()} while disconnected makes the
 * next connection attempt at once, so that the routing client's probe finds a server that is back
 * without waiting for the reconnect delay. Keys are the UTF-8 bytes of the key string;
 * values are the bytes of the {@code CachedValue}. Redis stores no flags: values read back have
 * flags 0.
 *
 * <p>Failures: futures fail with {@link RedisUnavailableException} (an {@link java.io.IOException}:
 * not connected, connection lost, server loading or busy) or {@link RedisTimeoutException} (a
 * {@link TimeoutException}) when the node failed, with {@link RedisErrorReplyException} when the
 * server answered one request with an error, and with a {@link NodeSecurityException} (wrong
 * credentials, {@code NOPERM}, a TLS problem) when the node refuses this client: that is a
 * configuration error, never a node failure. Arguments that break the SPI contract (null key,
 * negative TTL) throw at once.
 *
 * <p>Credentials and TLS come from {@link RedisBackendOptions}; TLS files are read when the backend
 * is created, which fails then if they are not usable. Passwords are handed to Lettuce through a
 * credentials provider at each handshake and never appear in a {@code RedisURI}, a log line or a
 * message. Lettuce's own {@code TRACE} logging of {@code io.lettuce.core.protocol} prints the raw
 * bytes written, {@code AUTH} included: keep that logger off {@code TRACE} in production.
 */
public final class RedisBackend implements Backend {

  private static final Logger log = LoggerFactory.getLogger(RedisBackend.class);

  /** Redis' default {@code proto-max-bulk-len}: 512 MiB. */
  static final int MAX_VALUE_BYTES = 512 * 1024 * 1024;

  private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(2);

  private final RedisBackendOptions options;
  private final ClientResources resources;
  private final boolean ownsResources;
  /** One Lettuce client per request timeout (the timeout is a client option): usually one. */
  private final Map<Duration, RedisClient> clients = new ConcurrentHashMap<>();
  private final Set<RedisNodeConnection> connections = ConcurrentHashMap.newKeySet();
  /** TLS settings for Lettuce, read once; null for plaintext. */
  private final SslOptions sslOptions;
  /**
   * Runs the blocking probes that confirm a TLS mismatch, each on a thread of its own (a node has
   * at most one under way), so that no node's probe waits for another's; idle threads stop.
   */
  private final ThreadPoolExecutor diagnosis;
  /** Tells each node's connection that Lettuce saw its channel go inactive. */
  private final RedisConnectionStateListener disconnections =
      new RedisConnectionStateListener() {
        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> lettuceConnection) {
          for (RedisNodeConnection c : connections) {
            c.onDisconnected(lettuceConnection);
          }
        }
      };
  private final BulkLengthLimit bulkLengthLimit = new BulkLengthLimit();
  /** Each open connection's read of its server's proto-max-bulk-len, done or not. */
  private final Map<NodeConnection, CompletableFuture<Void>> settingsReads = new ConcurrentHashMap<>();
  /** Reads each server's proto-max-bulk-len on a connection of its own; created with the first. */
  private RedisClient settingsClient;
  /** Told of the invalidations of tracked reads ({@link #trackReads}), or null: none tracked. */
  private volatile Invalidations tracking;
  private volatile boolean closed;

  private RedisBackend(RedisBackendOptions options) {
    this.options = Objects.requireNonNull(options, "options");
    // First, so that unusable TLS files fail before any thread is started.
    this.sslOptions =
        options
            .tls()
            .map(tls -> RedisSecurity.sslOptions(tls, options.connectTimeout()))
            .orElse(null);
    this.ownsResources = options.clientResources().isEmpty();
    this.resources = options.clientResources().orElseGet(() -> ownResources(options));
    this.diagnosis =
        new ThreadPoolExecutor(
            0,
            Integer.MAX_VALUE,
            10,
            TimeUnit.SECONDS,
            new SynchronousQueue<>(),
            r -> {
              Thread t = new Thread(r, "shardwise-redis-diagnosis");
              t.setDaemon(true);
              return t;
            });
  }

  /** A backend with the default options. */
  public static RedisBackend create() {
    return new RedisBackend(RedisBackendOptions.defaults());
  }

  /** A backend with {@code options}. */
  public static RedisBackend create(RedisBackendOptions options) {
    return new RedisBackend(options);
  }

  /** The Lettuce resources of every connection, the backend's own or the ones it was given. */
  ClientResources resources() {
    return resources;
  }

  /** The options this backend was created with. */
  public RedisBackendOptions options() {
    return options;
  }

  @Override
  public String name() {
    return "redis";
  }

  /** True: Redis 6 and later track the keys a connection read ({@code CLIENT TRACKING}). */
  @Override
  public boolean tracksReads() {
    return true;
  }

  /**
   * Each connection opened from now on speaks RESP3 and turns tracking on (default mode: the server
   * remembers the keys the connection read) before it serves a request; the server's
   * invalidations, and the loss of a connection, go to {@code invalidations}. A server that answers
   * but cannot track (older than Redis 6, or a proxy such as twemproxy, which closes the connection
   * on {@code HELLO} and {@code CLIENT}) fails every connection attempt with a message that says so
   * and to turn the near cache off; at a node's first attempt, {@link NodeConnection#ready()} fails
   * with it, and so does the client's build.
   *
   * @throws IllegalStateException if a connection is open already
   */
  @Override
  public synchronized void trackReads(Invalidations invalidations) {
    Objects.requireNonNull(invalidations, "invalidations");
    if (!clients.isEmpty()) {
      throw new IllegalStateException("reads can be tracked only from the first connection on; connections are open");
    }
    tracking = invalidations;
  }

  /**
   * Opens the connection to {@code node} in the background and returns at once.
   *
   * @throws IllegalStateException if the backend is closed
   * @throws IllegalArgumentException if the node's credentials are incomplete (a user name with no
   *     password)
   */
  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(requestTimeout, "requestTimeout");
    if (closed) {
      throw new IllegalStateException("the Redis backend is closed; cannot connect to " + node);
    }
    RedisURI uri = redisUri(node);
    RedisClient client =
        clients.computeIfAbsent(
            requestTimeout,
            timeout -> {
              RedisClient c = RedisClient.create(resources);
              c.setOptions(clientOptions(options, timeout, sslOptions, tracking != null));
              c.addListener(disconnections);
              return c;
            });
    RedisSecurityDiagnosis security =
        new RedisSecurityDiagnosis(
            node,
            options.credentialsFor(node).orElse(null),
            options.tls().orElse(null),
            options.connectTimeout());
    RedisNodeConnection connection =
        new RedisNodeConnection(
            node,
            client,
            uri,
            requestTimeout,
            resources.reconnectDelay(),
            resources.eventExecutorGroup(),
            security,
            diagnosis,
            tracking);
    connections.add(connection);
    bulkLengthLimit.add(connection);
    connection
        .closeFuture()
        .whenComplete(
            (ignored, t) -> {
              connections.remove(connection);
              bulkLengthLimit.remove(connection);
              settingsReads.remove(connection);
            });
    connection.start();
    // After the connection's first attempt, so that the two handshakes do not compete.
    settingsReads.put(
        connection,
        connection
            .ready()
            .handle((ignored, failure) -> null)
            .thenCompose(
                x ->
                    closed
                        ? CompletableFuture.<Void>completedFuture(null)
                        : bulkLengthLimit.read(
                            connection, settingsClient(), uri, options.connectTimeout())));
    return connection;
  }

  private synchronized RedisClient settingsClient() {
    if (settingsClient == null) {
      settingsClient = RedisClient.create(resources);
      settingsClient.setOptions(clientOptions(options, options.connectTimeout(), sslOptions, false));
    }
    return settingsClient;
  }

  /** The configured {@link RedisBackendOptions#commandTimeout()}. */
  @Override
  public Duration defaultRequestTimeout() {
    return options.commandTimeout();
  }

  @Override
  public KeyRules keyRules() {
    return KeyRules.REDIS;
  }

  /** 512 MiB, Redis' default {@code proto-max-bulk-len}. */
  @Override
  public int defaultMaxValueBytes() {
    return MAX_VALUE_BYTES;
  }

  /**
   * Refuses a value longer than the {@code proto-max-bulk-len} of the smallest of the backend's
   * servers, read from each with {@code CONFIG GET} (Redis' default, 512 MiB, for a server that
   * cannot be read): Redis would answer it with a protocol error and close the connection.
   */
  @Override
  public void checkValue(String key, io.shardwise.client.CachedValue value) {
    bulkLengthLimit.check(key, value);
  }

  /**
   * Completes when the {@code proto-max-bulk-len} of {@code connection}'s server has been read, or
   * could not be (then Redis' default counts).
   */
  @Override
  public CompletableFuture<Void> limitsRead(NodeConnection connection) {
    CompletableFuture<Void> read = settingsReads.get(connection);
    return read != null ? read : CompletableFuture.completedFuture(null);
  }

  /**
   * The largest value {@link #checkValue} accepts now: the smallest {@code proto-max-bulk-len} of
   * the backend's servers (Redis' default until a server's setting has been read, shortly after its
   * connection starts).
   */
  public long maxValueBytes() {
    return bulkLengthLimit.smallest().maxBulkLength();
  }

  /**
   * {@link RedisUnavailableException} and {@link RedisTimeoutException} (and other I/O failures and
   * timeouts) are node failures; error replies and {@link NodeSecurityException}s are not.
   */
  @Override
  public boolean isNodeFailure(Throwable failure) {
    Throwable t = RedisFailures.unwrap(failure);
    if (t instanceof NodeSecurityException || t instanceof RedisErrorReplyException) {
      return false;
    }
    return Backend.super.isNodeFailure(t);
  }

  /**
   * Timeouts are soft evidence (see {@link Backend#isTimeout}): a request that got no reply in
   * time, and a connection that could not be made in time (Lettuce's connection initialization or
   * a connect attempt timing out, also as the cause of a request failing because its node is not
   * connected yet). A slow or starved client looks the same from here, so such failures are
   * subject to the stall rule and the ejection cap; a refused or lost connection is not a timeout.
   */
  @Override
  public boolean isTimeout(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof java.util.concurrent.TimeoutException
          || t instanceof io.lettuce.core.RedisCommandTimeoutException
          || t instanceof io.netty.channel.ConnectTimeoutException) {
        return true;
      }
    }
    return false;
  }

  /** True: a Redis server is reached by its host name or address. */
  @Override
  public boolean resolvesHosts() {
    return true;
  }

  /** False: Redis keeps no flags beside a value; values read back have flags 0. */
  @Override
  public boolean storesFlags() {
    return false;
  }

  /**
   * Closes every connection still open, shuts the Lettuce client down and, if the backend created
   * them, its {@link ClientResources}. Waits at most about 2 s for each.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    // Close the connections first, and wait for it: the client's shutdown would close those
    // still closing a second time (which Lettuce logs as a warning), and a connection attempt
    // still under way needs the client's event loops (and maybe the diagnosis thread) to end.
    List<CompletableFuture<Void>> closing = new ArrayList<>();
    for (RedisNodeConnection connection : new ArrayList<>(connections)) {
      connection.close();
      closing.add(connection.closeFuture());
    }
    try {
      CompletableFuture.allOf(closing.toArray(new CompletableFuture<?>[0]))
          .get(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      log.debug("connections did not all close within {}: {}", SHUTDOWN_TIMEOUT, e.toString());
    }
    diagnosis.shutdownNow();
    List<RedisClient> toShutDown = new ArrayList<>(clients.values());
    synchronized (this) {
      if (settingsClient != null) {
        toShutDown.add(settingsClient);
      }
    }
    for (RedisClient client : toShutDown) {
      try {
        client.shutdown(Duration.ZERO, SHUTDOWN_TIMEOUT);
      } catch (RuntimeException e) {
        log.warn("Lettuce client did not shut down cleanly: {}", e.toString());
      }
    }
    if (ownsResources) {
      try {
        resources
            .shutdown(0, SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
            .get(SHUTDOWN_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        log.warn("Lettuce client resources did not shut down cleanly: {}", e.toString());
      }
      // A timer handed to the resources builder is not stopped by their shutdown.
      resources.timer().stop();
    }
  }

  @Override
  public String toString() {
    return "RedisBackend[" + options + ", " + connections.size() + " connections]";
  }

  /** Connections not yet closed, or still closing (for tests). */
  List<RedisNodeConnection> openConnections() {
    return List.copyOf(connections);
  }

  /**
   * The URI of one node: host, port, database, handshake timeout, client name, credentials (as a
   * provider, so that no password sits in the URI) and TLS, then {@link
   * RedisBackendOptions.Builder#uriCustomizer}.
   */
  RedisURI redisUri(Node node) {
    RedisURI.Builder uri =
        RedisURI.builder()
            .withHost(node.host())
            .withPort(node.port())
            .withDatabase(options.database())
            // Bounds the handshake (PING or AUTH, SELECT, CLIENT SETNAME) of every (re)connection.
            .withTimeout(options.connectTimeout());
    options.clientName().ifPresent(uri::withClientName);
    options
        .credentialsFor(node)
        .ifPresent(auth -> uri.withAuthentication(RedisSecurity.credentialsProvider(auth)));
    options
        .tls()
        .ifPresent(
            tls ->
                uri.withSsl(true)
                    .withVerifyPeer(tls.verifyHostname() ? SslVerifyMode.FULL : SslVerifyMode.CA));
    options.uriCustomizer().ifPresent(customizer -> customizer.accept(uri));
    return uri.build();
  }

  /** The resources of a backend that was given none, which it shuts down when closed. */
  private static ClientResources ownResources(RedisBackendOptions options) {
    DefaultClientResources.Builder resources =
        DefaultClientResources.builder()
            .reconnectDelay(reconnectDelay(options.reconnectDelayMin(), options.reconnectDelayMax()))
            // Command timeouts fire on this timer: Netty's default 100 ms tick would let a 250 ms
            // timeout fire as late as 350 ms. 10 ms ticks keep it close.
            .timer(
                new io.netty.util.HashedWheelTimer(
                    new io.netty.util.concurrent.DefaultThreadFactory(
                        "shardwise-lettuce-timer", true),
                    10,
                    java.util.concurrent.TimeUnit.MILLISECONDS));
    if (options.consolidateFlushes()) {
      resources.nettyCustomizer(CONSOLIDATED_FLUSHES);
    }
    return resources.build();
  }

  /**
   * Adds Netty's {@link FlushConsolidationHandler} at the head of every connection's pipeline (see
   * {@link RedisBackendOptions.Builder#consolidateFlushes}): the commands that callers queued on a
   * connection's event loop before it runs go out with one flush (the flush runs as a task behind
   * them, in the same turn of the loop), and those written while replies are read go out when the
   * read is done.
   */
  static final NettyCustomizer CONSOLIDATED_FLUSHES =
      new NettyCustomizer() {
        @Override
        public void afterChannelInitialized(Channel channel) {
          // Netty's own defaults: a flush at least every 256, and consolidation also outside reads.
          channel.pipeline().addFirst(new FlushConsolidationHandler(256, true));
        }
      };

  static ClientOptions clientOptions(RedisBackendOptions options, Duration commandTimeout) {
    return clientOptions(options, commandTimeout, null, false);
  }

  /**
   * Lettuce's options for this backend's connections; with {@code tracked}, in RESP3, set
   * explicitly: the server sends the invalidations of tracked reads as push messages on the
   * connection that read, in order with its replies, and RESP2 has no push messages (a server asked
   * to track a RESP2 connection without a redirect sends nothing, silently). Left unset, Lettuce
   * would fall back to RESP2 where {@code HELLO} is refused; set, that refusal fails the attempt.
   */
  static ClientOptions clientOptions(
      RedisBackendOptions options, Duration commandTimeout, SslOptions sslOptions, boolean tracked) {
    ClientOptions.Builder builder = ClientOptions.builder();
    if (sslOptions != null) {
      builder.sslOptions(sslOptions);
    }
    return builder
        // RedisNodeConnection reconnects by itself: Lettuce's watchdog cannot be asked to make a
        // scheduled attempt now, which a probe of a server that is back needs (see there).
        .autoReconnect(false)
        // Fail requests at once while disconnected, and fail those in flight when the
        // connection drops, instead of buffering and replaying them after a reconnect.
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        // Untracked, RESP2: one PING handshake, plain replies, and no HELLO that proxies and old
        // servers refuse.
        .protocolVersion(tracked ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2)
        .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
        .socketOptions(
            SocketOptions.builder()
                .connectTimeout(options.connectTimeout())
                .tcpNoDelay(true)
                .build())
        .build();
  }

  /**
   * Exponential from {@code min} doubling to {@code max}, each delay drawn from the upper half of
   * its nominal value so that many clients do not retry in step.
   */
  static Delay reconnectDelay(Duration min, Duration max) {
    return Delay.fullJitter(min, max, min.toMillis(), TimeUnit.MILLISECONDS);
  }
}
