package io.shardwise.client;

import java.util.Map;
import java.util.Objects;

/**
 * What a client's near cache did since the client was built, and what it holds now; all zero when
 * it has none ({@link #OFF}). Counts are sums of per-thread counters, read without stopping the
 * readers: each is exact once the operations it counts are done.
 *
 * @param enabled whether the client has a near cache
 * @param hits gets answered from the near cache
 * @param misses gets the near cache could not answer (then sent to a server)
 * @param evictions entries removed to keep within the bound ({@code max-bytes} or {@code
 *     max-entries})
 * @param expiries entries removed because they reached {@code max-staleness}
 * @param refreshes keys read again from their servers, in the background, for entries served
 *     again in the second half of their life ({@code refresh-ahead})
 * @param invalidations entries dropped, by cause: {@code write} (this client wrote the key),
 *     {@code server} (the server's notice that the key changed: Redis tracking), {@code node} (a
 *     node was ejected, readmitted or retired), {@code change} (a server-list or placement change
 *     came in force), {@code tracking} (a tracked connection was lost or replaced), {@code flush}
 *     (a server flushed its data)
 * @param dropAlls events that dropped every entry, by the same causes but {@code write} and {@code
 *     server}
 * @param entries entries held now (Caffeine's estimate)
 * @param bytes the weight of the entries held now, in bytes; -1 when {@code max-entries} bounds
 *     the near cache, which then does not weigh them
 */
public record NearCacheStats(
    boolean enabled,
    long hits,
    long misses,
    long evictions,
    long expiries,
    long refreshes,
    Map<String, Long> invalidations,
    Map<String, Long> dropAlls,
    long entries,
    long bytes) {

  /** No near cache. */
  public static final NearCacheStats OFF = new NearCacheStats(false, 0, 0, 0, 0, 0, Map.of(), Map.of(), 0, 0);

  public NearCacheStats {
    invalidations = Map.copyOf(Objects.requireNonNull(invalidations, "invalidations"));
    dropAlls = Map.copyOf(Objects.requireNonNull(dropAlls, "dropAlls"));
  }

  /** Entries dropped for {@code cause}; 0 for a cause not seen. */
  public long invalidations(String cause) {
    return invalidations.getOrDefault(cause, 0L);
  }
}
