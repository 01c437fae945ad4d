package io.shardwise.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiFunction;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * N real memcached or Redis servers for a test class.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final ServerFleet<MemcachedServer> fleet = ServerFleet.memcached(5);
 *
 * @Test
 * void survivesAKilledServer() {
 *   fleet.server(2).kill();
 *   ...
 * }
 * }</pre>
 *
 * <p>Registered on a static field, the servers start before all tests of the class (and its
 * {@code @Nested} classes) and stop after them; on an instance field, around each test. Without
 * JUnit, call {@link #start()} and {@link #close()}. A JVM shutdown hook, and a watchdog per local
 * process, stop whatever is left if the tests crash.
 *
 * <p>Servers run in Docker (Testcontainers) when an engine is reachable, otherwise as local
 * processes on free loopback ports; see {@link ServerMode} for how to force one. Servers are not
 * flushed between tests: call {@link #flushAll()} (and {@link #restoreAll()} after failure tests)
 * in a {@code @BeforeEach}.
 *
 * @param <S> {@link MemcachedServer} or {@link RedisServer}
 */
public final class ServerFleet<S extends ServerHandle>
    implements BeforeAllCallback,
        AfterAllCallback,
        BeforeEachCallback,
        AfterEachCallback,
        AutoCloseable {

  /** Default memory limit per server ({@code -m} / {@code maxmemory}), in megabytes. */
  public static final int DEFAULT_MEMORY_MEGABYTES = 64;

  /** Default time a server may take to answer its first request. */
  public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(20);

  /** Default connect and read timeout of the raw helpers. */
  public static final Duration DEFAULT_IO_TIMEOUT = Duration.ofSeconds(2);

  private final ServerSpec spec;
  private final int size;
  private final ServerMode requestedMode;
  private final BiFunction<ServerInstance, Duration, S> handleFactory;

  private List<S> servers = List.of();
  private ServerMode resolvedMode;
  private String ownerContextId;

  private ServerFleet(Builder<S> builder) {
    this.spec =
        new ServerSpec(
            builder.kind,
            builder.persistent,
            builder.memoryMegabytes,
            builder.extraArgs,
            builder.startupTimeout,
            builder.ioTimeout,
            builder.executable,
            builder.image,
            builder.tls,
            builder.saslUsers);
    this.size = builder.servers;
    this.requestedMode = builder.mode;
    this.handleFactory = builder.handleFactory;
  }

  /** {@code servers} memcached servers with default options. */
  public static ServerFleet<MemcachedServer> memcached(int servers) {
    return memcachedBuilder().servers(servers).build();
  }

  /** {@code servers} Redis servers with default options (not persistent). */
  public static ServerFleet<RedisServer> redis(int servers) {
    return redisBuilder().servers(servers).build();
  }

  public static Builder<MemcachedServer> memcachedBuilder() {
    return new Builder<>(ServerKind.MEMCACHED, MemcachedServer::new);
  }

  public static Builder<RedisServer> redisBuilder() {
    return new Builder<>(ServerKind.REDIS, RedisServer::new);
  }

  /**
   * Starts every server (in parallel) and waits until each answers; returns {@code this}. If one
   * fails, those already started are stopped and a {@link ServerStartupException} says why.
   */
  public synchronized ServerFleet<S> start() {
    if (!servers.isEmpty()) {
      throw new IllegalStateException(this + " is already started");
    }
    ServerMode mode = resolveMode();
    Path executable =
        mode == ServerMode.LOCAL
            ? LocalOs.requireExecutable(
                spec.executable(),
                spec.kind().executableName(),
                spec.kind() == ServerKind.MEMCACHED ? "memcached" : "redis-server")
            : null;
    List<ServerInstance> instances = new ArrayList<>();
    try {
      for (int i = 0; i < size; i++) {
        instances.add(
            mode == ServerMode.LOCAL
                ? new LocalServer(spec, executable)
                : new ContainerServer(spec));
      }
      startAll(instances);
    } catch (RuntimeException | Error e) {
      instances.forEach(ServerFleet::closeQuietly);
      throw e;
    }
    List<S> handles = new ArrayList<>();
    for (ServerInstance instance : instances) {
      handles.add(handleFactory.apply(instance, spec.ioTimeout()));
    }
    servers = List.copyOf(handles);
    resolvedMode = mode;
    return this;
  }

  private ServerMode resolveMode() {
    ServerMode mode = requestedMode != null ? requestedMode : ServerMode.configured();
    if (spec.secured()) {
      if (mode == ServerMode.DOCKER) {
        throw new ServerStartupException(
            "tls() and sasl() fleets run as local processes only, but Docker mode was requested");
      }
      return ServerMode.LOCAL;
    }
    if (mode == ServerMode.AUTO) {
      return DockerDetection.isDockerLikelyAvailable() ? ServerMode.DOCKER : ServerMode.LOCAL;
    }
    if (mode == ServerMode.DOCKER && !DockerDetection.isDockerAvailable()) {
      throw new ServerStartupException(
          "Docker mode was requested ("
              + ServerMode.PROPERTY
              + "=docker or mode(DOCKER)) but"
              + " Testcontainers finds no reachable Docker engine; use local mode instead");
    }
    return mode;
  }

  private static void startAll(List<ServerInstance> instances) {
    if (instances.size() == 1) {
      instances.get(0).start();
      return;
    }
    ExecutorService executor =
        Executors.newFixedThreadPool(
            Math.min(instances.size(), 8),
            runnable -> {
              Thread thread = new Thread(runnable, "shardwise-server-start");
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<?>> starts = new ArrayList<>();
      for (ServerInstance instance : instances) {
        starts.add(executor.submit(instance::start));
      }
      RuntimeException failure = null;
      for (Future<?> start : starts) {
        try {
          start.get();
        } catch (ExecutionException e) {
          RuntimeException cause =
              e.getCause() instanceof RuntimeException runtime
                  ? runtime
                  : new ServerStartupException(
                      "server start failed: " + e.getCause(), e.getCause());
          if (failure == null) {
            failure = cause;
          } else {
            failure.addSuppressed(cause);
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new ServerStartupException("interrupted while starting servers", e);
        }
      }
      if (failure != null) {
        throw failure;
      }
    } finally {
      executor.shutdownNow();
    }
  }

  /** Stops every server and removes temporary files and containers; idempotent. */
  @Override
  public synchronized void close() {
    List<S> running = servers;
    servers = List.of();
    ownerContextId = null;
    for (S server : running) {
      closeQuietly(server.instance());
    }
  }

  private static void closeQuietly(ServerInstance instance) {
    try {
      instance.close();
    } catch (RuntimeException e) {
      System.err.println("shardwise-test-servers: could not close " + instance + ": " + e);
    }
  }

  public synchronized boolean isStarted() {
    return !servers.isEmpty();
  }

  public ServerKind kind() {
    return spec.kind();
  }

  /** {@link ServerMode#LOCAL} or {@link ServerMode#DOCKER} once started. */
  public synchronized ServerMode mode() {
    requireStarted();
    return resolvedMode;
  }

  /** Number of servers. */
  public int size() {
    return size;
  }

  public synchronized S server(int index) {
    requireStarted();
    return servers.get(index);
  }

  /** The servers in a fixed order. */
  public synchronized List<S> servers() {
    requireStarted();
    return servers;
  }

  /** {@code host:port} of each server, in order. */
  public synchronized List<String> addresses() {
    requireStarted();
    return servers.stream().map(ServerHandle::address).toList();
  }

  /** Flushes every server that is running and not paused. */
  public synchronized void flushAll() {
    requireStarted();
    for (S server : servers) {
      if (server.isRunning() && !server.isPaused()) {
        server.flushAll();
      }
    }
  }

  /** Resumes paused servers and restarts stopped ones, so the next test sees all of them up. */
  public synchronized void restoreAll() {
    requireStarted();
    for (S server : servers) {
      server.restore();
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    startFor(context);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    closeFor(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    startFor(context);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    closeFor(context);
  }

  private synchronized void startFor(ExtensionContext context) {
    if (servers.isEmpty()) {
      start();
      ownerContextId = context.getUniqueId();
    }
  }

  private synchronized void closeFor(ExtensionContext context) {
    if (context.getUniqueId().equals(ownerContextId)) {
      close();
    }
  }

  private void requireStarted() {
    if (servers.isEmpty()) {
      throw new IllegalStateException(
          this + " is not started: register it with @RegisterExtension or call start()");
    }
  }

  @Override
  public String toString() {
    return "ServerFleet["
        + size
        + " x "
        + spec.kind().displayName()
        + (resolvedMode == null
            ? ""
            : ", " + resolvedMode.name().toLowerCase(java.util.Locale.ROOT))
        + "]";
  }

  /** Options of a {@link ServerFleet}; {@link #build()} makes an unstarted fleet. */
  public static final class Builder<S extends ServerHandle> {
    private final ServerKind kind;
    private final BiFunction<ServerInstance, Duration, S> handleFactory;
    private int servers = 1;
    private ServerMode mode;
    private boolean persistent;
    private int memoryMegabytes = DEFAULT_MEMORY_MEGABYTES;
    private final List<String> extraArgs = new ArrayList<>();
    private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
    private Duration ioTimeout = DEFAULT_IO_TIMEOUT;
    private Path executable;
    private String image;
    private ServerTls tls;
    private final Map<String, String> saslUsers = new LinkedHashMap<>();

    private Builder(ServerKind kind, BiFunction<ServerInstance, Duration, S> handleFactory) {
      this.kind = kind;
      this.handleFactory = handleFactory;
    }

    /** Number of servers, 1 or more (default 1). */
    public Builder<S> servers(int count) {
      if (count < 1) {
        throw new IllegalArgumentException("servers must be >= 1 but was " + count);
      }
      this.servers = count;
      return this;
    }

    /**
     * Forces local processes or Docker; wins over {@value ServerMode#PROPERTY}. Unset, the
     * property, then the environment variable, then {@link ServerMode#AUTO} decide.
     */
    public Builder<S> mode(ServerMode mode) {
      this.mode = Objects.requireNonNull(mode, "mode");
      return this;
    }

    /**
     * Redis only: an append-only file fsynced on every write, in the server's own directory (or
     * container), so data survives {@link ServerHandle#kill()} followed by {@link
     * ServerHandle#restart()}.
     */
    public Builder<S> persistent() {
      if (kind != ServerKind.REDIS) {
        throw new IllegalStateException("persistent() applies to Redis only, not " + kind);
      }
      this.persistent = true;
      return this;
    }

    /** Memory limit per server in megabytes (memcached {@code -m}, Redis {@code maxmemory}). */
    public Builder<S> memoryMegabytes(int megabytes) {
      if (megabytes < 1) {
        throw new IllegalArgumentException("memoryMegabytes must be >= 1 but was " + megabytes);
      }
      this.memoryMegabytes = megabytes;
      return this;
    }

    /**
     * Arguments appended to the server command line, after the defaults (so they override them
     * where the server lets later options win), e.g. {@code "-S"} or {@code "--requirepass", "x"}.
     */
    public Builder<S> extraArgs(String... args) {
      extraArgs.addAll(Arrays.asList(args));
      return this;
    }

    /**
     * Redis only: TLS only, on the port the fleet picks ({@code --port 0 --tls-port P} with the
     * given files). Such a fleet runs as local processes; its raw helpers ({@code command}, {@code
     * flushAll}, ...) speak plaintext and cannot reach it, {@link ServerHandle#isAnswering()} and
     * failure injection work.
     */
    public Builder<S> tls(ServerTls serverTls) {
      if (kind != ServerKind.REDIS) {
        throw new IllegalStateException("tls() applies to Redis only, not " + kind);
      }
      this.tls = Objects.requireNonNull(serverTls, "serverTls");
      return this;
    }

    /**
     * memcached only: SASL authentication ({@code -S}, binary protocol only, mechanism PLAIN)
     * against a sasldb holding this user; call again to add users. Needs {@code saslpasswd2}
     * (Debian package {@code sasl2-bin}). Such a fleet runs as local processes; its text-protocol
     * raw helpers cannot reach it, {@link ServerHandle#isAnswering()} (binary {@code version}) and
     * failure injection work.
     */
    public Builder<S> sasl(String username, String password) {
      if (kind != ServerKind.MEMCACHED) {
        throw new IllegalStateException("sasl() applies to memcached only, not " + kind);
      }
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
      if (username.isEmpty() || password.isEmpty()) {
        throw new IllegalArgumentException("SASL user name and password must not be empty");
      }
      saslUsers.put(username, password);
      return this;
    }

    /** How long a server may take to answer its first request (default 20 s). */
    public Builder<S> startupTimeout(Duration timeout) {
      this.startupTimeout = positive(timeout, "startupTimeout");
      return this;
    }

    /** Connect and read timeout of the raw helpers (default 2 s). */
    public Builder<S> ioTimeout(Duration timeout) {
      this.ioTimeout = positive(timeout, "ioTimeout");
      return this;
    }

    /** Local mode: this binary instead of a PATH lookup. */
    public Builder<S> executable(Path path) {
      this.executable = Objects.requireNonNull(path, "path");
      return this;
    }

    /** Docker mode: this image instead of {@link ServerKind#defaultImage()}. */
    public Builder<S> image(String dockerImage) {
      this.image = Objects.requireNonNull(dockerImage, "dockerImage");
      return this;
    }

    public ServerFleet<S> build() {
      return new ServerFleet<>(this);
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0 but was " + value);
      }
      return value;
    }
  }
}
