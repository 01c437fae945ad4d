package io.shardwise.client;

import java.util.Arrays;
import java.util.Objects;

/**
 * A value as stored on a server: its bytes and the 32-bit flags word memcached keeps beside them
 * (Redis has no flags; values read from Redis have flags 0).
 */
public final class CachedValue {

  private final byte[] bytes;
  private final int flags;

  private CachedValue(byte[] bytes, int flags) {
    this.bytes = Objects.requireNonNull(bytes, "bytes");
    this.flags = flags;
  }

  /** Wraps {@code bytes} without copying; the caller must not change them afterwards. */
  public static CachedValue of(byte[] bytes, int flags) {
    return new CachedValue(bytes, flags);
  }

  /** The stored bytes, not a copy: do not modify. */
  public byte[] bytes() {
    return bytes;
  }

  public int flags() {
    return flags;
  }

  public int length() {
    return bytes.length;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CachedValue
        && ((CachedValue) o).flags == flags
        && Arrays.equals(((CachedValue) o).bytes, bytes);
  }

  @Override
  public int hashCode() {
    return 31 * Arrays.hashCode(bytes) + flags;
  }

  @Override
  public String toString() {
    return "CachedValue[" + bytes.length + " bytes, flags=" + flags + "]";
  }
}
