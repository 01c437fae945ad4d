package io.shardwise.spi;

import java.nio.charset.StandardCharsets;

/**
 * What a server accepts as a key. Violations are {@link IllegalArgumentException}s naming the
 * rule and a shortened, printable form of the key.
 */
public enum KeyRules {

  /** memcached: 1..250 bytes of UTF-8, no whitespace and no control characters. */
  MEMCACHED {
    @Override
    public void validate(String key) {
      checkNotNull(key);
      if (key.isEmpty()) {
        throw new IllegalArgumentException("memcached keys must not be empty");
      }
      int bytes = 0;
      for (int i = 0; i < key.length(); i++) {
        char c = key.charAt(i);
        if (c > ' ' && c < 0x7f) {
          bytes++; // printable ASCII, the common case: nothing else to check
          continue;
        }
        if (c <= ' ' || c == 0x7f || (c >= 0x80 && c <= 0x9f) || Character.isWhitespace(c) || Character.isSpaceChar(c)) {
          throw new IllegalArgumentException(
              "memcached keys must not contain whitespace or control characters; got "
                  + describeChar(c)
                  + " at index "
                  + i
                  + ": "
                  + shorten(key));
        }
        bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
      }
      if (bytes > MAX_MEMCACHED_KEY_BYTES) {
        // The char-based count is exact for valid UTF-16; recount exactly for the message.
        bytes = key.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_MEMCACHED_KEY_BYTES) {
          throw new IllegalArgumentException(
              "memcached keys are at most 250 bytes; got " + bytes + ": " + shorten(key));
        }
      }
    }
  },

  /** Redis: any non-empty key. */
  REDIS {
    @Override
    public void validate(String key) {
      checkNotNull(key);
      if (key.isEmpty()) {
        throw new IllegalArgumentException("Redis keys must not be empty");
      }
    }
  };

  /** Longest memcached key in bytes. */
  public static final int MAX_MEMCACHED_KEY_BYTES = 250;

  private static final int SHORT = 40;

  /** Throws {@link IllegalArgumentException} if the server would refuse {@code key}. */
  public abstract void validate(String key);

  private static void checkNotNull(String key) {
    if (key == null) {
      throw new IllegalArgumentException("keys must not be null");
    }
  }

  /**
   * A printable form of {@code key} for messages: control characters escaped, and keys over 40
   * characters cut to their first 32 and last 6.
   */
  public static String shorten(String key) {
    if (key == null) {
      return "null";
    }
    String cut =
        key.length() <= SHORT ? key : key.substring(0, 32) + "..." + key.substring(key.length() - 6);
    StringBuilder sb = new StringBuilder(cut.length() + 8);
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      if (c < ' ' || c == 0x7f || (c >= 0x80 && c <= 0x9f)) {
        sb.append(String.format("\\x%02x", (int) c));
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  private static String describeChar(char c) {
    switch (c) {
      case ' ':
        return "a space";
      case '\n':
        return "a newline";
      case '\r':
        return "a carriage return";
      case '\t':
        return "a tab";
      default:
        return String.format("U+%04X", (int) c);
    }
  }
}
