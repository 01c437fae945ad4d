package io.shardwise.core.internal.near;

import com.github.benmanes.caffeine.cache.Ticker;
import io.shardwise.client.CachedValue;
import io.shardwise.core.NearCacheOptions;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One value, the epoch it is served in, and one word for refresh-ahead: when it was kept (ticker
 * nanos, the two low bits cleared) with whether it was served since in the low bit, or {@link
 * #CLAIMED} once a hit asked its refresh. 32 bytes, one field more than the value and the epoch.
 * The epoch is the one its read was sent in, moved on by a placement change that did not move the
 * key ({@link #carry}).
 */
final class NearEntry {
  static final long CLAIMED = Long.MIN_VALUE;
  private static final long SERVED = 1;
  private static final long TIME = ~3L;
  private static final VarHandle KEPT;
  private static final VarHandle EPOCH;

  static {
    try {
      KEPT = MethodHandles.lookup().findVarHandle(NearEntry.class, "kept", long.class);
      EPOCH = MethodHandles.lookup().findVarHandle(NearEntry.class, "epoch", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final CachedValue value;
  @SuppressWarnings("FieldMayBeFinal") // changed through EPOCH
  private volatile long epoch;
  @SuppressWarnings("FieldMayBeFinal") // changed through KEPT
  private volatile long kept;

  NearEntry(CachedValue value, long epoch, long keptAt) {
    this.value = value;
    this.epoch = epoch;
    this.kept = keptAt & TIME;
  }

  /** The epoch this entry is served in. */
  long epoch() {
    return epoch;
  }

  /**
   * Moves this entry from epoch {@code from} to {@code to} in place, without a write to the cache (a
   * write would restart its expiry): false if it is no longer in {@code from}.
   */
  boolean carry(long from, long to) {
    return EPOCH.compareAndSet(this, from, to);
  }

  /** An entry's weight: its key (two bytes a char at most), its value and {@link NearCacheOptions#ENTRY_OVERHEAD_BYTES}. */
  static int weight(String key, CachedValue value) {
    long w = 2L * key.length() + value.length() + NearCacheOptions.ENTRY_OVERHEAD_BYTES;
    return (int) Math.min(Integer.MAX_VALUE, w);
  }

  /**
   * A hit: true for the one hit that asks this entry's refresh, the first at least {@code after}
   * after it was kept (by {@code clock}, read only then) that is not its first hit. The first hit
   * is only noted: an entry served once while kept is not read again for nobody.
   */
  boolean hitAsksRefresh(Ticker clock, long after) {
    long k = (long) KEPT.getOpaque(this);
    if (k == CLAIMED) {
      return false;
    }
    if ((k & SERVED) == 0) {
      KEPT.compareAndSet(this, k, k | SERVED);
      return false;
    }
    return clock.read() - (k & TIME) >= after && KEPT.compareAndSet(this, k, CLAIMED);
  }
}
