package io.shardwise.testing;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A value as memcached stores it: the client-defined 32-bit flags and the raw bytes.
 *
 * @param flags the flags word (compare with {@link Integer#toUnsignedString(int)} if above 2^31)
 * @param value the stored bytes (a copy)
 */
public record MemcachedItem(int flags, byte[] value) {

  public MemcachedItem {
    value = value.clone();
  }

  @Override
  public byte[] value() {
    return value.clone();
  }

  /** The value decoded as UTF-8. */
  public String valueUtf8() {
    return new String(value, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof MemcachedItem item
        && item.flags == flags
        && Arrays.equals(item.value, value);
  }

  @Override
  public int hashCode() {
    return 31 * flags + Arrays.hashCode(value);
  }

  @Override
  public String toString() {
    return "MemcachedItem[flags="
        + Integer.toUnsignedString(flags)
        + ", "
        + value.length
        + " bytes: "
        + Wire.preview(value)
        + "]";
  }
}
