package io.shardwise.routing;

/**
 * Maps key bytes to the hash a {@link Router} places. A key given as a {@code String} is hashed
 * as its UTF-8 bytes, so {@code hash("k")} equals {@code hash("k".getBytes(UTF_8))}.
 *
 * <p>The output of a hasher is a placement contract: a hasher never changes; a different
 * function is a different hasher with another name. Implementations allocate nothing.
 */
public interface KeyHasher {

  /** Short stable name of the function, e.g. {@code murmur3-128-low64} or {@code ketama-md5}. */
  String name();

  /** Hash of {@code key[offset, offset + length)}. */
  long hash(byte[] key, int offset, int length);

  /** Hash of the UTF-8 encoding of {@code key[start, end)}. */
  long hash(String key, int start, int end);

  default long hash(byte[] key) {
    return hash(key, 0, key.length);
  }

  default long hash(String key) {
    return hash(key, 0, key.length());
  }
}
