package io.shardwise.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How the client detects failed nodes, routes around them and readmits them. Immutable; build
 * with {@link #builder()} or change one with {@link #mutate()}.
 */
public final class FailoverOptions {

  /** Consecutive node failures (timeouts, connection errors) that eject a node. */
  public static final int DEFAULT_FAILURE_THRESHOLD = 3;
  /** First wait between an ejection and a probe; doubles after every failed probe. */
  public static final Duration DEFAULT_PROBE_INTERVAL = Duration.ofMillis(200);
  /** Longest wait between probes. */
  public static final Duration DEFAULT_MAX_PROBE_INTERVAL = Duration.ofSeconds(5);
  /** How long a probe (and each rejoin step) may take. */
  public static final Duration DEFAULT_PROBE_TIMEOUT = Duration.ofSeconds(1);
  /** Keys remembered per ejected node by the journal rejoin policy. */
  public static final int DEFAULT_JOURNAL_CAPACITY = 100_000;
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

  private FailoverOptions(Builder b) {
    this.failureMode = b.failureMode;
    this.rejoinPolicy = b.rejoinPolicy;
    this.failureThreshold = b.failureThreshold;
    this.probeInterval = b.probeInterval;
    this.maxProbeInterval = b.maxProbeInterval;
    this.probeTimeout = b.probeTimeout;
    this.journalCapacity = b.journalCapacity;
    this.retryAttempts = b.retryAttempts;
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

  @Override
  public String toString() {
    return "FailoverOptions[mode=" + failureMode.id() + ", rejoin=" + rejoinPolicy.id()
        + ", failureThreshold=" + failureThreshold + ", probeInterval=" + probeInterval
        + ", maxProbeInterval=" + maxProbeInterval + ", probeTimeout=" + probeTimeout
        + ", journalCapacity=" + journalCapacity + ", retryAttempts=" + retryAttempts + "]";
  }

  /** Builds {@link FailoverOptions}; every setter rejects a bad value at once. */
  public static final class Builder {
    private FailureMode failureMode = FailureMode.REDISTRIBUTE;
    private RejoinPolicy rejoinPolicy = RejoinPolicy.FLUSH;
    private int failureThreshold = DEFAULT_FAILURE_THRESHOLD;
    private Duration probeInterval = DEFAULT_PROBE_INTERVAL;
    private Duration maxProbeInterval = DEFAULT_MAX_PROBE_INTERVAL;
    private Duration probeTimeout = DEFAULT_PROBE_TIMEOUT;
    private int journalCapacity = DEFAULT_JOURNAL_CAPACITY;
    private int retryAttempts = DEFAULT_RETRY_ATTEMPTS;

    private Builder() {}

    public Builder failureMode(FailureMode mode) {
      this.failureMode = Objects.requireNonNull(mode, "failureMode");
      return this;
    }

    public Builder rejoinPolicy(RejoinPolicy policy) {
      this.rejoinPolicy = Objects.requireNonNull(policy, "rejoinPolicy");
      return this;
    }

    /** Consecutive node failures that eject a node, at least 1 (default 3). */
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

    /** Longest wait between probes (default 5 s). */
    public Builder maxProbeInterval(Duration interval) {
      this.maxProbeInterval = positive("max probe interval", interval);
      return this;
    }

    /** How long a probe or a rejoin step may take (default 1 s). */
    public Builder probeTimeout(Duration timeout) {
      this.probeTimeout = positive("probe timeout", timeout);
      return this;
    }

    /** Keys the journal remembers per ejected node before it falls back to a flush (default 100,000). */
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
