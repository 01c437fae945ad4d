package io.shardwise.redis;

import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
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
 * <p>Lettuce {@link ClientResources} (event loops, timer, reconnect delay) are shared by every node
 * connection of a backend. Pass your own with {@link Builder#clientResources} to share them with
 * other Lettuce clients in the application: the backend then never shuts them down, and their own
 * reconnect delay applies instead of {@link Builder#reconnectDelay}.
 */
public final class RedisBackendOptions {

  /** Redis logical database selected on every connection: {@value}. */
  public static final int DEFAULT_DATABASE = 0;

  /**
   * Longest wait for a reply: 250 ms. A request fails with {@link RedisTimeoutException} once it
   * has waited this long (within the 100 ms tick of Lettuce's default timer).
   */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMillis(250);

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
  private final ClientResources clientResources;
  private final Consumer<RedisURI.Builder> uriCustomizer;

  private RedisBackendOptions(Builder builder) {
    this.database = builder.database;
    this.clientName = builder.clientName;
    this.commandTimeout = builder.commandTimeout;
    this.connectTimeout = builder.connectTimeout;
    this.reconnectDelayMin = builder.reconnectDelayMin;
    this.reconnectDelayMax = builder.reconnectDelayMax;
    this.reconnectDelaySet = builder.reconnectDelaySet;
    this.clientResources = builder.clientResources;
    this.uriCustomizer = builder.uriCustomizer;
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
        + ", clientResources="
        + (clientResources == null ? "own" : "given")
        + (uriCustomizer == null ? "" : ", uriCustomizer")
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
    private ClientResources clientResources;
    private Consumer<RedisURI.Builder> uriCustomizer;

    private Builder() {}

    private Builder(RedisBackendOptions options) {
      this.database = options.database;
      this.clientName = options.clientName;
      this.commandTimeout = options.commandTimeout;
      this.connectTimeout = options.connectTimeout;
      this.reconnectDelayMin = options.reconnectDelayMin;
      this.reconnectDelayMax = options.reconnectDelayMax;
      this.reconnectDelaySet = options.reconnectDelaySet;
      this.clientResources = options.clientResources;
      this.uriCustomizer = options.uriCustomizer;
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
     * <p>Lettuce logs a failed reconnect attempt at most once per 5 s per connection; with a max of
     * 10 s a server that stays down costs about two log lines per 10 s. A larger max quiets the log
     * further but delays recovery by up to that much after the server is back.
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
     * Lettuce resources to share with the rest of the application, or null for resources the
     * backend creates and shuts down itself (the default). Given resources are never shut down by
     * the backend, and their reconnect delay applies.
     */
    public Builder clientResources(ClientResources resources) {
      this.clientResources = resources;
      return this;
    }

    /**
     * Applied last to the {@link RedisURI} of every node, after host, port, database, client name
     * and connect timeout are set; null for none. It may change anything on the builder. This is
     * where settings without an option of their own (credentials, TLS) go for now.
     */
    public Builder uriCustomizer(Consumer<RedisURI.Builder> customizer) {
      this.uriCustomizer = customizer;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalStateException if both {@link #reconnectDelay} and {@link #clientResources}
     *     were set: the delay lives in the resources
     */
    public RedisBackendOptions build() {
      if (reconnectDelaySet && clientResources != null) {
        throw new IllegalStateException(
            "reconnectDelay applies only to the ClientResources the backend creates; "
                + "set the reconnect delay on the given ClientResources instead");
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
