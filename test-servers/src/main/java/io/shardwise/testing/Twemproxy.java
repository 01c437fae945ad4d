package io.shardwise.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * A local twemproxy ({@code nutcracker}) in front of servers, for comparing key placement with a
 * reference implementation or testing through a proxy.
 *
 * <pre>{@code
 * try (Twemproxy proxy = Twemproxy.builder(fleet.servers()).hash("md5").start()) {
 *   proxy.memcachedClient().set("k", 0, bytes);
 * }
 * }</pre>
 *
 * <p>The proxy always runs as a local process (it reaches Docker-mode servers through their
 * loopback host ports). Its configuration is written to a temporary directory, its listen and stats
 * ports are free loopback ports, and {@link #close()} stops it and removes the directory.
 */
public final class Twemproxy implements AutoCloseable {
  /** The pool name used in the generated configuration. */
  public static final String POOL_NAME = "shardwise";

  private static final Set<String> HASHES =
      Set.of(
          "one_at_a_time",
          "md5",
          "crc16",
          "crc32",
          "crc32a",
          "fnv1_64",
          "fnv1a_64",
          "fnv1_32",
          "fnv1a_32",
          "hsieh",
          "murmur",
          "jenkins");
  private static final Set<String> DISTRIBUTIONS = Set.of("ketama", "modula", "random");
  private static final int PORT_ATTEMPTS = 5;
  private static final Duration PROBE_TIMEOUT = Duration.ofMillis(1000);

  private final Builder options;
  private final Path directory;
  private final Path configFile;
  private final Path logFile;
  private final Path outputFile;
  private int listenPort;
  private int statsPort;
  private ManagedProcess process;
  private boolean closed;

  private Twemproxy(Builder options, Path directory) {
    this.options = options;
    this.directory = directory;
    this.configFile = directory.resolve("nutcracker.yml");
    this.logFile = directory.resolve("nutcracker.log");
    this.outputFile = directory.resolve("nutcracker.out");
  }

  /** A proxy in front of {@code servers}, all memcached or all Redis. */
  public static Builder builder(List<? extends ServerHandle> servers) {
    return new Builder(servers);
  }

  private void start(Path executable) {
    long deadline = System.nanoTime() + options.startupTimeout.toNanos();
    for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
      listenPort = options.listenPort != 0 ? options.listenPort : FreePorts.next();
      statsPort = FreePorts.next();
      try {
        Files.writeString(configFile, config());
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write " + configFile, e);
      }
      if (launch(executable, deadline)) {
        return;
      }
    }
    throw new ServerStartupException(
        "nutcracker found its ports taken "
            + PORT_ATTEMPTS
            + " times in a row; last output:\n"
            + logTail());
  }

  /** Returns false when a port was taken, so the caller retries with other ports. */
  private boolean launch(Path executable, long deadline) {
    List<String> command =
        List.of(
            executable.toString(),
            "-c",
            configFile.toString(),
            "-s",
            Integer.toString(statsPort),
            "-a",
            ServerCommands.LOOPBACK,
            "-i",
            "1000",
            "-o",
            logFile.toString());
    String description = "nutcracker on " + address();
    ManagedProcess launched = ManagedProcess.launch(description, command, directory, outputFile);
    while (true) {
      if (!launched.isAlive()) {
        String output = launched.outputSinceLaunch() + "\n" + LocalOs.lastLines(logFile, 20);
        if (output.contains("Address already in use")) {
          return false;
        }
        throw new ServerStartupException(
            description
                + " exited with code "
                + launched.exitValue()
                + "; output:\n"
                + LocalOs.lastLines(output, 30)
                + "\nconfiguration:\n"
                + config());
      }
      if (statsAnswer(statsPort).isPresent() && accepts(listenPort)) {
        Optional<Boolean> owns = LocalOs.ownsListeningSocket(launched.pid(), listenPort);
        if (owns.isPresent() && !owns.get()) {
          launched.killNow();
          return false;
        }
        process = launched;
        return true;
      }
      if (System.nanoTime() > deadline) {
        launched.killNow();
        throw new ServerStartupException(
            description
                + " did not serve within "
                + options.startupTimeout
                + "; output:\n"
                + logTail());
      }
      LocalOs.sleep(20);
    }
  }

  private static Optional<String> statsAnswer(int port) {
    try {
      Socket socket = Wire.connect(ServerCommands.LOOPBACK, port, PROBE_TIMEOUT);
      try (InputStream in = socket.getInputStream()) {
        String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        return json.contains("\"service\":\"nutcracker\"") ? Optional.of(json) : Optional.empty();
      } finally {
        Wire.closeQuietly(socket);
      }
    } catch (IOException | UncheckedIOException e) {
      return Optional.empty();
    }
  }

  private static boolean accepts(int port) {
    try {
      Wire.closeQuietly(Wire.connect(ServerCommands.LOOPBACK, port, PROBE_TIMEOUT));
      return true;
    } catch (UncheckedIOException e) {
      return false;
    }
  }

  /** The nutcracker YAML configuration this proxy runs with. */
  public String config() {
    StringBuilder yaml = new StringBuilder();
    yaml.append(POOL_NAME).append(":\n");
    yaml.append("  listen: ")
        .append(ServerCommands.LOOPBACK)
        .append(':')
        .append(listenPort)
        .append('\n');
    yaml.append("  hash: ").append(options.hash).append('\n');
    yaml.append("  distribution: ").append(options.distribution).append('\n');
    if (options.hashTag != null) {
      yaml.append("  hash_tag: \"").append(options.hashTag).append("\"\n");
    }
    yaml.append("  redis: ").append(options.redis).append('\n');
    yaml.append("  timeout: ").append(options.timeout.toMillis()).append('\n');
    yaml.append("  preconnect: false\n");
    yaml.append("  server_connections: 1\n");
    yaml.append("  auto_eject_hosts: ").append(options.autoEjectHosts).append('\n');
    if (options.autoEjectHosts) {
      yaml.append("  server_retry_timeout: ")
          .append(options.serverRetryTimeout.toMillis())
          .append('\n');
      yaml.append("  server_failure_limit: ").append(options.serverFailureLimit).append('\n');
    }
    yaml.append("  servers:\n");
    for (int i = 0; i < options.servers.size(); i++) {
      ServerHandle server = options.servers.get(i);
      yaml.append("    - ").append(server.address()).append(":1");
      if (!options.serverNames.isEmpty()) {
        yaml.append(' ').append(options.serverNames.get(i));
      }
      yaml.append('\n');
    }
    return yaml.toString();
  }

  public String host() {
    return ServerCommands.LOOPBACK;
  }

  /** The port clients connect to. */
  public int listenPort() {
    return listenPort;
  }

  /** {@code 127.0.0.1:listenPort}. */
  public String address() {
    return host() + ":" + listenPort;
  }

  /** The stats port ({@code -s}), serving one JSON document per connection. */
  public int statsPort() {
    return statsPort;
  }

  /** The current stats JSON (refreshed every second). */
  public String stats() {
    return statsAnswer(statsPort)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "nutcracker stats port " + statsPort + " did not answer"));
  }

  public Path configFile() {
    return configFile;
  }

  public synchronized long pid() {
    return process.pid();
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** A raw memcached client through the proxy. */
  public MemcachedTextClient memcachedClient() {
    return new MemcachedTextClient(host(), listenPort, options.ioTimeout);
  }

  /** A raw Redis client through the proxy. */
  public RespClient redisClient() {
    return new RespClient(host(), listenPort, options.ioTimeout);
  }

  /** The last lines of nutcracker's log and output. */
  public String logTail() {
    return LocalOs.lastLines(outputFile, 10) + "\n" + LocalOs.lastLines(logFile, 30);
  }

  /** Graceful stop (SIGTERM); the configuration stays until {@link #close()}. */
  public synchronized void stop() {
    if (process != null) {
      process.terminate(Duration.ofSeconds(5));
    }
  }

  /** Stops the proxy and removes its directory; idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      if (process != null && process.isAlive()) {
        process.killNow();
      }
    } finally {
      LocalOs.deleteRecursively(directory);
      ShutdownReaper.unregister(this);
    }
  }

  @Override
  public String toString() {
    return "Twemproxy[" + address() + ", " + options.servers.size() + " servers]";
  }

  /** Options of a {@link Twemproxy}; {@link #start()} launches it. */
  public static final class Builder {
    private final List<ServerHandle> servers;
    private boolean redis;
    private String hash = "md5";
    private String distribution = "ketama";
    private List<String> serverNames = List.of();
    private String hashTag;
    private Duration timeout = Duration.ofSeconds(2);
    private boolean autoEjectHosts;
    private int serverFailureLimit = 2;
    private Duration serverRetryTimeout = Duration.ofSeconds(30);
    private Duration startupTimeout = Duration.ofSeconds(10);
    private Duration ioTimeout = ServerFleet.DEFAULT_IO_TIMEOUT;
    private int listenPort;
    private Path executable;

    private Builder(List<? extends ServerHandle> servers) {
      if (servers.isEmpty()) {
        throw new IllegalArgumentException("twemproxy needs at least one server");
      }
      this.servers = List.copyOf(servers);
      long redisCount = this.servers.stream().filter(s -> s.kind() == ServerKind.REDIS).count();
      if (redisCount != 0 && redisCount != this.servers.size()) {
        throw new IllegalArgumentException(
            "servers must be all memcached or all Redis but were " + this.servers);
      }
      this.redis = redisCount > 0;
    }

    /** {@code hash:} (default {@code md5}), e.g. {@code fnv1a_64}, {@code murmur}. */
    public Builder hash(String name) {
      if (!HASHES.contains(name)) {
        throw new IllegalArgumentException("hash must be one of " + HASHES + " but was " + name);
      }
      this.hash = name;
      return this;
    }

    /** {@code distribution:} (default {@code ketama}), or {@code modula}, {@code random}. */
    public Builder distribution(String name) {
      if (!DISTRIBUTIONS.contains(name)) {
        throw new IllegalArgumentException(
            "distribution must be one of " + DISTRIBUTIONS + " but was " + name);
      }
      this.distribution = name;
      return this;
    }

    /** {@code redis:}; by default true exactly when the servers are Redis servers. */
    public Builder redis(boolean isRedis) {
      this.redis = isRedis;
      return this;
    }

    /**
     * One name per server, in order: ketama then hashes the names instead of {@code host:port}, so
     * placement does not depend on the (random) ports.
     */
    public Builder serverNames(List<String> names) {
      if (names.size() != servers.size()) {
        throw new IllegalArgumentException(
            "need one name per server: "
                + servers.size()
                + " servers but "
                + names.size()
                + " names");
      }
      for (String name : names) {
        if (name.isBlank() || name.chars().anyMatch(Character::isWhitespace)) {
          throw new IllegalArgumentException(
              "server names may not be blank or contain spaces: '" + name + "'");
        }
      }
      this.serverNames = List.copyOf(names);
      return this;
    }

    /** {@code hash_tag:}, two characters such as {@code "{}"}. */
    public Builder hashTag(String tag) {
      if (tag.length() != 2 || tag.contains("\"")) {
        throw new IllegalArgumentException("hash_tag must be two characters but was '" + tag + "'");
      }
      this.hashTag = tag;
      return this;
    }

    /** {@code timeout:} for server requests (default 2 s). */
    public Builder timeout(Duration value) {
      this.timeout = Objects.requireNonNull(value, "timeout");
      return this;
    }

    /** {@code auto_eject_hosts:} (default false). */
    public Builder autoEjectHosts(boolean eject) {
      this.autoEjectHosts = eject;
      return this;
    }

    /** {@code server_failure_limit:} when ejecting hosts (default 2). */
    public Builder serverFailureLimit(int limit) {
      if (limit < 1) {
        throw new IllegalArgumentException("serverFailureLimit must be >= 1 but was " + limit);
      }
      this.serverFailureLimit = limit;
      return this;
    }

    /** {@code server_retry_timeout:} when ejecting hosts (default 30 s). */
    public Builder serverRetryTimeout(Duration value) {
      this.serverRetryTimeout = Objects.requireNonNull(value, "serverRetryTimeout");
      return this;
    }

    /** How long nutcracker may take to serve (default 10 s). */
    public Builder startupTimeout(Duration value) {
      this.startupTimeout = Objects.requireNonNull(value, "startupTimeout");
      return this;
    }

    /** Timeout of {@link #memcachedClient()} / {@link #redisClient()} (default 2 s). */
    public Builder ioTimeout(Duration value) {
      this.ioTimeout = Objects.requireNonNull(value, "ioTimeout");
      return this;
    }

    /**
     * Listens on this loopback port instead of a free one, for example the port of a server that
     * was stopped, so that its clients reconnect to the proxy.
     */
    public Builder listenPort(int port) {
      if (port < 1 || port > 65_535) {
        throw new IllegalArgumentException("listenPort must be 1 to 65535 but was " + port);
      }
      this.listenPort = port;
      return this;
    }

    /** This {@code nutcracker} binary instead of a PATH (and /usr/sbin) lookup. */
    public Builder executable(Path path) {
      this.executable = Objects.requireNonNull(path, "path");
      return this;
    }

    /** Writes the configuration, starts nutcracker and waits until it serves. */
    public Twemproxy start() {
      Path binary = LocalOs.requireExecutable(executable, "nutcracker", "nutcracker");
      Path directory;
      try {
        directory = Files.createTempDirectory("shardwise-twemproxy-");
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create a temporary directory", e);
      }
      Twemproxy proxy = new Twemproxy(copy(), directory);
      ShutdownReaper.register(proxy);
      try {
        proxy.start(binary);
      } catch (RuntimeException | Error e) {
        proxy.close();
        throw e;
      }
      return proxy;
    }

    private Builder copy() {
      Builder copy = new Builder(servers);
      copy.redis = redis;
      copy.hash = hash;
      copy.distribution = distribution;
      copy.serverNames = serverNames;
      copy.hashTag = hashTag;
      copy.timeout = timeout;
      copy.autoEjectHosts = autoEjectHosts;
      copy.serverFailureLimit = serverFailureLimit;
      copy.serverRetryTimeout = serverRetryTimeout;
      copy.startupTimeout = startupTimeout;
      copy.ioTimeout = ioTimeout;
      copy.listenPort = listenPort;
      copy.executable = executable;
      return copy;
    }
  }
}
