package io.shardwise.memcached;

import io.shardwise.client.CachedValue;
import net.spy.memcached.CachedData;
import net.spy.memcached.transcoders.Transcoder;

/**
 * Hands a {@link CachedValue}'s bytes and flags to spymemcached unchanged, and back. Encoding is
 * done by Shardwise's codecs; the routing client enforces the value size limit, so this transcoder
 * accepts any size.
 */
final class CachedValueTranscoder implements Transcoder<CachedValue> {

  static final CachedValueTranscoder INSTANCE = new CachedValueTranscoder();

  private CachedValueTranscoder() {}

  @Override
  public boolean asyncDecode(CachedData data) {
    return false;
  }

  @Override
  public CachedData encode(CachedValue value) {
    return new CachedData(value.flags(), value.bytes(), Integer.MAX_VALUE);
  }

  @Override
  public CachedValue decode(CachedData data) {
    return CachedValue.of(data.getData(), data.getFlags());
  }

  @Override
  public int getMaxSize() {
    return Integer.MAX_VALUE;
  }
}
