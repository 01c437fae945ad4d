package io.shardwise.core;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ValueCodec;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What {@link RoutingClient} checks of a request before anything is sent: each key against the
 * backend's rules, each value encoded and within the size limit, the TTL and the delta; a bad one is
 * refused with an {@link IllegalArgumentException} naming the value and the rule, and nothing of
 * the request is sent.
 */
final class RequestChecks<V> {

  private final Backend backend;
  private final KeyRules keyRules;
  private final ValueCodec<V> codec;
  private final int maxValueBytes;

  RequestChecks(Backend backend, ValueCodec<V> codec, int maxValueBytes) {
    this.backend = backend;
    this.keyRules = backend.keyRules();
    this.codec = codec;
    this.maxValueBytes = maxValueBytes;
  }

  void key(String key) {
    keyRules.validate(key);
  }

  /** The distinct keys, in order, each checked. */
  Set<String> keys(Collection<String> keys) {
    if (keys == null) {
      throw new IllegalArgumentException("the collection of keys must not be null; pass an empty one for none");
    }
    String[] copy = keys.toArray(new String[0]);
    for (int position = 0; position < copy.length; position++) {
      String key = copy[position];
      if (key == null) {
        throw new IllegalArgumentException(
            "the collection of keys must not hold null; got null at position " + position);
      }
      keyRules.validate(key);
    }
    return DistinctKeys.of(copy);
  }

  /** Every entry's key checked and value encoded, in the map's order. */
  Map<String, CachedValue> values(Map<String, ? extends V> entries) {
    if (entries == null) {
      throw new IllegalArgumentException("the map of values must not be null; pass an empty map for none");
    }
    Map<String, CachedValue> encoded = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends V> e : entries.entrySet()) {
      if (e.getKey() == null) {
        throw new IllegalArgumentException("the map of values must not hold a null key");
      }
      keyRules.validate(e.getKey());
      encoded.put(e.getKey(), encode(e.getKey(), e.getValue()));
    }
    return encoded;
  }

  /** {@code value} encoded, within the size limit and what the backend takes. */
  CachedValue encode(String key, V value) {
    if (value == null) {
      throw new IllegalArgumentException(
          "values must not be null (use delete to remove a key): " + KeyRules.shorten(key));
    }
    CachedValue encoded = codec.encode(value);
    if (encoded.length() > maxValueBytes) {
      throw new IllegalArgumentException(
          "values are at most " + maxValueBytes + " bytes after encoding; got " + encoded.length() + " for " + KeyRules.shorten(key));
    }
    backend.checkValue(key, encoded);
    return encoded;
  }

  static void ttl(Duration ttl) {
    if (ttl == null) {
      throw new IllegalArgumentException("ttl must not be null; use Duration.ZERO for no expiry");
    }
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must be >= 0 but was " + ttl);
    }
    if (ttl.compareTo(SettingsReader.MAX_DURATION) > 0) {
      // Redis refuses an expiry past 2^63-1 ms since 1970 ("invalid expire time"); 106751 days is
      // far inside that and is what the configuration's durations allow.
      throw new IllegalArgumentException(
          "ttl must be at most 106751 days (" + SettingsReader.MAX_DURATION + ") but was " + ttl);
    }
  }

  static long delta(long delta) {
    if (delta < 0) {
      throw new IllegalArgumentException("delta must be >= 0 but was " + delta);
    }
    return delta;
  }
}
