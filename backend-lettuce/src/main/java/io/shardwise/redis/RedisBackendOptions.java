package io.shardwise.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import io.shardwise.client.Secret;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Immutable options of a {@link RedisBackend}. Create them with {@link #builder()}, change a copy
 * with {@link #mutate()}; {@link #defaults()} holds every {@code DEFAULT_*} value.
 *
 * <pre>{@code
 * RedisBackendOptions options = RedisBackendOptions.builder()
 *     .database(2)
 *     .clientName("orders-cache")
 *     .commandTimeout(Duration.ofMillis(100))
 *     .build();
 * }</pre>
 *
 * <p>Security: {@link Builder#password} (and {@link Builder#username} for an ACL user) are sent
 * with {@code AUTH} on every connection; {@link Builder#nodeCredentials} overrides them for single
 * nodes; {@link Builder#tls} turns on TLS. Passwords are {@link Secret}s: {@link #toString()} and
 * every message show at most where they came from ({@code env:NAME}, {@code file:/path}).
 *
 * <pre>{@code
 * RedisBackendOptions options = RedisBackendOptions.builder()
 *     .username("orders")
 *     .password(Secret.resolve("env:REDIS_PASSWORD"))
 *     .nodeCredentials("cache-c", null, Secret.resolve("file:/run/secrets/cache-c"))
 *     .tls(RedisTlsOptions.builder().caFile(Path.of("/etc/redis/ca.pem")).build())
 *     .build();
 * }</pre>
 *
 * <p>Lettuce {@link ClientResources} (event loops, timer, reconnect delay) are shared by every node
 * connection of a backend. Pass your own with {@link Builder#clientResources} to share them with
 * other Lettuce clients in the application: the backend then never shuts them down, their own
 * reconnect delay applies instead of {@link Builder#reconnectDelay}, and their own Netty customizer
 * instead of {@link Builder#consolidateFlushes} (add Netty's {@code FlushConsolidationHandler} in
 * yours to consolidate flushes).
 */
public final class RedisBackendOptions {

  /** Whether the backend's own resources consolidate flushes by default: {@value}. */
  public static final boolean DEFAULT_CONSOLIDATE_FLUSHES = true;

  /** Redis logical database selected on every connection: {@value}. */
  public static final int DEFAULT_DATABASE = 0;

  /**
   * Longest wait for a reply: 1 s, as mcrouter's server timeout (Lettuce's own default is 60 s). A
   * request fails with {@link RedisTimeoutException} once it has waited this long (within the 10 ms
   * tick of the backend's timer; 100 ms with client resources passed in that keep Netty's default).
   */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofSeconds(1);

  /** Longest wait for a TCP connection and the Redis handshake: 1 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);

  /** First delay between connection attempts to a server that is down: 100 ms. */
  public static final Duration DEFAULT_RECONNECT_DELAY_MIN = Duration.ofMillis(100);

  /** Longest delay between connection attempts to a server that is down: 10 s. */
  public static final Duration DEFAULT_RECONNECT_DELAY_MAX = Duration.ofSeconds(10);

  private static final RedisBackendOptions DEFAULTS = new Builder().build();

  private final int database;
  private final String clientName;
  private final Duration commandTimeout;
  private final Duration connectTimeout;
  private final Duration reconnectDelayMin;
  private final Duration reconnectDelayMax;
  private final boolean reconnectDelaySet;
  private final boolean consolidateFlushes;
  private final boolean consolidateFlushesSet;
  private final ClientResources clientResources;
  private final Consumer<RedisURI.Builder> uriCustomizer;
  private final String username;
  private final Secret password;
  private final Map<String, RedisAuth> nodeCredentials;
  private final RedisTlsOptions tls;

  private RedisBackendOptions(Builder builder) {
    this.database = builder.database;
    this.clientName = builder.clientName;
    this.commandTimeout = builder.commandTimeout;
    this.connectTimeout = builder.connectTimeout;
    this.reconnectDelayMin = builder.reconnectDelayMin;
    this.reconnectDelayMax = builder.reconnectDelayMax;
    this.reconnectDelaySet = builder.reconnectDelaySet;
    this.consolidateFlushes = builder.consolidateFlushes;
    this.consolidateFlushesSet = builder.consolidateFlushesSet;
    this.clientResources = builder.clientResources;
    this.uriCustomizer = builder.uriCustomizer;
    this.username = builder.username;
    this.password = builder.password;
    this.nodeCredentials =
        Collections.unmodifiableMap(new LinkedHashMap<>(builder.nodeCredentials));
    this.tls = builder.tls;
  }

  /** A builder with every option at its default. */
  public static Builder builder() {
    return new Builder();
  }

  /** The options with every value at its default. */
  public static RedisBackendOptions defaults() {
    return DEFAULTS;
  }

  /** A builder initialised with these options. */
  public Builder mutate() {
    return new Builder(this);
  }

  /** The logical database ({@code SELECT}) of every connection. */
  public int database() {
    return database;
  }

  /** The name sent with {@code CLIENT SETNAME} on every connection, if any. */
  public Optional<String> clientName() {
    return Optional.ofNullable(clientName);
  }

  /** Longest wait for the reply to a request. */
  public Duration commandTimeout() {
    return commandTimeout;
  }

  /** Longest wait for a TCP connection plus the Redis handshake. */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** Whether the commands queued on a connection go out with one flush; see the builder. */
  public boolean consolidateFlushes() {
    return consolidateFlushes;
  }

  /** First delay between attempts to (re)connect to a server that is down. */
  public Duration reconnectDelayMin() {
    return reconnectDelayMin;
  }

  /** Longest delay between attempts to (re)connect to a server that is down. */
  public Duration reconnectDelayMax() {
    return reconnectDelayMax;
  }

  /** The application's own Lettuce resources, if given; otherwise the backend creates its own. */
  public Optional<ClientResources> clientResources() {
    return Optional.ofNullable(clientResources);
  }

  /** The customizer applied last to every node's {@link RedisURI}, if any. */
  public Optional<Consumer<RedisURI.Builder>> uriCustomizer() {
    return Optional.ofNullable(uriCustomizer);
  }

  /** The ACL user name sent with {@code AUTH}, if any (else the {@code default} user). */
  public Optional<String> username() {
    return Optional.ofNullable(username);
  }

  /** The password sent with {@code AUTH}, if any. */
  public Optional<Secret> password() {
    return Optional.ofNullable(password);
  }

  /**
   * Per-node credentials, by node name or {@code host:port}; a missing part of one is taken from
   * {@link #username()} / {@link #password()}.
   */
  public Map<String, RedisAuth> nodeCredentials() {
    return nodeCredentials;
  }

  /** TLS settings, if TLS is on. */
  public Optional<RedisTlsOptions> tls() {
    return Optional.ofNullable(tls);
  }

  /**
   * The credentials a connection to {@code node} sends: its entry in {@link #nodeCredentials()}
   * (looked up by {@link Node#name()}, then {@link Node#address()}) over the fleet's user name and
   * password; empty when there is no password at all.
   *
   * @throws IllegalArgumentException if a user name is set but no password
   */
  public Optional<RedisAuth> credentialsFor(Node node) {
    Objects.requireNonNull(node, "node");
    RedisAuth fleet =
        username == null && password == null ? null : RedisAuth.of(username, password);
    RedisAuth own = nodeCredentials.get(node.name());
    if (own == null) {
      own = nodeCredentials.get(node.address());
    }
    RedisAuth auth = own != null ? own.over(fleet) : fleet;
    if (auth == null) {
      return Optional.empty();
    }
    if (auth.password().isEmpty()) {
      throw new IllegalArgumentException(
          "redis node "
              + node.name()
              + ": user name '"
              + auth.username().orElse("")
              + "' is set but no password; set a password for the fleet or for this node"
              + " (an ACL user with nopass accepts any password)");
    }
    return Optional.of(auth);
  }

  @Override
  public String toString() {
    return "RedisBackendOptions[database="
        + database
        + ", clientName="
        + clientName
        + ", commandTimeout="
        + commandTimeout
        + ", connectTimeout="
        + connectTimeout
        + ", reconnectDelay="
        + (clientResources == null
            ? reconnectDelayMin + ".." + reconnectDelayMax
            : "from the given ClientResources")
        + (clientResources == null ? ", consolidateFlushes=" + consolidateFlushes : "")
        + ", clientResources="
        + (clientResources == null ? "own" : "given")
        + (uriCustomizer == null ? "" : ", uriCustomizer")
        + (username == null ? "" : ", username=" + username)
        + (password == null ? "" : ", password=" + Secret.MASK + " (" + password.source() + ")")
        + (nodeCredentials.isEmpty() ? "" : ", nodeCredentials=" + nodeCredentials)
        + (tls == null ? "" : ", tls=" + tls)
        + "]";
  }

  /** Builds {@link RedisBackendOptions}; every setter validates its argument at once. */
  public static final class Builder {

    private int database = DEFAULT_DATABASE;
    private String clientName;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration reconnectDelayMin = DEFAULT_RECONNECT_DELAY_MIN;
    private Duration reconnectDelayMax = DEFAULT_RECONNECT_DELAY_MAX;
    private boolean reconnectDelaySet;
    private boolean consolidateFlushes = DEFAULT_CONSOLIDATE_FLUSHES;
    private boolean consolidateFlushesSet;
    private ClientResources clientResources;
    private Consumer<RedisURI.Builder> uriCustomizer;
    private String username;
    private Secret password;
    private final Map<String, RedisAuth> nodeCredentials = new LinkedHashMap<>();
    private RedisTlsOptions tls;

    private Builder() {}

    private Builder(RedisBackendOptions options) {
      this.database = options.database;
      this.clientName = options.clientName;
      this.commandTimeout = options.commandTimeout;
      this.connectTimeout = options.connectTimeout;
      this.reconnectDelayMin = options.reconnectDelayMin;
      this.reconnectDelayMax = options.reconnectDelayMax;
      this.reconnectDelaySet = options.reconnectDelaySet;
      this.consolidateFlushes = options.consolidateFlushes;
      this.consolidateFlushesSet = options.consolidateFlushesSet;
      this.clientResources = options.clientResources;
      this.uriCustomizer = options.uriCustomizer;
      this.username = options.username;
      this.password = options.password;
      this.nodeCredentials.putAll(options.nodeCredentials);
      this.tls = options.tls;
    }

    /**
     * The logical database to {@code SELECT}, {@code >= 0} (default {@value #DEFAULT_DATABASE}).
     */
    public Builder database(int database) {
      if (database < 0) {
        throw new IllegalArgumentException("database must be >= 0 but was " + database);
      }
      this.database = database;
      return this;
    }

    /**
     * The connection name shown by {@code CLIENT LIST}, or null for none (the default). Redis
     * accepts printable ASCII without spaces.
     */
    public Builder clientName(String clientName) {
      if (clientName != null) {
        if (clientName.isEmpty()) {
          throw new IllegalArgumentException("clientName must not be empty; use null for none");
        }
        for (int i = 0; i < clientName.length(); i++) {
          char c = clientName.charAt(i);
          if (c < '!' || c > '~') {
            throw new IllegalArgumentException(
                "clientName must be printable ASCII without spaces but has "
                    + String.format("U+%04X", (int) c)
                    + " at index "
                    + i
                    + ": '"
                    + clientName
                    + "'");
          }
        }
      }
      this.clientName = clientName;
      return this;
    }

    /** Longest wait for a reply, {@code > 0} (default 250 ms). */
    public Builder commandTimeout(Duration timeout) {
      this.commandTimeout = positiveMillis(timeout, "commandTimeout");
      return this;
    }

    /** Longest wait for a TCP connection and the handshake, {@code > 0} (default 1 s). */
    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = positiveMillis(timeout, "connectTimeout");
      return this;
    }

    /**
     * Delays between attempts to (re)connect to a server that is down: they double from {@code min}
     * up to {@code max}, each drawn between half and all of its nominal value (default 100 ms to 10
     * s). Applies only to the {@link ClientResources} the backend creates itself.
     *
     * <p>These are the background attempts. A {@code ping()} (the routing client's probe of an
     * ejected node) makes the next attempt at once, so a large max does not delay the readmission
     * of a server that is back; it only spaces out the attempts to one that stays down. The log
     * gets one line when a connection is lost and at most one a minute while it stays down,
     * whatever the delays.
     */
    public Builder reconnectDelay(Duration min, Duration max) {
      Duration lower = positiveMillis(min, "reconnectDelay min");
      Duration upper = positiveMillis(max, "reconnectDelay max");
      if (upper.compareTo(lower) < 0) {
        throw new IllegalArgumentException(
            "reconnectDelay max must be >= min but was " + upper + " < " + lower);
      }
      this.reconnectDelayMin = lower;
      this.reconnectDelayMax = upper;
      this.reconnectDelaySet = true;
      return this;
    }

    /**
     * Whether the commands queued on one connection's event loop go out with one flush (Netty's
     * {@code FlushConsolidationHandler} on every connection; default {@value
     * RedisBackendOptions#DEFAULT_CONSOLIDATE_FLUSHES}). Lettuce alone flushes every command as it
     * writes it, one {@code write} system call each. Consolidated, a connection that several
     * threads, an async batch or replicated writes keep busy sends its commands together, at less
     * CPU per command and a higher rate; the first commands of such a group wait for the others to
     * be written (microseconds), which a single connection kept busy by blocking threads on the
     * same host as its server can feel (docs/benchmarks.md). Applies to the ClientResources the
     * backend creates.
     */
    public Builder consolidateFlushes(boolean consolidate) {
      this.consolidateFlushes = consolidate;
      this.consolidateFlushesSet = true;
      return this;
    }

    /**
     * Lettuce resources to share with the rest of the application, or null for resources the
     * backend creates and shuts down itself (the default). Given resources are never shut down by
     * the backend, and their reconnect delay, timer and Netty customizer apply.
     */
    public Builder clientResources(ClientResources resources) {
      this.clientResources = resources;
      return this;
    }

    /**
     * The ACL user of every connection ({@code AUTH username password}), or null for the {@code
     * default} user (the default). Needs a {@link #password}.
     */
    public Builder username(String username) {
      this.username = username == null ? null : RedisAuth.checkUsername(username);
      return this;
    }

    /**
     * The password of every connection ({@code AUTH}), or null for none (the default). Give a
     * reference with {@link Secret#resolve(String)}: {@code env:NAME}, {@code file:/path}.
     */
    public Builder password(Secret password) {
      this.password = password;
      return this;
    }

    /**
     * Credentials for one node where they differ from the fleet's: {@code node} is the node's name
     * ({@code cache-c} in {@code cache-c=10.0.0.3:6379}) or its {@code host:port}. A null {@code
     * username} or {@code password} keeps the fleet's; both null removes the override.
     */
    public Builder nodeCredentials(String node, String username, Secret password) {
      Objects.requireNonNull(node, "node");
      if (node.isEmpty()) {
        throw new IllegalArgumentException("node must not be empty");
      }
      if (username == null && password == null) {
        nodeCredentials.remove(node);
      } else {
        nodeCredentials.put(node, RedisAuth.of(username, password));
      }
      return this;
    }

    /** TLS for every connection, or null for plaintext (the default). */
    public Builder tls(RedisTlsOptions tls) {
      this.tls = tls;
      return this;
    }

    /** TLS with {@link RedisTlsOptions#defaults()} (true), or plaintext (false). */
    public Builder tls(boolean enabled) {
      this.tls = enabled ? RedisTlsOptions.defaults() : null;
      return this;
    }

    /**
     * Applied last to the {@link RedisURI} of every node, after host, port, database, client name,
     * connect timeout, credentials and TLS are set; null for none. It may change anything on the
     * builder.
     */
    public Builder uriCustomizer(Consumer<RedisURI.Builder> customizer) {
      this.uriCustomizer = customizer;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalStateException if {@link #reconnectDelay} or {@link #consolidateFlushes} was
     *     set with {@link #clientResources} (both live in the resources), or a user name is set
     *     with no password anywhere
     */
    public RedisBackendOptions build() {
      if (reconnectDelaySet && clientResources != null) {
        throw new IllegalStateException(
            "reconnectDelay applies only to the ClientResources the backend creates; "
                + "set the reconnect delay on the given ClientResources instead");
      }
      if (consolidateFlushesSet && clientResources != null) {
        throw new IllegalStateException(
            "consolidateFlushes applies only to the ClientResources the backend creates; "
                + "add Netty's FlushConsolidationHandler in the given ClientResources'"
                + " NettyCustomizer instead");
      }
      if (username != null
          && password == null
          && nodeCredentials.values().stream().allMatch(a -> a.password().isEmpty())) {
        throw new IllegalStateException(
            "username '" + username + "' is set but no password; AUTH needs both");
      }
      return new RedisBackendOptions(this);
    }

    private static Duration positiveMillis(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be > 0 but was " + value);
      }
      if (value.compareTo(Duration.ofMillis(1)) < 0) {
        throw new IllegalArgumentException(name + " must be at least 1 ms but was " + value);
      }
      if (value.compareTo(Duration.ofMillis(Integer.MAX_VALUE)) > 0) {
        throw new IllegalArgumentException(
            name + " must be at most " + Integer.MAX_VALUE + " ms but was " + value);
      }
      return value;
    }
  }
}
