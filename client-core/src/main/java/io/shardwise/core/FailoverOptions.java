package io.shardwise.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How the client detects failed nodes, routes around them and readmits them. Immutable; build
 * with {@link #builder()} or change one with {@link #mutate()}.
 */
public final class FailoverOptions {

  /**
   * Consecutive node failures (timeouts, connection errors) that eject a node: 5, as Envoy's
   * {@code consecutive_5xx} (mcrouter ejects after 3 timeouts). With timeouts of a second, a hung
   * server is out within about a second under load, and a burst of slow replies is not an outage.
   */
  public static final int DEFAULT_FAILURE_THRESHOLD = 5;
  /** First wait between an ejection and a probe; doubles after every failed probe. */
  public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(200);
  /**
   * Longest wait between probes: a restarted server is back within about this long, however long
   * it was out. A probe is one {@code version} / {@code PING}, so even many clients probing a dead
   * server every 2 s cost it nothing (mcrouter backs off to 60 s, Envoy ejects for 30 s).
   */
  public static final Duration DEFAULT_MAX_PROBE_INTERVAL = Duration.ofSeconds(2);
  /** How long a probe (and each rejoin step) may take. */
  public static final Duration DEFAULT_PROBE_TIMEOUT = Duration.ofSeconds(1);
  /**
   * Keys remembered per ejected node: the keys written elsewhere while it is out, deleted on it
   * before it is readmitted. Past it, writes of the node's keys fail until it is back.
   */
  public static final int DEFAULT_JOURNAL_CAPACITY = 100_000;
  /**
   * Longest time to live of a value written to another node because its own is out: 10 s. Such a
   * copy is deleted when its node returns, by this process; the TTL bounds how long one can be
   * read by other processes, or outlive this one. mcrouter's {@code failover_exptime} defaults to
   * 60 s; 10 s keeps the bound on cross-process staleness short, at the price of a reload every
   * 10 s for the keys of a node that stays out.
   */
  public static final Duration DEFAULT_FAILOVER_TTL = Duration.ofSeconds(10);
  /**
   * Largest share of the fleet that timeouts may keep out, in percent (at least one node): many
   * nodes timing out at once points at the client (a pause, a starved CPU) more than at the
   * servers. A refused or lost connection ejects a node regardless. Envoy caps ejections at 10%
   * by default, mcrouter at 10 to 40 soft-failed servers; 50% keeps a real partition of a few
   * servers out while a client-side stall cannot empty the fleet.
   */
  public static final int DEFAULT_MAX_EJECTED_PERCENT = 50;
  /** Extra attempts on the same node with {@link FailureMode#RETRY}. */
  public static final int DEFAULT_RETRY_ATTEMPTS = 2;

  private static final FailoverOptions DEFAULTS = builder().build();

  private final FailureMode failureMode;
  private final RejoinPolicy rejoinPolicy;
  private final int failureThreshold;
  private final Duration probeInterval;
  private final Duration maxProbeInterval;
  private final Duration probeTimeout;
  private final int journalCapacity;
  private final int retryAttempts;
  private final Duration failoverTtl;
  private final int maxEjectedPercent;

  private FailoverOptions(Builder b) {
    this.failureMode = b.failureMode;
    this.rejoinPolicy = b.rejoinPolicy;
    this.failureThreshold = b.failureThreshold;
    this.probeInterval = b.probeInterval;
    this.maxProbeInterval = b.maxProbeInterval;
    this.probeTimeout = b.probeTimeout;
    this.journalCapacity = b.journalCapacity;
    this.retryAttempts = b.retryAttempts;
    this.failoverTtl = b.failoverTtl;
    this.maxEjectedPercent = b.maxEjectedPercent;
    if (maxProbeInterval.compareTo(probeInterval) < 0) {
      throw new IllegalArgumentException(
          "max probe interval must be >= the probe interval " + probeInterval + " but was " + maxProbeInterval);
    }
  }

  public static FailoverOptions defaults() {
    return DEFAULTS;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this instance's values. */
  public Builder mutate() {
    Builder b = new Builder();
    b.failureMode = failureMode;
    b.rejoinPolicy = rejoinPolicy;
    b.failureThreshold = failureThreshold;
    b.probeInterval = probeInterval;
    b.maxProbeInterval = maxProbeInterval;
    b.probeTimeout = probeTimeout;
    b.journalCapacity = journalCapacity;
    b.retryAttempts = retryAttempts;
    b.failoverTtl = failoverTtl;
    b.maxEjectedPercent = maxEjectedPercent;
    return b;
  }

  public FailureMode failureMode() {
    return failureMode;
  }

  public RejoinPolicy rejoinPolicy() {
    return rejoinPolicy;
  }

  public int failureThreshold() {
    return failureThreshold;
  }

  public Duration probeInterval() {
    return probeInterval;
  }

  public Duration maxProbeInterval() {
    return maxProbeInterval;
  }

  public Duration probeTimeout() {
    return probeTimeout;
  }

  public int journalCapacity() {
    return journalCapacity;
  }

  public int retryAttempts() {
    return retryAttempts;
  }

  /** Longest time to live of a value written to another node because its own is out. */
  public Duration failoverTtl() {
    return failoverTtl;
  }

  /** Largest share of the fleet, in percent, that timeouts may keep out (at least one node). */
  public int maxEjectedPercent() {
    return maxEjectedPercent;
  }

  /** How many of {@code nodes} timeouts may keep out at once: the percentage, at least one. */
  public int maxEjectedNodes(int nodes) {
    return Math.max(1, nodes * maxEjectedPercent / 100);
  }

  @Override
  public String toString() {
    return "FailoverOptions[mode=" + failureMode.id() + ", rejoin=" + rejoinPolicy.id()
        + ", failureThreshold=" + failureThreshold + ", probeInterval=" + probeInterval
        + ", maxProbeInterval=" + maxProbeInterval + ", probeTimeout=" + probeTimeout
        + ", journalCapacity=" + journalCapacity + ", retryAttempts=" + retryAttempts
        + ", failoverTtl=" + failoverTtl + ", maxEjectedPercent=" + maxEjectedPercent + "]";
  }

  /** Builds {@link FailoverOptions}; every setter rejects a bad value at once. */
  public static final class Builder {
    private FailureMode failureMode = FailureMode.REDISTRIBUTE;
    private RejoinPolicy rejoinPolicy = RejoinPolicy.JOURNAL;
    private int failureThreshold = DEFAULT_FAILURE_THRESHOLD;
    private Duration probeInterval = DEFAULT_PROBE_INTERVAL;
    private Duration maxProbeInterval = DEFAULT_MAX_PROBE_INTERVAL;
    private Duration probeTimeout = DEFAULT_PROBE_TIMEOUT;
    private int journalCapacity = DEFAULT_JOURNAL_CAPACITY;
    private int retryAttempts = DEFAULT_RETRY_ATTEMPTS;
    private Duration failoverTtl = DEFAULT_FAILOVER_TTL;
    private int maxEjectedPercent = DEFAULT_MAX_EJECTED_PERCENT;

    private Builder() {}

    public Builder failureMode(FailureMode mode) {
      this.failureMode = Objects.requireNonNull(mode, "failureMode");
      return this;
    }

    public Builder rejoinPolicy(RejoinPolicy policy) {
      this.rejoinPolicy = Objects.requireNonNull(policy, "rejoinPolicy");
      return this;
    }

    /** Consecutive node failures that eject a node, at least 1 (default 5). */
    public Builder failureThreshold(int failures) {
      if (failures < 1) {
        throw new IllegalArgumentException("failure threshold must be >= 1 but was " + failures);
      }
      this.failureThreshold = failures;
      return this;
    }

    /** First wait before probing an ejected node (default 200 ms); doubles up to the maximum. */
    public Builder probeInterval(Duration interval) {
      this.probeInterval = positive("probe interval", interval);
      return this;
    }

    /** Longest wait between probes (default 2 s). */
    public Builder maxProbeInterval(Duration interval) {
      this.maxProbeInterval = positive("max probe interval", interval);
      return this;
    }

    /** How long a probe or a rejoin step may take (default 1 s). */
    public Builder probeTimeout(Duration timeout) {
      this.probeTimeout = positive("probe timeout", timeout);
      return this;
    }

    /**
     * Keys the journal remembers per ejected node (default 100,000); past it, writes of the node's
     * keys fail until it is readmitted.
     */
    public Builder journalCapacity(int keys) {
      if (keys < 1) {
        throw new IllegalArgumentException("journal capacity must be >= 1 but was " + keys);
      }
      this.journalCapacity = keys;
      return this;
    }

    /** Extra attempts on the same node in {@link FailureMode#RETRY} (default 2). */
    public Builder retryAttempts(int attempts) {
      if (attempts < 0) {
        throw new IllegalArgumentException("retry attempts must be >= 0 but was " + attempts);
      }
      this.retryAttempts = attempts;
      return this;
    }

    /**
     * Longest time to live of a value written to another node because its own is out (default 10
     * s); whole seconds on memcached.
     */
    public Builder failoverTtl(Duration ttl) {
      this.failoverTtl = positive("failover ttl", ttl);
      return this;
    }

    /**
     * Largest share of the fleet, in percent, that timeouts may keep out (default 50; at least one
     * node is always allowed; 100 for no cap). A refused or lost connection ejects regardless.
     */
    public Builder maxEjectedPercent(int percent) {
      if (percent < 0 || percent > 100) {
        throw new IllegalArgumentException("max ejected percent must be in 0..100 but was " + percent);
      }
      this.maxEjectedPercent = percent;
      return this;
    }

    public FailoverOptions build() {
      return new FailoverOptions(this);
    }

    private static Duration positive(String what, Duration d) {
      Objects.requireNonNull(d, what);
      if (d.isNegative() || d.isZero()) {
        throw new IllegalArgumentException(what + " must be > 0 but was " + d);
      }
      return d;
    }
  }
}
