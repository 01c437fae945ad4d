package io.shardwise.spring.cache;

import io.shardwise.client.AsyncCacheClient;
import java.util.Collection;
import java.util.Collections;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.springframework.cache.CacheManager;

/**
 * Spring's {@link CacheManager} over a Shardwise client: {@code @Cacheable}, {@code @CachePut} and
 * {@code @CacheEvict} work over the sharded fleet, on memcached and Redis. A cache is created the
 * first time it is named, with its settings from {@code shardwise.cache.caches.<name>.*} or the
 * defaults of {@code shardwise.cache.*}; the caches that have settings of their own are created at
 * once.
 */
public class ShardwiseCacheManager implements CacheManager {

  private final AsyncCacheClient<Object> client;
  private final CacheSettings settings;
  private final ConcurrentMap<String, ShardwiseCache> caches = new ConcurrentHashMap<>();

  public ShardwiseCacheManager(AsyncCacheClient<Object> client, CacheSettings settings) {
    this.client = Objects.requireNonNull(client, "client");
    this.settings = Objects.requireNonNull(settings, "settings");
    settings.caches().keySet().forEach(this::getCache);
  }

  @Override
  public ShardwiseCache getCache(String name) {
    return caches.computeIfAbsent(
        name,
        n -> new ShardwiseCache(n, client, settings.forCache(n), settings.generationRefresh()));
  }

  @Override
  public Collection<String> getCacheNames() {
    return Collections.unmodifiableSet(caches.keySet());
  }

  /** The settings the caches are created with. */
  public CacheSettings settings() {
    return settings;
  }
}
