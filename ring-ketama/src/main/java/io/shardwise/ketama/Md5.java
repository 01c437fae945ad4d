package io.shardwise.ketama;

import io.shardwise.internal.KeyBytes;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * MD5 (RFC 1321), written for ketama: every ketama point and key hash is a little-endian 32-bit
 * word of an MD5 digest. {@code java.security.MessageDigest} costs an object per digest (clone or
 * getInstance), a byte[] for the key and a byte[] for the result; this class reuses one buffer per
 * instance and one instance per thread, so a key hash allocates nothing. The result is checked
 * against {@code MessageDigest.getInstance("MD5")} in the tests; the speed difference is in
 * {@code docs/benchmarks.md}.
 *
 * <p>Not thread-safe: use {@link #forCurrentThread()} on hot paths.
 */
final class Md5 {

  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG_LE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private static final ThreadLocal<Md5> PER_THREAD = ThreadLocal.withInitial(Md5::new);

  /** Buffer for the UTF-8 key and the padding; grows for long keys. */
  private byte[] buf = new byte[512];

  private int a;
  private int b;
  private int c;
  private int d;

  /** The calling thread's instance. */
  static Md5 forCurrentThread() {
    return PER_THREAD.get();
  }

  /** Word {@code 0} (bytes 0..3, little-endian) of MD5 of the UTF-8 encoding of {@code s[start, end)}. */
  int firstWord(String s, int start, int end) {
    int len = KeyBytes.encodeUtf8(s, start, end, buffer(KeyBytes.maxUtf8Length(end - start)), 0);
    digest(buf, 0, len);
    return a;
  }

  /** Word {@code 0} of MD5 of {@code msg[offset, offset + length)}. */
  int firstWord(byte[] msg, int offset, int length) {
    digest(msg, offset, length);
    return a;
  }

  /** The four little-endian words of MD5 of {@code msg[offset, offset + length)}. */
  void digest(byte[] msg, int offset, int length, int[] words) {
    digest(msg, offset, length);
    words[0] = a;
    words[1] = b;
    words[2] = c;
    words[3] = d;
  }

  private void digest(byte[] msg, int offset, int length) {
    a = 0x67452301;
    b = 0xefcdab89;
    c = 0x98badcfe;
    d = 0x10325476;
    int full = length & ~63;
    for (int p = 0; p < full; p += 64) {
      compress(msg, offset + p);
    }
    int tail = length - full;
    byte[] t = buffer(tail); // may be msg itself: arraycopy handles the overlap
    System.arraycopy(msg, offset + full, t, 0, tail);
    finishTail(t, tail, length);
  }

  /** Pads the {@code tail} bytes at the start of {@code t} and compresses the last block(s). */
  private void finishTail(byte[] t, int tail, long messageLength) {
    int blocks = tail < 56 ? 1 : 2;
    int end = blocks * 64;
    t[tail] = (byte) 0x80;
    for (int i = tail + 1; i < end - 8; i++) {
      t[i] = 0;
    }
    LONG_LE.set(t, end - 8, messageLength << 3);
    compress(t, 0);
    if (blocks == 2) {
      compress(t, 64);
    }
  }

  /** {@code buf} with room for {@code messageBytes} plus two blocks of padding. */
  private byte[] buffer(int messageBytes) {
    int need = messageBytes + 128;
    if (buf.length < need) {
      buf = new byte[Math.max(need, buf.length * 2)];
    }
    return buf;
  }

  /** One 64-byte block: the four rounds of RFC 1321 section 3.4, unrolled. */
  private void compress(byte[] m, int p) {
    int x0 = (int) INT_LE.get(m, p);
    int x1 = (int) INT_LE.get(m, p + 4);
    int x2 = (int) INT_LE.get(m, p + 8);
    int x3 = (int) INT_LE.get(m, p + 12);
    int x4 = (int) INT_LE.get(m, p + 16);
    int x5 = (int) INT_LE.get(m, p + 20);
    int x6 = (int) INT_LE.get(m, p + 24);
    int x7 = (int) INT_LE.get(m, p + 28);
    int x8 = (int) INT_LE.get(m, p + 32);
    int x9 = (int) INT_LE.get(m, p + 36);
    int x10 = (int) INT_LE.get(m, p + 40);
    int x11 = (int) INT_LE.get(m, p + 44);
    int x12 = (int) INT_LE.get(m, p + 48);
    int x13 = (int) INT_LE.get(m, p + 52);
    int x14 = (int) INT_LE.get(m, p + 56);
    int x15 = (int) INT_LE.get(m, p + 60);
    int a = this.a;
    int b = this.b;
    int c = this.c;
    int d = this.d;
    // Constants: floor(abs(sin(i + 1)) * 2^32), RFC 1321 section 3.4.
    a = b + Integer.rotateLeft(a + ((b & c) | (~b & d)) + x0 + 0xd76aa478, 7);
    d = a + Integer.rotateLeft(d + ((a & b) | (~a & c)) + x1 + 0xe8c7b756, 12);
    c = d + Integer.rotateLeft(c + ((d & a) | (~d & b)) + x2 + 0x242070db, 17);
    b = c + Integer.rotateLeft(b + ((c & d) | (~c & a)) + x3 + 0xc1bdceee, 22);
    a = b + Integer.rotateLeft(a + ((b & c) | (~b & d)) + x4 + 0xf57c0faf, 7);
    d = a + Integer.rotateLeft(d + ((a & b) | (~a & c)) + x5 + 0x4787c62a, 12);
    c = d + Integer.rotateLeft(c + ((d & a) | (~d & b)) + x6 + 0xa8304613, 17);
    b = c + Integer.rotateLeft(b + ((c & d) | (~c & a)) + x7 + 0xfd469501, 22);
    a = b + Integer.rotateLeft(a + ((b & c) | (~b & d)) + x8 + 0x698098d8, 7);
    d = a + Integer.rotateLeft(d + ((a & b) | (~a & c)) + x9 + 0x8b44f7af, 12);
    c = d + Integer.rotateLeft(c + ((d & a) | (~d & b)) + x10 + 0xffff5bb1, 17);
    b = c + Integer.rotateLeft(b + ((c & d) | (~c & a)) + x11 + 0x895cd7be, 22);
    a = b + Integer.rotateLeft(a + ((b & c) | (~b & d)) + x12 + 0x6b901122, 7);
    d = a + Integer.rotateLeft(d + ((a & b) | (~a & c)) + x13 + 0xfd987193, 12);
    c = d + Integer.rotateLeft(c + ((d & a) | (~d & b)) + x14 + 0xa679438e, 17);
    b = c + Integer.rotateLeft(b + ((c & d) | (~c & a)) + x15 + 0x49b40821, 22);
    a = b + Integer.rotateLeft(a + ((d & b) | (~d & c)) + x1 + 0xf61e2562, 5);
    d = a + Integer.rotateLeft(d + ((c & a) | (~c & b)) + x6 + 0xc040b340, 9);
    c = d + Integer.rotateLeft(c + ((b & d) | (~b & a)) + x11 + 0x265e5a51, 14);
    b = c + Integer.rotateLeft(b + ((a & c) | (~a & d)) + x0 + 0xe9b6c7aa, 20);
    a = b + Integer.rotateLeft(a + ((d & b) | (~d & c)) + x5 + 0xd62f105d, 5);
    d = a + Integer.rotateLeft(d + ((c & a) | (~c & b)) + x10 + 0x02441453, 9);
    c = d + Integer.rotateLeft(c + ((b & d) | (~b & a)) + x15 + 0xd8a1e681, 14);
    b = c + Integer.rotateLeft(b + ((a & c) | (~a & d)) + x4 + 0xe7d3fbc8, 20);
    a = b + Integer.rotateLeft(a + ((d & b) | (~d & c)) + x9 + 0x21e1cde6, 5);
    d = a + Integer.rotateLeft(d + ((c & a) | (~c & b)) + x14 + 0xc33707d6, 9);
    c = d + Integer.rotateLeft(c + ((b & d) | (~b & a)) + x3 + 0xf4d50d87, 14);
    b = c + Integer.rotateLeft(b + ((a & c) | (~a & d)) + x8 + 0x455a14ed, 20);
    a = b + Integer.rotateLeft(a + ((d & b) | (~d & c)) + x13 + 0xa9e3e905, 5);
    d = a + Integer.rotateLeft(d + ((c & a) | (~c & b)) + x2 + 0xfcefa3f8, 9);
    c = d + Integer.rotateLeft(c + ((b & d) | (~b & a)) + x7 + 0x676f02d9, 14);
    b = c + Integer.rotateLeft(b + ((a & c) | (~a & d)) + x12 + 0x8d2a4c8a, 20);
    a = b + Integer.rotateLeft(a + (b ^ c ^ d) + x5 + 0xfffa3942, 4);
    d = a + Integer.rotateLeft(d + (a ^ b ^ c) + x8 + 0x8771f681, 11);
    c = d + Integer.rotateLeft(c + (d ^ a ^ b) + x11 + 0x6d9d6122, 16);
    b = c + Integer.rotateLeft(b + (c ^ d ^ a) + x14 + 0xfde5380c, 23);
    a = b + Integer.rotateLeft(a + (b ^ c ^ d) + x1 + 0xa4beea44, 4);
    d = a + Integer.rotateLeft(d + (a ^ b ^ c) + x4 + 0x4bdecfa9, 11);
    c = d + Integer.rotateLeft(c + (d ^ a ^ b) + x7 + 0xf6bb4b60, 16);
    b = c + Integer.rotateLeft(b + (c ^ d ^ a) + x10 + 0xbebfbc70, 23);
    a = b + Integer.rotateLeft(a + (b ^ c ^ d) + x13 + 0x289b7ec6, 4);
    d = a + Integer.rotateLeft(d + (a ^ b ^ c) + x0 + 0xeaa127fa, 11);
    c = d + Integer.rotateLeft(c + (d ^ a ^ b) + x3 + 0xd4ef3085, 16);
    b = c + Integer.rotateLeft(b + (c ^ d ^ a) + x6 + 0x04881d05, 23);
    a = b + Integer.rotateLeft(a + (b ^ c ^ d) + x9 + 0xd9d4d039, 4);
    d = a + Integer.rotateLeft(d + (a ^ b ^ c) + x12 + 0xe6db99e5, 11);
    c = d + Integer.rotateLeft(c + (d ^ a ^ b) + x15 + 0x1fa27cf8, 16);
    b = c + Integer.rotateLeft(b + (c ^ d ^ a) + x2 + 0xc4ac5665, 23);
    a = b + Integer.rotateLeft(a + (c ^ (b | ~d)) + x0 + 0xf4292244, 6);
    d = a + Integer.rotateLeft(d + (b ^ (a | ~c)) + x7 + 0x432aff97, 10);
    c = d + Integer.rotateLeft(c + (a ^ (d | ~b)) + x14 + 0xab9423a7, 15);
    b = c + Integer.rotateLeft(b + (d ^ (c | ~a)) + x5 + 0xfc93a039, 21);
    a = b + Integer.rotateLeft(a + (c ^ (b | ~d)) + x12 + 0x655b59c3, 6);
    d = a + Integer.rotateLeft(d + (b ^ (a | ~c)) + x3 + 0x8f0ccc92, 10);
    c = d + Integer.rotateLeft(c + (a ^ (d | ~b)) + x10 + 0xffeff47d, 15);
    b = c + Integer.rotateLeft(b + (d ^ (c | ~a)) + x1 + 0x85845dd1, 21);
    a = b + Integer.rotateLeft(a + (c ^ (b | ~d)) + x8 + 0x6fa87e4f, 6);
    d = a + Integer.rotateLeft(d + (b ^ (a | ~c)) + x15 + 0xfe2ce6e0, 10);
    c = d + Integer.rotateLeft(c + (a ^ (d | ~b)) + x6 + 0xa3014314, 15);
    b = c + Integer.rotateLeft(b + (d ^ (c | ~a)) + x13 + 0x4e0811a1, 21);
    a = b + Integer.rotateLeft(a + (c ^ (b | ~d)) + x4 + 0xf7537e82, 6);
    d = a + Integer.rotateLeft(d + (b ^ (a | ~c)) + x11 + 0xbd3af235, 10);
    c = d + Integer.rotateLeft(c + (a ^ (d | ~b)) + x2 + 0x2ad7d2bb, 15);
    b = c + Integer.rotateLeft(b + (d ^ (c | ~a)) + x9 + 0xeb86d391, 21);
    this.a += a;
    this.b += b;
    this.c += c;
    this.d += d;
  }
}
