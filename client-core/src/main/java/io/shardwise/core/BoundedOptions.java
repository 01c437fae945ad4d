package io.shardwise.core;

import io.shardwise.bounded.BoundedLoadSelector;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Bounded-load reads (Mirrokni, Thorup, Zadimoghaddam, SODA 2018): a read whose key's node
 * carries more than {@code (1 + epsilon)} times its share of the recent requests goes to the next
 * node of the key's preference order that does not, at most {@code probeLimit} of them. Only reads
 * spill; writes go to the key's node. Immutable; {@link #builder()} or {@link #mutate()}.
 *
 * <p>What is counted: every request this client sends to a node, in a sliding window of {@code
 * window} (default 1 s) kept in buckets of {@code resolution} (100 ms). Not in-flight requests:
 * in one process those are 0 to 2 per node, which makes every cap at least 1 and the bound
 * meaningless; a window of recent requests measures the load this client puts on each node.
 *
 * <p>A spilled read that finds no copy on the node it spilled to reads the key's node and leaves a
 * copy there for {@code spillTtl} (default 5 s): later spilled reads of the key hit it. Writes and
 * deletes of a key with copies remove them before they complete, so a read never returns a value
 * older than one written before it started, through this client; other clients' writes reach a
 * copy only when it expires, which bounds their staleness by {@code spillTtl}.
 */
public final class BoundedOptions {

  /** Which keys may spill. */
  public enum Scope {
    /** Every key: the textbook algorithm. */
    ALL("all"),
    /** Only keys a small frequency sketch finds hot: the default for caches. */
    HOT("hot");

    private final String id;

    Scope(String id) {
      this.id = id;
    }

    public String id() {
      return id;
    }

    public static Scope of(String name) {
      String key = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
      for (Scope s : values()) {
        if (s.id.equals(key)) {
          return s;
        }
      }
      throw new IllegalArgumentException("unknown spill scope '" + name + "'; expected one of all, hot");
    }
  }

  public static final Duration DEFAULT_WINDOW = Duration.ofSeconds(1);
  public static final Duration DEFAULT_RESOLUTION = Duration.ofMillis(100);
  public static final Duration DEFAULT_SPILL_TTL = Duration.ofSeconds(5);
  /** Reads of one key, in the sketch's sampling period, from which it counts as hot. */
  public static final int DEFAULT_HOT_THRESHOLD = 8;
  /** Distinct keys the frequency sketch is sized for. */
  public static final int DEFAULT_SKETCH_CAPACITY = 4096;
  /** Keys that may hold spilled copies at once; beyond it, spilled reads leave no copy. */
  public static final int DEFAULT_MAX_SPILLED_KEYS = 10_000;

  private static final BoundedOptions DISABLED = builder().build();

  private final boolean enabled;
  private final double epsilon;
  private final int probeLimit;
  private final Duration window;
  private final Duration resolution;
  private final Duration spillTtl;
  private final Scope scope;
  private final int hotThreshold;
  private final int sketchCapacity;
  private final int maxSpilledKeys;

  private BoundedOptions(Builder b) {
    this.enabled = b.enabled;
    this.epsilon = b.epsilon;
    this.probeLimit = b.probeLimit;
    this.window = b.window;
    this.resolution = b.resolution;
    this.spillTtl = b.spillTtl;
    this.scope = b.scope;
    this.hotThreshold = b.hotThreshold;
    this.sketchCapacity = b.sketchCapacity;
    this.maxSpilledKeys = b.maxSpilledKeys;
    if (resolution.compareTo(window) > 0 || window.toNanos() % resolution.toNanos() != 0) {
      throw new IllegalArgumentException(
          "bounded window must be a whole multiple of its resolution " + resolution + " but was " + window);
    }
    if (window.toNanos() / resolution.toNanos() > 1000) {
      throw new IllegalArgumentException(
          "bounded window " + window + " has more than 1000 buckets of " + resolution);
    }
  }

  /** Bounded loads off. */
  public static BoundedOptions disabled() {
    return DISABLED;
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder mutate() {
    Builder b = new Builder();
    b.enabled = enabled;
    b.epsilon = epsilon;
    b.probeLimit = probeLimit;
    b.window = window;
    b.resolution = resolution;
    b.spillTtl = spillTtl;
    b.scope = scope;
    b.hotThreshold = hotThreshold;
    b.sketchCapacity = sketchCapacity;
    b.maxSpilledKeys = maxSpilledKeys;
    return b;
  }

  public boolean enabled() {
    return enabled;
  }

  public double epsilon() {
    return epsilon;
  }

  public int probeLimit() {
    return probeLimit;
  }

  public Duration window() {
    return window;
  }

  public Duration resolution() {
    return resolution;
  }

  public Duration spillTtl() {
    return spillTtl;
  }

  public Scope scope() {
    return scope;
  }

  public int hotThreshold() {
    return hotThreshold;
  }

  public int sketchCapacity() {
    return sketchCapacity;
  }

  public int maxSpilledKeys() {
    return maxSpilledKeys;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof BoundedOptions b
        && enabled == b.enabled
        && Double.compare(epsilon, b.epsilon) == 0
        && probeLimit == b.probeLimit
        && window.equals(b.window)
        && resolution.equals(b.resolution)
        && spillTtl.equals(b.spillTtl)
        && scope == b.scope
        && hotThreshold == b.hotThreshold
        && sketchCapacity == b.sketchCapacity
        && maxSpilledKeys == b.maxSpilledKeys;
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(
        enabled, epsilon, probeLimit, window, resolution, spillTtl, scope, hotThreshold, sketchCapacity, maxSpilledKeys);
  }

  @Override
  public String toString() {
    return enabled
        ? "bounded(epsilon=" + epsilon + ", probeLimit=" + probeLimit + ", window=" + window
            + "/" + resolution + ", scope=" + scope.id() + ", spillTtl=" + spillTtl + ")"
        : "bounded(off)";
  }

  /** Builds {@link BoundedOptions}; every setter rejects a bad value at once. */
  public static final class Builder {
    private boolean enabled;
    private double epsilon = BoundedLoadSelector.DEFAULT_EPSILON;
    private int probeLimit = BoundedLoadSelector.DEFAULT_PROBE_LIMIT;
    private Duration window = DEFAULT_WINDOW;
    private Duration resolution = DEFAULT_RESOLUTION;
    private Duration spillTtl = DEFAULT_SPILL_TTL;
    private Scope scope = Scope.HOT;
    private int hotThreshold = DEFAULT_HOT_THRESHOLD;
    private int sketchCapacity = DEFAULT_SKETCH_CAPACITY;
    private int maxSpilledKeys = DEFAULT_MAX_SPILLED_KEYS;

    private Builder() {}

    public Builder enabled(boolean on) {
      this.enabled = on;
      return this;
    }

    /** Allowed excess over a node's share, > 0 (default 0.25). */
    public Builder epsilon(double e) {
      if (!(e > 0) || Double.isInfinite(e)) {
        throw new IllegalArgumentException("epsilon must be > 0 but was " + e);
      }
      this.epsilon = e;
      return this;
    }

    /** Nodes probed per read, >= 1 (default 8). */
    public Builder probeLimit(int limit) {
      if (limit < 1) {
        throw new IllegalArgumentException("probe limit must be >= 1 but was " + limit);
      }
      this.probeLimit = limit;
      return this;
    }

    public Builder window(Duration w) {
      this.window = positive("bounded window", w);
      return this;
    }

    public Builder resolution(Duration r) {
      this.resolution = positive("bounded resolution", r);
      return this;
    }

    /** Life of a copy left on a node a read spilled to (default 5 s). */
    public Builder spillTtl(Duration ttl) {
      this.spillTtl = positive("spill ttl", ttl);
      if (ttl.toMillis() < 1000) {
        throw new IllegalArgumentException("spill ttl must be at least 1s (memcached counts whole seconds) but was " + ttl);
      }
      return this;
    }

    public Builder scope(Scope s) {
      this.scope = Objects.requireNonNull(s, "scope");
      return this;
    }

    public Builder hotThreshold(int reads) {
      if (reads < 1 || reads > 15) {
        throw new IllegalArgumentException("hot threshold must be in 1..15 but was " + reads);
      }
      this.hotThreshold = reads;
      return this;
    }

    public Builder sketchCapacity(int keys) {
      if (keys < 16) {
        throw new IllegalArgumentException("sketch capacity must be >= 16 but was " + keys);
      }
      this.sketchCapacity = keys;
      return this;
    }

    public Builder maxSpilledKeys(int keys) {
      if (keys < 0) {
        throw new IllegalArgumentException("max spilled keys must be >= 0 but was " + keys);
      }
      this.maxSpilledKeys = keys;
      return this;
    }

    public BoundedOptions build() {
      return new BoundedOptions(this);
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
