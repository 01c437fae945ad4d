package io.shardwise.internal;

/**
 * UTF-8 encoding of keys into a per-thread scratch buffer, so that hashing a {@code String} key
 * allocates nothing and gives exactly the hash of {@code key.getBytes(UTF_8)}.
 *
 * <p>Internal: may change without notice. The scratch buffer is only valid until the calling
 * thread asks for it again, so it must never escape a hash computation.
 */
public final class KeyBytes {

  /** Scratch buffers larger than this are not kept; such keys get a temporary array. */
  private static final int MAX_KEPT = 1 << 16;

  private static final ThreadLocal<byte[]> SCRATCH = ThreadLocal.withInitial(() -> new byte[512]);

  private KeyBytes() {}

  /** Most bytes that {@link #encodeUtf8} writes for {@code chars} UTF-16 chars. */
  public static int maxUtf8Length(int chars) {
    return chars * 3;
  }

  /**
   * A scratch array of at least {@code minLength} bytes, owned by the calling thread. Its content
   * is undefined.
   */
  public static byte[] scratch(int minLength) {
    byte[] buf = SCRATCH.get();
    if (buf.length >= minLength) {
      return buf;
    }
    if (minLength > MAX_KEPT) {
      return new byte[minLength];
    }
    int size = Math.max(minLength, Math.min(MAX_KEPT, buf.length * 2));
    buf = new byte[size];
    SCRATCH.set(buf);
    return buf;
  }

  /**
   * Writes the UTF-8 encoding of {@code s[start, end)} to {@code dst} at {@code dstOffset}, the
   * same bytes as {@code s.substring(start, end).getBytes(UTF_8)}: an unpaired surrogate becomes
   * {@code '?'}. {@code dst} needs room for {@link #maxUtf8Length}{@code (end - start)} bytes.
   *
   * @return the number of bytes written
   */
  public static int encodeUtf8(String s, int start, int end, byte[] dst, int dstOffset) {
    int j = dstOffset;
    int i = start;
    // ASCII run first: the common case for cache keys.
    while (i < end) {
      char c = s.charAt(i);
      if (c >= 0x80) {
        break;
      }
      dst[j++] = (byte) c;
      i++;
    }
    while (i < end) {
      char c = s.charAt(i++);
      if (c < 0x80) {
        dst[j++] = (byte) c;
      } else if (c < 0x800) {
        dst[j++] = (byte) (0xC0 | (c >> 6));
        dst[j++] = (byte) (0x80 | (c & 0x3F));
      } else if (Character.isSurrogate(c)) {
        char d;
        if (Character.isHighSurrogate(c) && i < end && Character.isLowSurrogate(d = s.charAt(i))) {
          int cp = Character.toCodePoint(c, d);
          i++;
          dst[j++] = (byte) (0xF0 | (cp >> 18));
          dst[j++] = (byte) (0x80 | ((cp >> 12) & 0x3F));
          dst[j++] = (byte) (0x80 | ((cp >> 6) & 0x3F));
          dst[j++] = (byte) (0x80 | (cp & 0x3F));
        } else {
          dst[j++] = (byte) '?';
        }
      } else {
        dst[j++] = (byte) (0xE0 | (c >> 12));
        dst[j++] = (byte) (0x80 | ((c >> 6) & 0x3F));
        dst[j++] = (byte) (0x80 | (c & 0x3F));
      }
    }
    return j - dstOffset;
  }

  /**
   * Checks that {@code [offset, offset + length)} lies inside an array of {@code arrayLength}.
   */
  public static void checkRange(int arrayLength, int offset, int length) {
    if (offset < 0 || length < 0 || offset > arrayLength - length) {
      throw new IndexOutOfBoundsException(
          "range [" + offset + ", " + offset + " + " + length + ") out of bounds for length "
              + arrayLength);
    }
  }
}
