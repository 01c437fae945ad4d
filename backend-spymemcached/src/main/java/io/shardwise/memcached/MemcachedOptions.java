package io.shardwise.memcached;

import io.shardwise.client.Secret;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Immutable options of a {@link MemcachedBackend}. Build with {@link #builder()}, change a copy
 * with {@link #mutate()}:
 *
 * <pre>{@code
 * MemcachedOptions options =
 *     MemcachedOptions.builder()
 *         .protocol(MemcachedProtocol.BINARY)
 *         .operationTimeout(Duration.ofMillis(100))
 *         .build();
 * }</pre>
 *
 * <p>SASL authentication (mechanism PLAIN, what memcached started with {@code -S} offers) needs the
 * binary protocol, the only one memcached speaks SASL over:
 *
 * <pre>{@code
 * MemcachedOptions.builder()
 *     .protocol(MemcachedProtocol.BINARY)
 *     .sasl("orders", Secret.resolve("env:MEMCACHED_PASSWORD"))
 *     .build();
 * }</pre>
 */
public final class MemcachedOptions {

  /** The text protocol, which every memcached and twemproxy speaks. */
  public static final MemcachedProtocol DEFAULT_PROTOCOL = MemcachedProtocol.TEXT;

  /**
   * A request without a reply after this long fails with {@link MemcachedTimeoutException}: 1 s,
   * as mcrouter's server timeout (spymemcached waits 2.5 s); long enough that a loaded client
   * machine does not time out live servers.
   */
  public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(1);

  /** How long {@link MemcachedBackend#connect} waits for the first connection attempt. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);

  /**
   * Longest pause between two background reconnection attempts to a server that is down: 30 s, as
   * spymemcached. It does not delay readmission: the client's health probe ({@code ping()}) of a
   * disconnected node makes an attempt at once, so a server that comes back is used again on the
   * probe's schedule; the backoff only bounds what a server that stays down costs (one connection
   * attempt every 30 s, logged at DEBUG).
   */
  public static final Duration DEFAULT_MAX_RECONNECT_DELAY = Duration.ofSeconds(30);

  /** Client threads do not keep the JVM alive. */
  public static final boolean DEFAULT_DAEMON_THREADS = true;

  private static final MemcachedOptions DEFAULTS = builder().build();

  private final MemcachedProtocol protocol;
  private final Duration operationTimeout;
  private final Duration connectTimeout;
  private final Duration maxReconnectDelay;
  private final boolean daemonThreads;
  private final String saslUsername;
  private final Secret saslPassword;

  private MemcachedOptions(Builder builder) {
    this.protocol = builder.protocol;
    this.operationTimeout = builder.operationTimeout;
    this.connectTimeout = builder.connectTimeout;
    this.maxReconnectDelay = builder.maxReconnectDelay;
    this.daemonThreads = builder.daemonThreads;
    this.saslUsername = builder.saslUsername;
    this.saslPassword = builder.saslPassword;
  }

  /** The options with every default. */
  public static MemcachedOptions defaults() {
    return DEFAULTS;
  }

  /** A builder holding the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding these options. */
  public Builder mutate() {
    Builder builder = new Builder();
    builder.protocol = protocol;
    builder.operationTimeout = operationTimeout;
    builder.connectTimeout = connectTimeout;
    builder.maxReconnectDelay = maxReconnectDelay;
    builder.daemonThreads = daemonThreads;
    builder.saslUsername = saslUsername;
    builder.saslPassword = saslPassword;
    return builder;
  }

  public MemcachedProtocol protocol() {
    return protocol;
  }

  /** Time a request may wait for its reply. */
  public Duration operationTimeout() {
    return operationTimeout;
  }

  /**
   * How long {@link MemcachedBackend#connect} waits for the first connection attempt to succeed or
   * fail; the connection keeps trying in the background after that.
   */
  public Duration connectTimeout() {
    return connectTimeout;
  }

  /** Longest pause between background reconnection attempts, in whole seconds. */
  public Duration maxReconnectDelay() {
    return maxReconnectDelay;
  }

  /** Whether the I/O, callback and timer threads are daemon threads. */
  public boolean daemonThreads() {
    return daemonThreads;
  }

  /** The SASL user name, if SASL authentication is on. */
  public Optional<String> saslUsername() {
    return Optional.ofNullable(saslUsername);
  }

  /** The SASL password, if SASL authentication is on. */
  public Optional<Secret> saslPassword() {
    return Optional.ofNullable(saslPassword);
  }

  /** Whether connections authenticate with SASL PLAIN. */
  public boolean sasl() {
    return saslUsername != null;
  }

  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof MemcachedOptions)) {
      return false;
    }
    MemcachedOptions other = (MemcachedOptions) o;
    return protocol == other.protocol
        && operationTimeout.equals(other.operationTimeout)
        && connectTimeout.equals(other.connectTimeout)
        && maxReconnectDelay.equals(other.maxReconnectDelay)
        && daemonThreads == other.daemonThreads
        && Objects.equals(saslUsername, other.saslUsername)
        && Objects.equals(saslPassword, other.saslPassword);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        protocol, operationTimeout, connectTimeout, maxReconnectDelay, daemonThreads, saslUsername);
  }

  @Override
  public String toString() {
    return "MemcachedOptions[protocol="
        + protocol
        + ", operationTimeout="
        + operationTimeout.toMillis()
        + "ms"
        + ", connectTimeout="
        + connectTimeout.toMillis()
        + "ms"
        + ", maxReconnectDelay="
        + maxReconnectDelay.toSeconds()
        + "s"
        + ", daemonThreads="
        + daemonThreads
        + (saslUsername == null
            ? ""
            : ", sasl=" + saslUsername + ":" + Secret.MASK + " (" + saslPassword.source() + ")")
        + "]";
  }

  /** Builds {@link MemcachedOptions}; every setter checks its value at once. */
  public static final class Builder {
    private MemcachedProtocol protocol = DEFAULT_PROTOCOL;
    private Duration operationTimeout = DEFAULT_OPERATION_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration maxReconnectDelay = DEFAULT_MAX_RECONNECT_DELAY;
    private boolean daemonThreads = DEFAULT_DAEMON_THREADS;
    private String saslUsername;
    private Secret saslPassword;

    private Builder() {}

    /** The wire protocol (default {@link MemcachedProtocol#TEXT}). */
    public Builder protocol(MemcachedProtocol protocol) {
      this.protocol = Objects.requireNonNull(protocol, "protocol");
      return this;
    }

    /** Time a request may wait for its reply, at least 1 ms (default 1 s). */
    public Builder operationTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "operationTimeout");
      if (timeout.toMillis() < 1) {
        throw new IllegalArgumentException("operationTimeout must be >= 1ms but was " + timeout);
      }
      this.operationTimeout = timeout;
      return this;
    }

    /**
     * How long {@code connect} waits for the first connection attempt, 0 or more (default 1 s). 0
     * returns at once; requests then fail until the connection is up.
     */
    public Builder connectTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "connectTimeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("connectTimeout must be >= 0 but was " + timeout);
      }
      this.connectTimeout = timeout;
      return this;
    }

    /**
     * Longest pause between background reconnection attempts, at least 1 s (default 30 s); rounded
     * up to whole seconds. A lost connection is retried at once, then after 250 ms, doubling up to
     * this delay; a {@code ping()} of a disconnected node (the client's health probe) attempts at
     * once whatever the backoff.
     */
    public Builder maxReconnectDelay(Duration delay) {
      Objects.requireNonNull(delay, "maxReconnectDelay");
      if (delay.compareTo(Duration.ofSeconds(1)) < 0) {
        throw new IllegalArgumentException("maxReconnectDelay must be >= 1s but was " + delay);
      }
      long seconds = delay.getSeconds();
      if (delay.getNano() > 0 && seconds < Long.MAX_VALUE) {
        seconds++;
      }
      this.maxReconnectDelay = Duration.ofSeconds(seconds);
      return this;
    }

    /** Whether client threads are daemon threads (default true). */
    public Builder daemonThreads(boolean daemon) {
      this.daemonThreads = daemon;
      return this;
    }

    /**
     * SASL PLAIN authentication with this user and password on every connection, or both null for
     * none (the default). Needs {@link MemcachedProtocol#BINARY}. Give the password as a reference
     * with {@link Secret#resolve(String)}: {@code env:NAME}, {@code file:/path}.
     */
    public Builder sasl(String username, Secret password) {
      if (username == null && password == null) {
        this.saslUsername = null;
        this.saslPassword = null;
        return this;
      }
      Objects.requireNonNull(username, "SASL username");
      Objects.requireNonNull(password, "SASL password");
      if (username.isEmpty()) {
        throw new IllegalArgumentException("SASL username must not be empty");
      }
      for (int i = 0; i < username.length(); i++) {
        if (Character.isISOControl(username.charAt(i))) {
          throw new IllegalArgumentException(
              "SASL username must not contain control characters but has "
                  + String.format("U+%04X", (int) username.charAt(i))
                  + " at index "
                  + i);
        }
      }
      this.saslUsername = username;
      this.saslPassword = password;
      return this;
    }

    /**
     * The options.
     *
     * @throws IllegalStateException if SASL is set with the text protocol
     */
    public MemcachedOptions build() {
      if (saslUsername != null && protocol != MemcachedProtocol.BINARY) {
        throw new IllegalStateException(
            "SASL authentication needs the binary protocol, but the protocol is "
                + protocol
                + ": memcached speaks SASL only over the binary protocol (a server started with -S"
                + " refuses text commands); set protocol(MemcachedProtocol.BINARY)");
      }
      return new MemcachedOptions(this);
    }
  }
}
