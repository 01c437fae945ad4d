package io.shardwise.ketama;

import io.shardwise.internal.KeyBytes;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32;

/**
 * The key hashes of the peer clients and proxies, each bit for bit as the peer computes it,
 * quirks included. Two families:
 *
 * <ul>
 *   <li>The C hashes of twemproxy ({@code src/hashkit/nc_*.c}, 0.5.0) and libmemcached ({@code
 *       libhashkit}, 1.1.4; twemproxy's are copies of them), which read the key's bytes
 *       through a {@code const char *}: on x86-64 (and every platform where {@code char} is
 *       signed) a byte of 0x80 or more is sign-extended before it is mixed in, so non-ASCII keys
 *       hash differently from the textbook function. Reproduced as x86-64 builds do.
 *   <li>The Java hashes of spymemcached ({@code DefaultHashAlgorithm}, 2.12.3), Xmemcached ({@code
 *       HashAlgorithm}, 2.4.8) and Jedis ({@code MurmurHash}, 3.x), which read the key as a {@code
 *       String}: the FNV variants and {@code NATIVE_HASH} mix UTF-16 chars, not bytes.
 * </ul>
 *
 * <p>Every hash but {@link #MURMUR64A} is an unsigned 32-bit value in a {@code long}; {@link
 * #MURMUR64A} is a signed 64-bit value (Jedis compares its points as signed longs).
 */
public enum PeerHash {

  /**
   * twemproxy {@code one_at_a_time}, libmemcached {@code default} (Jenkins one-at-a-time over
   * signed chars).
   */
  ONE_AT_A_TIME(Input.BYTES),
  /** The first little-endian word of MD5: twemproxy {@code md5}, spymemcached/Xmemcached {@code KETAMA_HASH}. */
  MD5(Input.BYTES),
  /**
   * twemproxy {@code crc16}: CRC-16/XMODEM, but kept in a 32-bit register that is never masked, so
   * the bits shifted past 16 stay in the result.
   */
  CRC16(Input.BYTES),
  /**
   * twemproxy {@code crc32}, libmemcached {@code crc}, spymemcached {@code CRC_HASH}, Xmemcached {@code CRC32_HASH}: bits
   * 16..30 of the CRC-32, {@code (crc32 >> 16) & 0x7fff} (libmemcached's form), so only 32768
   * distinct values.
   */
  CRC32_15(Input.BYTES),
  /** twemproxy {@code crc32a}: the full CRC-32 (the value of {@link CRC32}). */
  CRC32A(Input.BYTES),
  /** twemproxy {@code fnv1_64}: 64-bit FNV-1 over signed chars, truncated to 32 bits. */
  FNV1_64(Input.BYTES),
  /**
   * twemproxy and libmemcached {@code fnv1a_64} (twemproxy took libhashkit's code): not 64-bit
   * FNV-1a. It runs in 32 bits with the low words of the
   * 64-bit offset basis (0x84222325) and prime (0x1b3), over signed chars.
   */
  FNV1A_64_TWEMPROXY(Input.BYTES),
  /** twemproxy {@code fnv1_32}: 32-bit FNV-1 over signed chars. */
  FNV1_32(Input.BYTES),
  /** twemproxy {@code fnv1a_32}: 32-bit FNV-1a over signed chars. */
  FNV1A_32(Input.BYTES),
  /** twemproxy {@code hsieh}: Paul Hsieh's SuperFastHash, the third tail byte signed. */
  HSIEH(Input.BYTES),
  /** twemproxy and libmemcached {@code murmur}: MurmurHash2 with seed {@code 0xdeadbeef * length}. */
  MURMUR(Input.BYTES),
  /**
   * libmemcached {@code murmur3} ({@code libhashkit/murmur3_api.cc}): MurmurHash3 x86 32-bit with
   * seed {@code 0xdeadbeef * length}.
   */
  MURMUR3(Input.BYTES),
  /** twemproxy {@code jenkins}: Bob Jenkins' lookup3 {@code hashlittle} with initval 13. */
  JENKINS(Input.BYTES),

  /** spymemcached and Xmemcached {@code NATIVE_HASH}: {@code String.hashCode()} as unsigned 32 bits. */
  JAVA_NATIVE(Input.CHARS),
  /** spymemcached and Xmemcached {@code FNV1_64_HASH}: 64-bit FNV-1 over UTF-16 chars, truncated. */
  JAVA_FNV1_64(Input.CHARS),
  /** spymemcached and Xmemcached {@code FNV1A_64_HASH}: 64-bit FNV-1a over UTF-16 chars, truncated. */
  JAVA_FNV1A_64(Input.CHARS),
  /** spymemcached and Xmemcached {@code FNV1_32_HASH}: 32-bit FNV-1 over UTF-16 chars. */
  JAVA_FNV1_32(Input.CHARS),
  /** spymemcached and Xmemcached {@code FNV1A_32_HASH}: 32-bit FNV-1a over UTF-16 chars. */
  JAVA_FNV1A_32(Input.CHARS),

  /**
   * Jedis {@code Hashing.MURMUR_HASH}: MurmurHash64A (Austin Appleby) of the UTF-8 bytes with seed
   * {@code 0x1234ABCD}, a signed 64-bit value.
   */
  MURMUR64A(Input.BYTES);

  private enum Input {
    BYTES,
    CHARS
  }

  private static final long FNV_64_INIT = 0xcbf29ce484222325L;
  private static final long FNV_64_PRIME = 0x100000001b3L;
  private static final int FNV_32_INIT = 0x811c9dc5;
  private static final int FNV_32_PRIME = 16777619;
  private static final long MASK32 = 0xFFFFFFFFL;

  private static final ThreadLocal<CRC32> CRC = ThreadLocal.withInitial(CRC32::new);

  private static final int[] CRC16_TABLE = new int[256];

  static {
    // CRC-16/XMODEM (polynomial 0x1021), the table of twemproxy's nc_crc16.c.
    for (int i = 0; i < 256; i++) {
      int crc = i << 8;
      for (int b = 0; b < 8; b++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      CRC16_TABLE[i] = crc & 0xFFFF;
    }
  }

  private final Input input;

  PeerHash(Input input) {
    this.input = input;
  }

  /**
   * Hash of {@code key[offset, offset + length)}; a char-based hash decodes the bytes as UTF-8 (and
   * so allocates a string; the other hashes and {@link #hash(String, int, int)} allocate nothing).
   */
  public long hash(byte[] key, int offset, int length) {
    KeyBytes.checkRange(key.length, offset, length);
    if (input == Input.CHARS) {
      String s = new String(key, offset, length, StandardCharsets.UTF_8);
      return ofChars(s, 0, s.length());
    }
    return ofBytes(key, offset, length);
  }

  /** Hash of {@code key[start, end)}; a byte-based hash takes its UTF-8 bytes. */
  public long hash(String key, int start, int end) {
    if (start < 0 || end > key.length() || start > end) {
      throw new StringIndexOutOfBoundsException(
          "begin " + start + ", end " + end + ", length " + key.length());
    }
    if (input == Input.CHARS) {
      return ofChars(key, start, end);
    }
    byte[] buf = KeyBytes.scratch(KeyBytes.maxUtf8Length(end - start));
    int length = KeyBytes.encodeUtf8(key, start, end, buf, 0);
    return ofBytes(buf, 0, length);
  }

  /** Hash of the whole string. */
  public long hash(String key) {
    return hash(key, 0, key.length());
  }

  private long ofChars(String s, int start, int end) {
    switch (this) {
      case JAVA_NATIVE: {
        int h = 0;
        for (int i = start; i < end; i++) {
          h = 31 * h + s.charAt(i);
        }
        return h & MASK32;
      }
      case JAVA_FNV1_64: {
        long h = FNV_64_INIT;
        for (int i = start; i < end; i++) {
          h *= FNV_64_PRIME;
          h ^= s.charAt(i);
        }
        return h & MASK32;
      }
      case JAVA_FNV1A_64: {
        long h = FNV_64_INIT;
        for (int i = start; i < end; i++) {
          h ^= s.charAt(i);
          h *= FNV_64_PRIME;
        }
        return h & MASK32;
      }
      case JAVA_FNV1_32: {
        int h = FNV_32_INIT;
        for (int i = start; i < end; i++) {
          h *= FNV_32_PRIME;
          h ^= s.charAt(i);
        }
        return h & MASK32;
      }
      case JAVA_FNV1A_32: {
        int h = FNV_32_INIT;
        for (int i = start; i < end; i++) {
          h ^= s.charAt(i);
          h *= FNV_32_PRIME;
        }
        return h & MASK32;
      }
      default:
        throw new AssertionError(this);
    }
  }

  private long ofBytes(byte[] k, int off, int len) {
    switch (this) {
      case ONE_AT_A_TIME:
        return oneAtATime(k, off, len);
      case MD5:
        return Md5.forCurrentThread().firstWord(k, off, len) & MASK32;
      case CRC16: {
        int crc = 0;
        for (int i = off; i < off + len; i++) {
          crc = (crc << 8) ^ CRC16_TABLE[((crc >>> 8) ^ k[i]) & 0xFF];
        }
        return crc & MASK32;
      }
      case CRC32_15:
        return (crc32(k, off, len) >>> 16) & 0x7FFF;
      case CRC32A:
        return crc32(k, off, len);
      case FNV1_64: {
        long h = FNV_64_INIT;
        for (int i = off; i < off + len; i++) {
          h *= FNV_64_PRIME;
          h ^= k[i]; // sign-extended, as (uint64_t) of a signed char
        }
        return h & MASK32;
      }
      case FNV1A_64_TWEMPROXY: {
        int h = (int) FNV_64_INIT;
        for (int i = off; i < off + len; i++) {
          h ^= k[i];
          h *= (int) FNV_64_PRIME;
        }
        return h & MASK32;
      }
      case FNV1_32: {
        int h = FNV_32_INIT;
        for (int i = off; i < off + len; i++) {
          h *= FNV_32_PRIME;
          h ^= k[i];
        }
        return h & MASK32;
      }
      case FNV1A_32: {
        int h = FNV_32_INIT;
        for (int i = off; i < off + len; i++) {
          h ^= k[i];
          h *= FNV_32_PRIME;
        }
        return h & MASK32;
      }
      case HSIEH:
        return hsieh(k, off, len);
      case MURMUR:
        return murmur2(k, off, len);
      case MURMUR3:
        return murmur3x86(k, off, len, 0xdeadbeef * len);
      case JENKINS:
        return jenkins(k, off, len);
      case MURMUR64A:
        return murmur64a(k, off, len, 0x1234ABCD);
      default:
        throw new AssertionError(this);
    }
  }

  private static long crc32(byte[] k, int off, int len) {
    CRC32 crc = CRC.get();
    crc.reset();
    crc.update(k, off, len);
    return crc.getValue();
  }

  /** nc_one_at_a_time.c: each byte is read as a signed char and widened to uint32_t. */
  private static long oneAtATime(byte[] k, int off, int len) {
    int v = 0;
    for (int i = off; i < off + len; i++) {
      v += k[i];
      v += v << 10;
      v ^= v >>> 6;
    }
    v += v << 3;
    v ^= v >>> 11;
    v += v << 15;
    return v & MASK32;
  }

  private static int get16(byte[] k, int i) {
    return (k[i] & 0xFF) | ((k[i + 1] & 0xFF) << 8);
  }

  /** nc_hsieh.c (SuperFastHash). */
  private static long hsieh(byte[] k, int off, int len) {
    if (len <= 0) {
      return 0;
    }
    int hash = 0;
    int rem = len & 3;
    int p = off;
    for (int blocks = len >>> 2; blocks > 0; blocks--) {
      hash += get16(k, p);
      int tmp = (get16(k, p + 2) << 11) ^ hash;
      hash = (hash << 16) ^ tmp;
      p += 4;
      hash += hash >>> 11;
    }
    switch (rem) {
      case 3:
        hash += get16(k, p);
        hash ^= hash << 16;
        hash ^= k[p + 2] << 18; // (uint32_t) of a signed char
        hash += hash >>> 11;
        break;
      case 2:
        hash += get16(k, p);
        hash ^= hash << 11;
        hash += hash >>> 17;
        break;
      case 1:
        hash += k[p] & 0xFF;
        hash ^= hash << 10;
        hash += hash >>> 1;
        break;
      default:
        break;
    }
    hash ^= hash << 3;
    hash += hash >>> 5;
    hash ^= hash << 4;
    hash += hash >>> 17;
    hash ^= hash << 25;
    hash += hash >>> 6;
    return hash & MASK32;
  }

  private static int le32(byte[] k, int i) {
    return (k[i] & 0xFF) | ((k[i + 1] & 0xFF) << 8) | ((k[i + 2] & 0xFF) << 16) | (k[i + 3] << 24);
  }

  /** nc_murmur.c: MurmurHash2, seed {@code 0xdeadbeef * length}, unsigned bytes. */
  @SuppressWarnings("fallthrough")
  private static long murmur2(byte[] k, int off, int len) {
    final int m = 0x5bd1e995;
    int h = (0xdeadbeef * len) ^ len;
    int p = off;
    int left = len;
    while (left >= 4) {
      int w = le32(k, p);
      w *= m;
      w ^= w >>> 24;
      w *= m;
      h *= m;
      h ^= w;
      p += 4;
      left -= 4;
    }
    switch (left) {
      case 3:
        h ^= (k[p + 2] & 0xFF) << 16;
        // fall through
      case 2:
        h ^= (k[p + 1] & 0xFF) << 8;
        // fall through
      case 1:
        h ^= k[p] & 0xFF;
        h *= m;
        break;
      default:
        break;
    }
    h ^= h >>> 13;
    h *= m;
    h ^= h >>> 15;
    return h & MASK32;
  }

  /** MurmurHash3_x86_32 (Austin Appleby), little-endian blocks. */
  private static long murmur3x86(byte[] k, int off, int len, int seed) {
    final int c1 = 0xcc9e2d51;
    final int c2 = 0x1b873593;
    int h = seed;
    int p = off;
    for (int blocks = len >>> 2; blocks > 0; blocks--) {
      int w = le32(k, p);
      w *= c1;
      w = Integer.rotateLeft(w, 15);
      w *= c2;
      h ^= w;
      h = Integer.rotateLeft(h, 13);
      h = h * 5 + 0xe6546b64;
      p += 4;
    }
    int w = 0;
    for (int i = 0; i < (len & 3); i++) {
      w |= (k[p + i] & 0xFF) << (8 * i);
    }
    w *= c1;
    w = Integer.rotateLeft(w, 15);
    w *= c2;
    h ^= w;
    h ^= len;
    h ^= h >>> 16;
    h *= 0x85ebca6b;
    h ^= h >>> 13;
    h *= 0xc2b2ae35;
    h ^= h >>> 16;
    return h & MASK32;
  }

  /**
   * nc_jenkins.c: lookup3 {@code hashlittle}. On a little-endian machine its word-aligned,
   * half-word-aligned and byte paths give the same value; this is the byte path.
   */
  @SuppressWarnings("fallthrough")
  private static long jenkins(byte[] k, int off, int len) {
    int a = 0xdeadbeef + len + 13;
    int b = a;
    int c = a;
    int p = off;
    int length = len;
    while (length > 12) {
      a += le32(k, p);
      b += le32(k, p + 4);
      c += le32(k, p + 8);
      // mix(a, b, c)
      a -= c; a ^= Integer.rotateLeft(c, 4); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 6); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 8); b += a;
      a -= c; a ^= Integer.rotateLeft(c, 16); c += b;
      b -= a; b ^= Integer.rotateLeft(a, 19); a += c;
      c -= b; c ^= Integer.rotateLeft(b, 4); b += a;
      length -= 12;
      p += 12;
    }
    if (length == 0) {
      return c & MASK32;
    }
    switch (length) {
      case 12: c += (k[p + 11] & 0xFF) << 24; // fall through
      case 11: c += (k[p + 10] & 0xFF) << 16; // fall through
      case 10: c += (k[p + 9] & 0xFF) << 8; // fall through
      case 9: c += k[p + 8] & 0xFF; // fall through
      case 8: b += (k[p + 7] & 0xFF) << 24; // fall through
      case 7: b += (k[p + 6] & 0xFF) << 16; // fall through
      case 6: b += (k[p + 5] & 0xFF) << 8; // fall through
      case 5: b += k[p + 4] & 0xFF; // fall through
      case 4: a += (k[p + 3] & 0xFF) << 24; // fall through
      case 3: a += (k[p + 2] & 0xFF) << 16; // fall through
      case 2: a += (k[p + 1] & 0xFF) << 8; // fall through
      case 1: a += k[p] & 0xFF; break;
      default: break;
    }
    // final(a, b, c)
    c ^= b; c -= Integer.rotateLeft(b, 14);
    a ^= c; a -= Integer.rotateLeft(c, 11);
    b ^= a; b -= Integer.rotateLeft(a, 25);
    c ^= b; c -= Integer.rotateLeft(b, 16);
    a ^= c; a -= Integer.rotateLeft(c, 4);
    b ^= a; b -= Integer.rotateLeft(a, 14);
    c ^= b; c -= Integer.rotateLeft(b, 24);
    return c & MASK32;
  }

  /** Jedis {@code MurmurHash.hash64A}: little-endian 8-byte blocks, the tail as one zero-padded block. */
  static long murmur64a(byte[] k, int off, int len, int seed) {
    final long m = 0xc6a4a7935bd1e995L;
    final int r = 47;
    long h = seed ^ (len * m);
    int p = off;
    int left = len;
    while (left >= 8) {
      long w = (le32(k, p) & MASK32) | ((long) le32(k, p + 4) << 32);
      w *= m;
      w ^= w >>> r;
      w *= m;
      h ^= w;
      h *= m;
      p += 8;
      left -= 8;
    }
    if (left > 0) {
      long w = 0;
      for (int i = 0; i < left; i++) {
        w |= (k[p + i] & 0xFFL) << (8 * i);
      }
      h ^= w;
      h *= m;
    }
    h ^= h >>> r;
    h *= m;
    h ^= h >>> r;
    return h;
  }
}
