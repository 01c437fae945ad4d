package io.shardwise.spring.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import io.shardwise.spring.cache.ShardwiseCache;
import java.util.concurrent.TimeUnit;

/**
 * The cache meters of one {@link ShardwiseCache}, with the names and types Spring Boot's {@code
 * RedisCacheMetrics} binds for a Redis cache: {@code cache.gets} ({@code result=hit|miss|pending}),
 * {@code cache.puts}, {@code cache.removals} and {@code cache.lock.duration}, tagged {@code cache}
 * (the cache's name) plus the tags given (the starter adds {@code cache.manager}, the cache
 * manager's bean name, as Boot does).
 *
 * <p>The counts are the cache's own ({@link ShardwiseCache#hitCount()} and the others): one get per
 * call of the cache, whatever failover did underneath. {@code cache.gets{result=pending}} is the
 * number of gets under way, so it goes down as well as up, as Boot's is. {@code cache.removals}
 * counts {@code evict} calls; a clear removes no key and is not counted. {@code
 * cache.lock.duration} is the time blocking {@code get(key, valueLoader)} calls waited for a key's
 * lock in this process. Like Boot's Redis meters there is no {@code cache.evictions} (entries never
 * leave a Shardwise cache by size) and no {@code cache.size} (the entries are spread over the
 * servers and no server can count one cache's). The per-server meters of {@link ShardwiseMetrics}
 * stay as they are.
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

  /** None: a Shardwise cache never evicts an entry by size; {@code evict} calls are removals. */
  @Override
  protected Long evictionCount() {
    return null;
  }

  @Override
  protected long putCount() {
    ShardwiseCache cache = getCache();
    return cache == null ? 0 : cache.putCount();
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
    ShardwiseCache cache = getCache();
    if (cache == null) {
      return;
    }
    FunctionCounter.builder("cache.removals", cache, ShardwiseCache::removalCount)
        .tags(getTagsWithCacheName())
        .description("Cache removals")
        .register(registry);
    FunctionCounter.builder("cache.gets", cache, ShardwiseCache::pendingCount)
        .tags(getTagsWithCacheName())
        .tag("result", "pending")
        .description("The number of pending requests")
        .register(registry);
    TimeGauge.builder(
            "cache.lock.duration",
            cache,
            TimeUnit.NANOSECONDS,
            c -> c.lockWaitTime().toNanos())
        .tags(getTagsWithCacheName())
        .description("The time the cache has spent waiting on a lock")
        .register(registry);
  }
}
