package io.shardwise.client;

/**
 * Turns values into stored bytes and back. Built-in codecs are in {@link Codecs}; a user may
 * plug in their own (JSON, Protobuf, ...).
 *
 * @param <V> the value type
 */
public interface ValueCodec<V> {

  /** Short name for messages and configuration, e.g. {@code utf8}. */
  String name();

  /** Encodes {@code value} (never null). */
  CachedValue encode(V value);

  /** Decodes a stored value. Throws {@link CodecException} if the bytes are not a valid value. */
  V decode(CachedValue stored);

  /**
   * Whether decoding depends on the flags stored beside the bytes. Such a codec can only be used
   * with memcached: Redis keeps no flags.
   */
  default boolean needsFlags() {
    return false;
  }

  /**
   * This codec for a store that keeps no flags (Redis): the same encoding without anything that
   * needs flags to be read back. The built-in codecs then never compress, since spymemcached's
   * compression is marked by a flag. The routing client applies it by itself; a codec of your
   * own that ignores flags returns itself (the default).
   */
  default ValueCodec<V> withoutFlags() {
    return this;
  }
}
