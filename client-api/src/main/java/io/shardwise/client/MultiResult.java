package io.shardwise.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The outcome of a multi-key operation: every requested key is exactly one of a value, a miss or
 * an error. Nothing is dropped silently: {@link #keyCount()} is the number of distinct keys
 * asked for.
 *
 * <p>For {@code getMulti} the values are the hits. For {@code setMulti} and {@code deleteMulti}
 * every key that did not fail has a value ({@code true}: stored or deleted; {@code false}: not
 * deleted because absent) and there are no misses.
 *
 * @param <V> the value type
 */
public final class MultiResult<V> {

  private final Map<String, V> values;
  private final Set<String> misses;
  private final Map<String, ShardwiseException> errors;

  private MultiResult(Map<String, V> values, Set<String> misses, Map<String, ShardwiseException> errors) {
    this.values = Collections.unmodifiableMap(values);
    this.misses = Collections.unmodifiableSet(misses);
    this.errors = Collections.unmodifiableMap(errors);
  }

  /** Builds a result; a key may appear in one of the three parts only. */
  public static <V> MultiResult<V> of(
      Map<String, V> values, Set<String> misses, Map<String, ShardwiseException> errors) {
    Builder<V> b = builder();
    values.forEach(b::hit);
    misses.forEach(b::miss);
    errors.forEach(b::error);
    return b.build();
  }

  /** A builder whose parts iterate in the order the keys were added to them. */
  public static <V> Builder<V> builder() {
    return new Builder<>(0);
  }

  /**
   * A builder sized for {@code expectedHits} values (more are fine), whose parts iterate in the
   * order the keys were added to them.
   *
   * @throws IllegalArgumentException if {@code expectedHits < 0}
   */
  public static <V> Builder<V> builder(int expectedHits) {
    if (expectedHits < 0) {
      throw new IllegalArgumentException("expectedHits must be >= 0 but was " + expectedHits);
    }
    return new Builder<>(expectedHits);
  }

  /**
   * Collects the outcome of each key once, then {@link #build() builds} the result without
   * copying. Not thread-safe.
   *
   * @param <V> the value type
   */
  public static final class Builder<V> {
    private final InsertionOrderMap<V> values;
    /** Made at the first miss: most results have none. */
    private Set<String> misses;
    /** Made at the first error: most results have none. */
    private Map<String, ShardwiseException> errors;
    private boolean built;

    private Builder(int expectedHits) {
      values = new InsertionOrderMap<>(expectedHits);
    }

    /**
     * The key has this value.
     *
     * @throws IllegalArgumentException if the key was reported already
     */
    public Builder<V> hit(String key, V value) {
      checkNew(key, false, true, true);
      if (!values.add(key, value)) {
        throw reportedTwice(key);
      }
      return this;
    }

    /**
     * The key was not found.
     *
     * @throws IllegalArgumentException if the key was reported already
     */
    public Builder<V> miss(String key) {
      checkNew(key, true, false, true);
      if (misses == null) {
        misses = new LinkedHashSet<>();
      }
      if (!misses.add(key)) {
        throw reportedTwice(key);
      }
      return this;
    }

    /**
     * The key's operation failed.
     *
     * @throws IllegalArgumentException if the key was reported already
     */
    public Builder<V> error(String key, ShardwiseException error) {
      Objects.requireNonNull(error, "error");
      checkNew(key, true, true, false);
      if (errors == null) {
        errors = new LinkedHashMap<>();
      }
      if (errors.putIfAbsent(key, error) != null) {
        throw reportedTwice(key);
      }
      return this;
    }

    /**
     * The result; the builder cannot be used after this.
     *
     * @throws IllegalStateException if it was built already
     */
    public MultiResult<V> build() {
      checkNotBuilt();
      built = true;
      return new MultiResult<>(
          values,
          misses == null ? Collections.emptySet() : misses,
          errors == null ? Collections.emptyMap() : errors);
    }

    /** Checks the parts not about to be written; the written one reports its own repeat. */
    private void checkNew(String key, boolean inValues, boolean inMisses, boolean inErrors) {
      checkNotBuilt();
      Objects.requireNonNull(key, "key");
      if ((inValues && !values.isEmpty() && values.containsKey(key))
          || (inMisses && misses != null && misses.contains(key))
          || (inErrors && errors != null && errors.containsKey(key))) {
        throw reportedTwice(key);
      }
    }

    private void checkNotBuilt() {
      if (built) {
        throw new IllegalStateException("this MultiResult was built already");
      }
    }

    private static IllegalArgumentException reportedTwice(String key) {
      return new IllegalArgumentException("key '" + key + "' is reported twice");
    }
  }

  /** Keys with a value. */
  public Map<String, V> values() {
    return values;
  }

  /** Keys that were not found. */
  public Set<String> misses() {
    return misses;
  }

  /** Keys whose operation failed, with the reason (which names the node). */
  public Map<String, ShardwiseException> errors() {
    return errors;
  }

  /** The value of {@code key}, or null for a miss or an error. */
  public V get(String key) {
    return values.get(key);
  }

  public boolean hasErrors() {
    return !errors.isEmpty();
  }

  /** Number of distinct keys accounted for. */
  public int keyCount() {
    return values.size() + misses.size() + errors.size();
  }

  /**
   * The values when no key failed.
   *
   * @throws ShardwiseException the first error, with the number of failed keys, if any failed
   */
  public Map<String, V> valuesOrThrow() {
    if (errors.isEmpty()) {
      return values;
    }
    Map.Entry<String, ShardwiseException> first = errors.entrySet().iterator().next();
    ShardwiseException e =
        new ShardwiseException(
            errors.size() + " of " + keyCount() + " keys failed; first: " + first.getValue().getMessage(),
            first.getValue());
    errors.values().stream().skip(1).limit(8).forEach(e::addSuppressed);
    throw e;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MultiResult
        && ((MultiResult<?>) o).values.equals(values)
        && ((MultiResult<?>) o).misses.equals(misses)
        && ((MultiResult<?>) o).errors.keySet().equals(errors.keySet());
  }

  @Override
  public int hashCode() {
    return Objects.hash(values.keySet(), misses, errors.keySet());
  }

  @Override
  public String toString() {
    return "MultiResult[" + values.size() + " values, " + misses.size() + " misses, " + errors.size() + " errors]";
  }
}
