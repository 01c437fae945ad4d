package io.shardwise.spi;

/**
 * What a server accepts as a key, as the protocol defines it and no stricter, so that any key
 * another client could store can be read and deleted. Violations are {@link
 * IllegalArgumentException}s naming the rule and a shortened, printable form of the key.
 *
 * <p>Keys are sent as UTF-8, so every rule refuses a key that is not well-formed UTF-16 (a lone
 * surrogate), which Java would otherwise encode as {@code ?} and so store under another key's
 * name.
 */
public enum KeyRules {

  /**
   * memcached's text protocol: 1..250 bytes of UTF-8 without a space, CR, LF or NUL. memcached
   * splits a command line at spaces and ends it at LF (a CR before the LF is dropped), and answers
   * {@code ERROR} to a line with a NUL; any other byte, control characters included, is part of the
   * key (memcached 1.6 {@code proto_text.c}; measured on 1.6.18 with tab, U+0001, U+000B, U+007F,
   * U+0085, U+00A0, U+2028 and U+3000). spymemcached's text-protocol key check refuses the same
   * four characters.
   */
  MEMCACHED {
    @Override
    public void validate(String key) {
      checkMemcached(key, true);
    }
  },

  /**
   * memcached's binary protocol: 1..250 bytes of UTF-8, any bytes (the key's length is in the
   * request header; memcached 1.6 {@code proto_bin.c}).
   */
  MEMCACHED_BINARY {
    @Override
    public void validate(String key) {
      checkMemcached(key, false);
    }
  },

  /** Redis: any key, the empty one included, that is well-formed UTF-16. */
  REDIS {
    @Override
    public void validate(String key) {
      checkNotNull(key);
      for (int i = 0; i < key.length(); i++) {
        char c = key.charAt(i);
        if (Character.isSurrogate(c)) {
          utf8Length(key, i, c);
          if (Character.isHighSurrogate(c)) {
            i++;
          }
        }
      }
    }
  };

  /** Longest memcached key in bytes. */
  public static final int MAX_MEMCACHED_KEY_BYTES = 250;

  private static final int SHORT = 40;

  /** Throws {@link IllegalArgumentException} if the server would refuse {@code key}. */
  public abstract void validate(String key);

  /**
   * A memcached key: 1 to 250 bytes of well-formed UTF-8 and, on the text protocol ({@code text}),
   * no space, CR, LF or NUL.
   */
  private static void checkMemcached(String key, boolean text) {
    checkNotNull(key);
    if (key.isEmpty()) {
      throw new IllegalArgumentException("memcached keys must not be empty");
    }
    int bytes = 0;
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      if (c > ' ' && c < 0x80) {
        bytes++; // printable ASCII and DEL, the common case: nothing else to check
        continue;
      }
      if (text && (c == ' ' || c == '\r' || c == '\n' || c == 0)) {
        throw new IllegalArgumentException(
            "memcached keys must not contain a space, CR, LF or NUL (text protocol); got "
                + describeChar(c)
                + " at index "
                + i
                + ": "
                + shorten(key));
      }
      if (c < 0x80) {
        bytes++;
        continue;
      }
      bytes += utf8Length(key, i, c);
      if (Character.isHighSurrogate(c)) {
        i++;
      }
    }
    checkLength(key, bytes);
  }

  /**
   * The UTF-8 length of the character at {@code i} ({@code c}, not ASCII), a surrogate pair
   * counting once, 4 bytes; throws for a lone surrogate.
   */
  private static int utf8Length(String key, int i, char c) {
    if (!Character.isSurrogate(c)) {
      return c < 0x800 ? 2 : 3;
    }
    if (Character.isHighSurrogate(c)
        && i + 1 < key.length()
        && Character.isLowSurrogate(key.charAt(i + 1))) {
      return 4;
    }
    throw new IllegalArgumentException(
        "keys must be well-formed UTF-16 but have a lone surrogate "
            + String.format("U+%04X", (int) c)
            + " at index "
            + i
            + ": "
            + shorten(key));
  }

  private static void checkLength(String key, int bytes) {
    if (bytes > MAX_MEMCACHED_KEY_BYTES) {
      throw new IllegalArgumentException(
          "memcached keys are at most 250 bytes; got " + bytes + ": " + shorten(key));
    }
  }

  private static void checkNotNull(String key) {
    if (key == null) {
      throw new IllegalArgumentException("keys must not be null");
    }
  }

  /**
   * A printable form of {@code key} for messages: control characters and lone surrogates escaped, and keys over 40
   * characters cut to their first 32 and last 6.
   */
  public static String shorten(String key) {
    if (key == null) {
      return "null";
    }
    return printable(
        key.length() <= SHORT ? key : key.substring(0, 32) + "..." + key.substring(key.length() - 6));
  }

  /**
   * {@code text} with control characters escaped as a backslash, {@code x} and two hex digits,
   * and lone surrogates as a backslash, {@code u} and four, for messages that echo what was given
   * (a key, a user name).
   */
  public static String printable(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < ' ' || c == 0x7f || (c >= 0x80 && c <= 0x9f)) {
        sb.append(String.format("\\x%02x", (int) c));
      } else if (Character.isSurrogate(c)
          && !(Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1)))
          && !(Character.isLowSurrogate(c) && i > 0 && Character.isHighSurrogate(text.charAt(i - 1)))) {
        sb.append(String.format("\\u%04X", (int) c));
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
      case 0:
        return "a NUL";
      default:
        return String.format("U+%04X", (int) c);
    }
  }
}
