package io.shardwise.routing;

import java.util.Objects;

/**
 * Hash tags, with twemproxy's semantics: when a key contains the opening character and, after
 * it, the closing character, only the part between the first such pair is hashed, so
 * {@code {user:42}:profile} and {@code {user:42}:cart} land on the same node. A key without an
 * opening character, with no closing character after it, or with an empty tag ({@code {}}) is
 * hashed whole.
 *
 * <p>The tag characters must be ASCII, so scanning the UTF-16 chars of a {@code String} and the
 * UTF-8 bytes of the same key finds the same tag.
 */
public final class HashTag {

  /** No hash tag: the whole key is hashed. */
  public static final HashTag NONE = new HashTag('\0', '\0', false);

  private final char open;
  private final char close;
  private final boolean enabled;

  private HashTag(char open, char close, boolean enabled) {
    this.open = open;
    this.close = close;
    this.enabled = enabled;
  }

  /**
   * A hash tag from a two-character pair such as {@code {}}; an empty or blank string means
   * {@link #NONE}.
   *
   * @throws IllegalArgumentException if the pair is not two distinct printable ASCII characters
   */
  public static HashTag of(String pair) {
    Objects.requireNonNull(pair, "hash tag");
    if (pair.isBlank()) {
      return NONE;
    }
    if (pair.length() != 2) {
      throw new IllegalArgumentException(
          "hash tag must be two characters, the opening and the closing one (e.g. {}), but was '"
              + pair + "'");
    }
    char o = pair.charAt(0);
    char c = pair.charAt(1);
    if (!printableAscii(o) || !printableAscii(c) || o == c) {
      throw new IllegalArgumentException(
          "hash tag must be two distinct printable ASCII characters but was '" + pair + "'");
    }
    return new HashTag(o, c, true);
  }

  private static boolean printableAscii(char c) {
    return c > ' ' && c < 0x7f;
  }

  public boolean isEnabled() {
    return enabled;
  }

  /** Hash of the part of {@code key} this tag selects. Allocation free. */
  public long hash(KeyHasher hasher, String key) {
    if (enabled) {
      int o = key.indexOf(open);
      if (o >= 0) {
        int c = key.indexOf(close, o + 1);
        if (c > o + 1) {
          return hasher.hash(key, o + 1, c);
        }
      }
    }
    return hasher.hash(key, 0, key.length());
  }

  /** Hash of the part of {@code key} this tag selects. Allocation free. */
  public long hash(KeyHasher hasher, byte[] key) {
    if (enabled) {
      int o = indexOf(key, (byte) open, 0);
      if (o >= 0) {
        int c = indexOf(key, (byte) close, o + 1);
        if (c > o + 1) {
          return hasher.hash(key, o + 1, c - o - 1);
        }
      }
    }
    return hasher.hash(key, 0, key.length);
  }

  /** The part of {@code key} that is hashed (allocates; for display and tests). */
  public String routingKey(String key) {
    if (enabled) {
      int o = key.indexOf(open);
      if (o >= 0) {
        int c = key.indexOf(close, o + 1);
        if (c > o + 1) {
          return key.substring(o + 1, c);
        }
      }
    }
    return key;
  }

  private static int indexOf(byte[] a, byte b, int from) {
    for (int i = from; i < a.length; i++) {
      if (a[i] == b) {
        return i;
      }
    }
    return -1;
  }

  @Override
  public String toString() {
    return enabled ? "" + open + close : "";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof HashTag
        && ((HashTag) o).enabled == enabled
        && ((HashTag) o).open == open
        && ((HashTag) o).close == close;
  }

  @Override
  public int hashCode() {
    return enabled ? open * 31 + close : 0;
  }
}
