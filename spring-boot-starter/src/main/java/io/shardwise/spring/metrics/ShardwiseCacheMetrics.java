package io.shardwise.spring.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import io.shardwise.spring.cache.ShardwiseCache;

/**
 * The standard cache meters of one {@link ShardwiseCache}, the ones Spring Boot binds for Redis and
 * Caffeine caches: {@code cache.gets} ({@code result=hit|miss}), {@code cache.puts} and {@code
 * cache.evictions}, tagged {@code cache} (the cache's name) plus the tags given (the starter adds
 * {@code cache.manager}, the cache manager's bean name, as Boot does). There is no {@code
 * cache.size}: the entries are spread over the servers and no server can count one cache's.
 *
 * <p>The counts are the cache's own ({@link ShardwiseCache#hitCount()} and the others): one get per
 * read of the cache, whatever failover did underneath; {@code cache.evictions} counts {@code evict}
 * calls (entries never leave a Shardwise cache by size). The per-server meters of {@link
 * ShardwiseMetrics} stay as they are.
 */
public final class ShardwiseCacheMetrics extends CacheMeterBinder<ShardwiseCache> {

  public ShardwiseCacheMetrics(ShardwiseCache cache, Iterable<Tag> tags) {
    super(cache, cache.getName(), tags);
  }

  @Override
  protected Long size() {
    return null;
  }

  @Override
  protected long hitCount() {
    ShardwiseCache cache = getCache();
    return cache == null ? 0 : cache.hitCount();
  }

  @Override
  protected Long missCount() {
    ShardwiseCache cache = getCache();
    return cache == null ? 0L : cache.missCount();
  }

  @Override
  protected Long evictionCount() {
    ShardwiseCache cache = getCache();
    return cache == null ? 0L : cache.evictionCount();
  }

  @Override
  protected long putCount() {
    ShardwiseCache cache = getCache();
    return cache == null ? 0 : cache.putCount();
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {}
}
