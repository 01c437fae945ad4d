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
    for (int i = start; i < end; i++) {
      if (key.charAt(i) >= 0x80) {
        byte[] buf = KeyBytes.scratch(KeyBytes.maxUtf8Length(end - start));
        int len = KeyBytes.encodeUtf8(key, start, end, buf, 0);
        return hash64(buf, 0, len);
      }
    }
    return hashAscii(key, start, end);
  }

  /**
   * {@link #hash64} of an ASCII range, reading the chars as bytes in place: no copy, no scratch
   * buffer. The common case for cache keys, and the one the router benchmarks time.
   */
  private static long hashAscii(String s, int start, int end) {
    long h1 = 0;
    long h2 = 0;
    int length = end - start;
    int p = start;
    int blockEnd = start + (length & ~15);
    for (; p < blockEnd; p += 16) {
      h1 ^= mixK1(ascii8(s, p));
      h1 = Long.rotateLeft(h1, 27);
      h1 += h2;
      h1 = h1 * 5 + 0x52dce729;
      h2 ^= mixK2(ascii8(s, p + 8));
      h2 = Long.rotateLeft(h2, 31);
      h2 += h1;
      h2 = h2 * 5 + 0x38495ab5;
    }
    int tail = end - p;
    if (tail > 0) {
      long k1 = 0;
      long k2 = 0;
      for (int i = Math.min(tail, 8) - 1; i >= 0; i--) {
        k1 = (k1 << 8) | s.charAt(p + i);
      }
      for (int i = tail - 1; i >= 8; i--) {
        k2 = (k2 << 8) | s.charAt(p + i);
      }
      if (tail > 8) {
        h2 ^= mixK2(k2);
      }
      h1 ^= mixK1(k1);
    }
    h1 ^= length;
    h2 ^= length;
    h1 += h2;
    h2 += h1;
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    return h1 + h2;
  }

  /** Eight ASCII chars from {@code p} as a little-endian long. */
  private static long ascii8(String s, int p) {
    return s.charAt(p)
        | (long) s.charAt(p + 1) << 8
        | (long) s.charAt(p + 2) << 16
        | (long) s.charAt(p + 3) << 24
        | (long) s.charAt(p + 4) << 32
        | (long) s.charAt(p + 5) << 40
        | (long) s.charAt(p + 6) << 48
        | (long) s.charAt(p + 7) << 56;
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
