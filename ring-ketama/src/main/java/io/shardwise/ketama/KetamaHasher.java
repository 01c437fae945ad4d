package io.shardwise.ketama;

import io.shardwise.internal.KeyBytes;
import io.shardwise.routing.KeyHasher;

/**
 * The ketama key hash shared by libketama, libmemcached, twemproxy and spymemcached: the first
 * little-endian 32-bit word of MD5 of the key bytes, as an unsigned value in a {@code long}.
 */
public final class KetamaHasher implements KeyHasher {

  /** The shared instance. */
  public static final KetamaHasher INSTANCE = new KetamaHasher();

  private KetamaHasher() {}

  @Override
  public String name() {
    return "ketama-md5";
  }

  @Override
  public long hash(byte[] key, int offset, int length) {
    KeyBytes.checkRange(key.length, offset, length);
    return Md5.forCurrentThread().firstWord(key, offset, length) & 0xFFFFFFFFL;
  }

  @Override
  public long hash(String key, int start, int end) {
    if (start < 0 || end > key.length() || start > end) {
      throw new StringIndexOutOfBoundsException(
          "begin " + start + ", end " + end + ", length " + key.length());
    }
    return Md5.forCurrentThread().firstWord(key, start, end) & 0xFFFFFFFFL;
  }

  @Override
  public String toString() {
    return name();
  }
}
