package io.shardwise.spi;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;

/**
 * What a server answered to a batch of keys ({@link NodeConnection#getMulti}, {@link
 * NodeConnection#setMulti}, {@link NodeConnection#deleteMulti}): for each key either an answer or
 * the failure of that key's own request. A key whose request failed, timed out or was never sent is
 * named in {@link #failures()}; it is never simply left out, because a caller that reads a missing
 * key as done (stored, deleted) would go on believing a server holds what it does not.
 *
 * <p>The values: for {@code getMulti} the hits (a key neither valued nor failed was a miss); for
 * {@code setMulti} {@code true} for each key stored; for {@code deleteMulti} whether each key
 * deleted existed. A write batch has a value or a failure for every key, so that a write counts as
 * done only where its own reply confirmed it ({@link #confirmed}).
 *
 * <p>The maps are taken as they are, not copied: the backend hands them over and does not change
 * them afterwards.
 *
 * @param <T> the value of one key's answer
 */
public final class BatchReply<T> {

  private static final BatchReply<?> EMPTY = new BatchReply<>(Map.of(), Map.of());

  private final Map<String, T> values;
  private final Map<String, Throwable> failures;

  private BatchReply(Map<String, T> values, Map<String, Throwable> failures) {
    this.values = values;
    this.failures = failures;
  }

  /** A reply that answered every key: {@code values} for the keys answered with a value. */
  public static <T> BatchReply<T> of(Map<String, T> values) {
    return new BatchReply<>(Objects.requireNonNull(values, "values"), Map.of());
  }

  /**
   * A reply in which the keys of {@code failures} failed, each with its reason, and the others
   * were answered, with their values in {@code values}.
   *
   * @throws IllegalArgumentException if a key has both a value and a failure
   */
  @SuppressWarnings("unchecked")
  public static <T> BatchReply<T> of(Map<String, T> values, Map<String, ? extends Throwable> failures) {
    Objects.requireNonNull(values, "values");
    Objects.requireNonNull(failures, "failures");
    if (failures.isEmpty()) {
      return new BatchReply<>(values, Map.of());
    }
    for (String key : failures.keySet()) {
      if (values.containsKey(key)) {
        throw new IllegalArgumentException("key has both a value and a failure: " + key);
      }
    }
    return new BatchReply<>(values, (Map<String, Throwable>) failures);
  }

  /** The reply to a batch of no keys. */
  @SuppressWarnings("unchecked")
  public static <T> BatchReply<T> empty() {
    return (BatchReply<T>) EMPTY;
  }

  /** Why {@code key}'s own request failed (or was not sent), or null if it was answered. */
  public Throwable failure(String key) {
    return failures.isEmpty() ? null : failures.get(key);
  }

  /**
   * The answer for {@code key}: its value, or null when it was answered without one (a miss).
   *
   * @throws IllegalStateException if the key's request failed: ask {@link #failure} first
   */
  public T value(String key) {
    Throwable failure = failure(key);
    if (failure != null) {
      throw new IllegalStateException("the request for this key failed: " + key, failure);
    }
    return values.get(key);
  }

  /**
   * Whether the server confirmed {@code key}'s write: it has a value and no failure. A key the
   * reply says nothing of is not confirmed.
   */
  public boolean confirmed(String key) {
    return values.get(key) != null && failure(key) == null;
  }

  /** The keys answered with a value, and their values. */
  public Map<String, T> values() {
    return Collections.unmodifiableMap(values);
  }

  /** The keys whose own request failed or was not sent, with the reason; empty if none. */
  public Map<String, Throwable> failures() {
    return failures.isEmpty() ? Map.of() : Collections.unmodifiableMap(failures);
  }

  /** Whether some key's request failed. */
  public boolean hasFailures() {
    return !failures.isEmpty();
  }

  @Override
  public String toString() {
    return "BatchReply[" + values.size() + " values, " + failures.size() + " failed]";
  }
}
