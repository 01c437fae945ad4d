package io.shardwise.routing;

import io.shardwise.internal.KeyBytes;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * MurmurHash3 x64 128-bit (Austin Appleby, public domain reference {@code MurmurHash3.cpp}) with
 * seed 0, reduced to its first 64 bits: the same value as Guava's {@code
 * Hashing.murmur3_128().hashBytes(b).asLong()}. Written from the published algorithm.
 *
 * <p>This is the key hash of every non-ketama router, so a jump router over it places keys
 * exactly where {@code Hashing.consistentHash(murmur3_128().hashString(key, UTF_8), n)} does.
 */
public final class Murmur3 implements KeyHasher {

  /** The shared instance. */
  public static final Murmur3 INSTANCE = new Murmur3();

  private static final long C1 = 0x87c37b91114253d5L;
  private static final long C2 = 0x4cf5ad432745937fL;
  /**
   * The bits {@code seen} has set when some char is not ASCII: in a 16-bit lane of {@link #chars4}
   * anything from bit 7 up, and in the tail's plain char ORs bits 7 and up of the low lane.
   */
  private static final long NOT_ASCII = 0xFF80FF80FF80FF80L;

  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private Murmur3() {}

  @Override
  public String name() {
    return "murmur3-128-low64";
  }

  @Override
  public long hash(byte[] key, int offset, int length) {
    KeyBytes.checkRange(key.length, offset, length);
    return hash64(key, offset, length);
  }

  @Override
  public long hash(String key, int start, int end) {
    if (start < 0 || end > key.length() || start > end) {
      throw new StringIndexOutOfBoundsException(
          "begin " + start + ", end " + end + ", length " + key.length());
    }
    return hashChars(key, start, end);
  }

  /**
   * {@link #hash64} of the UTF-8 bytes of {@code s[start, end)}. One pass reads the chars in
   * place (no copy, no scratch buffer), four to a long in 16-bit lanes so that every char keeps
   * all its bits, and ORs those longs together; only if that shows a char outside ASCII is the
   * range encoded to UTF-8 and hashed again. ASCII is the common case for cache keys and the one
   * the router benchmarks time.
   */
  private static long hashChars(String s, int start, int end) {
    long h1 = 0;
    long h2 = 0;
    long seen = 0;
    int length = end - start;
    int p = start;
    int blockEnd = start + (length & ~15);
    for (; p < blockEnd; p += 16) {
      long a = chars4(s, p);
      long b = chars4(s, p + 4);
      long c = chars4(s, p + 8);
      long d = chars4(s, p + 12);
      seen |= a | b | c | d;
      h1 ^= mixK1(bytes8(a, b));
      h1 = Long.rotateLeft(h1, 27);
      h1 += h2;
      h1 = h1 * 5 + 0x52dce729;
      h2 ^= mixK2(bytes8(c, d));
      h2 = Long.rotateLeft(h2, 31);
      h2 += h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = end - p;
    if (tail > 0) {
      long k1;
      long k2 = 0;
      if (tail >= 8) {
        long a = chars4(s, p);
        long b = chars4(s, p + 4);
        seen |= a | b;
        k1 = bytes8(a, b);
        for (int i = 8; i < tail; i++) {
          char ch = s.charAt(p + i);
          seen |= ch;
          k2 |= (long) ch << ((i - 8) << 3);
        }
      } else {
        k1 = 0;
        for (int i = 0; i < tail; i++) {
          char ch = s.charAt(p + i);
          seen |= ch;
          k1 |= (long) ch << (i << 3);
        }
      }
      if (tail > 8) {
        h2 ^= mixK2(k2);
      }
      h1 ^= mixK1(k1);
    }
    if ((seen & NOT_ASCII) != 0) {
      byte[] buf = KeyBytes.scratch(KeyBytes.maxUtf8Length(length));
      int len = KeyBytes.encodeUtf8(s, start, end, buf, 0);
      return hash64(buf, 0, len);
    }
    return finish(h1, h2, length);
  }

  /** Four chars from {@code p}, one per 16-bit lane, little-endian. */
  private static long chars4(String s, int p) {
    return s.charAt(p)
        | (long) s.charAt(p + 1) << 16
        | (long) s.charAt(p + 2) << 32
        | (long) s.charAt(p + 3) << 48;
  }

  /**
   * Eight bytes, little-endian, from two {@link #chars4} longs of ASCII chars (the high byte of
   * each lane is 0): the low byte of each lane, packed.
   */
  private static long bytes8(long low, long high) {
    return pack4(low) | pack4(high) << 32;
  }

  private static long pack4(long lanes) {
    return (lanes & 0xFFL)
        | (lanes >>> 8 & 0xFF00L)
        | (lanes >>> 16 & 0xFF0000L)
        | (lanes >>> 24 & 0xFF000000L);
  }

  /** The first 64 bits of MurmurHash3 x64 128 with seed 0; the range is not checked. */
  static long hash64(byte[] data, int offset, int length) {
    long h1 = 0;
    long h2 = 0;
    int blocks = length >>> 4;
    int p = offset;
    for (int i = 0; i < blocks; i++, p += 16) {
      long k1 = (long) LONG_LE.get(data, p);
      long k2 = (long) LONG_LE.get(data, p + 8);
      h1 ^= mixK1(k1);
      h1 = Long.rotateLeft(h1, 27);
      h1 += h2;
      h1 = h1 * 5 + 0x52dce729;
      h2 ^= mixK2(k2);
      h2 = Long.rotateLeft(h2, 31);
      h2 += h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = length & 15;
    if (tail > 0) {
      long k1 = 0;
      long k2 = 0;
      if (tail >= 8) {
        k1 = (long) LONG_LE.get(data, p);
        for (int i = tail - 1; i >= 8; i--) {
          k2 = (k2 << 8) | (data[p + i] & 0xFFL);
        }
      } else {
        for (int i = tail - 1; i >= 0; i--) {
          k1 = (k1 << 8) | (data[p + i] & 0xFFL);
        }
      }
      if (tail > 8) {
        h2 ^= mixK2(k2);
      }
      h1 ^= mixK1(k1);
    }
    return finish(h1, h2, length);
  }

  /** The finalization: the length mixed in, then both halves avalanched; the low 64 bits. */
  private static long finish(long h1, long h2, int length) {
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    return h1 + h2;
  }

  private static long mixK1(long k1) {
    k1 *= C1;
    k1 = Long.rotateLeft(k1, 31);
    return k1 * C2;
  }

  private static long mixK2(long k2) {
    k2 *= C2;
    k2 = Long.rotateLeft(k2, 33);
    return k2 * C1;
  }

  /**
   * MurmurHash3's 64-bit finalizer: a bijection that spreads every input bit over the output.
   * Routers use it to derive further hashes from one key hash.
   */
  public static long fmix64(long k) {
    k ^= k >>> 33;
    k *= 0xff51afd7ed558ccdL;
    k ^= k >>> 33;
    k *= 0xc4ceb9fe1a85ec53L;
    k ^= k >>> 33;
    return k;
  }

  @Override
  public String toString() {
    return name();
  }
}
