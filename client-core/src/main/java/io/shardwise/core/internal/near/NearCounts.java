package io.shardwise.core.internal.near;

import io.shardwise.client.NearCacheStats;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** What a {@link NearCache} did since it was built: one {@link LongAdder} increment per count. */
final class NearCounts {

  final LongAdder hits = new LongAdder();
  final LongAdder misses = new LongAdder();
  final LongAdder evictions = new LongAdder();
  final LongAdder expiries = new LongAdder();
  final LongAdder refreshes = new LongAdder();
  /** Entries dropped, by cause: {@link DropCause}'s order. */
  final LongAdder[] invalidations = adders();
  /** Drop-all events, by cause. */
  final LongAdder[] dropAlls = adders();

  private static LongAdder[] adders() {
    LongAdder[] a = new LongAdder[DropCause.values().length];
    for (int i = 0; i < a.length; i++) {
      a[i] = new LongAdder();
    }
    return a;
  }

  /** The counts, with the cache's {@code entries} now and their {@code bytes} (-1 when bounded by entries). */
  NearCacheStats stats(long entries, long bytes) {
    return new NearCacheStats(
        true,
        hits.sum(),
        misses.sum(),
        evictions.sum(),
        expiries.sum(),
        refreshes.sum(),
        byCause(invalidations),
        byCause(dropAlls),
        entries,
        bytes);
  }

  private static Map<String, Long> byCause(LongAdder[] counts) {
    Map<String, Long> out = new LinkedHashMap<>();
    for (DropCause c : DropCause.values()) {
      out.put(c.tag, counts[c.ordinal()].sum());
    }
    return out;
  }
}
