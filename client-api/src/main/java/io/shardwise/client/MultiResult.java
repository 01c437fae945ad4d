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
    Map<String, V> v = new LinkedHashMap<>(values);
    Set<String> m = new LinkedHashSet<>(misses);
    Map<String, ShardwiseException> e = new LinkedHashMap<>(errors);
    for (String key : m) {
      if (v.containsKey(key) || e.containsKey(key)) {
        throw new IllegalArgumentException("key '" + key + "' is reported twice");
      }
    }
    for (String key : e.keySet()) {
      if (v.containsKey(key)) {
        throw new IllegalArgumentException("key '" + key + "' is reported twice");
      }
    }
    return new MultiResult<>(v, m, e);
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
