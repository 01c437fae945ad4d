package io.shardwise.ketama;

import io.shardwise.internal.KeyBytes;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * MD5 for ketama: every ketama point and key hash is a little-endian 32-bit word of an MD5
 * digest. The JDK's {@link MessageDigest} does the hashing (HotSpot compiles its MD5 block to an
 * intrinsic, faster than any Java code); this class keeps one digest, one input buffer and one
 * output buffer per thread, so hashing a key allocates nothing, where spymemcached's
 * {@code computeMd5} clones a digest and allocates the key's bytes and the result on every call
 * ({@code docs/benchmarks.md}).
 *
 * <p>Not thread-safe: use {@link #forCurrentThread()} on hot paths.
 */
final class Md5 {

  private static final VarHandle INT_LE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final ThreadLocal<Md5> PER_THREAD = ThreadLocal.withInitial(Md5::new);

  private final MessageDigest md;
  private final byte[] out = new byte[16];
  /** Buffer for a key's UTF-8 bytes; grows for long keys. */
  private byte[] buf = new byte[256];

  Md5() {
    try {
      md = MessageDigest.getInstance("MD5");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no MD5, which every Java platform must provide", e);
    }
  }

  /** The calling thread's instance. */
  static Md5 forCurrentThread() {
    return PER_THREAD.get();
  }

  /** Word {@code 0} (bytes 0..3, little-endian) of MD5 of the UTF-8 encoding of {@code s[start, end)}. */
  int firstWord(String s, int start, int end) {
    int need = KeyBytes.maxUtf8Length(end - start);
    if (buf.length < need) {
      buf = new byte[Math.max(need, buf.length * 2)];
    }
    int len = KeyBytes.encodeUtf8(s, start, end, buf, 0);
    return firstWord(buf, 0, len);
  }

  /** Word {@code 0} of MD5 of {@code msg[offset, offset + length)}. */
  int firstWord(byte[] msg, int offset, int length) {
    digest(msg, offset, length);
    return (int) INT_LE.get(out, 0);
  }

  /** The four little-endian words of MD5 of {@code msg[offset, offset + length)}. */
  void digest(byte[] msg, int offset, int length, int[] words) {
    digest(msg, offset, length);
    for (int i = 0; i < 4; i++) {
      words[i] = (int) INT_LE.get(out, 4 * i);
    }
  }

  private void digest(byte[] msg, int offset, int length) {
    md.update(msg, offset, length);
    try {
      md.digest(out, 0, 16);
    } catch (DigestException e) {
      throw new IllegalStateException("MD5 into a 16-byte buffer failed", e);
    }
  }
}
