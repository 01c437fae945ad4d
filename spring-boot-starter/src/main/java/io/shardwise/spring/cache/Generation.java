package io.shardwise.spring.cache;

import io.shardwise.client.AsyncCacheClient;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A cache's namespace generation: a counter on the fleet that is part of every key of the cache, so
 * that advancing it clears the cache at once on memcached, which cannot list keys, and on Redis
 * alike. Entries of older generations are never read again; expiry or eviction reclaims them.
 *
 * <p>The counter is created with the current time in milliseconds, never with 0: if it is lost (its
 * server flushed before readmission, or evicted), the new one starts past every generation used
 * before, so an old generation's entries never come back.
 *
 * <p>The value read is reused for {@code refresh}; a clear by this process is seen at once, a clear
 * by another process within {@code refresh}. A zero refresh reads the counter on every use.
 */
final class Generation {

  private final AsyncCacheClient<Object> client;
  private final String key;
  private final long refreshNanos;
  private final Object lock = new Object();
  private long value;
  private long readAtNanos;
  private boolean known;

  /** Advanced by every clear, so that a read that started before a clear does not undo it. */
  private long clears;

  Generation(AsyncCacheClient<Object> client, String key, Duration refresh) {
    this.client = client;
    this.key = key;
    this.refreshNanos = refresh.toNanos();
  }

  /** The generation counter's key. */
  String key() {
    return key;
  }

  /** The current generation. */
  CompletableFuture<Long> current() {
    long clearsBefore;
    synchronized (lock) {
      if (known && refreshNanos > 0 && System.nanoTime() - readAtNanos < refreshNanos) {
        return CompletableFuture.completedFuture(value);
      }
      clearsBefore = clears;
    }
    long startNanos = System.nanoTime();
    return client
        .incr(key, 0, System.currentTimeMillis(), Duration.ZERO)
        .thenApply(
            v -> {
              synchronized (lock) {
                if (clears == clearsBefore) {
                  value = v;
                  readAtNanos = startNanos;
                  known = true;
                }
              }
              return v;
            });
  }

  /** Moves to a new generation; entries of the older ones are no longer read. */
  CompletableFuture<Long> advance() {
    synchronized (lock) {
      clears++;
      known = false;
    }
    return client
        .incr(key, 1, System.currentTimeMillis(), Duration.ZERO)
        .thenApply(
            v -> {
              synchronized (lock) {
                clears++;
                value = v;
                readAtNanos = System.nanoTime();
                known = true;
              }
              return v;
            });
  }
}
