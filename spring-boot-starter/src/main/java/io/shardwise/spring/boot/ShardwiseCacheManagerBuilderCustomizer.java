package io.shardwise.spring.boot;

import io.shardwise.spring.cache.ShardwiseCacheManager;

/**
 * A bean of this type changes the cache manager's builder before the starter builds it, as Spring
 * Boot's {@code RedisCacheManagerBuilderCustomizer} does for Redis: per-cache settings in code,
 * caches to create at start-up, transaction awareness, a listener of created caches. Customizers
 * run in their {@code @Order}, after the properties have set the builder up.
 */
@FunctionalInterface
public interface ShardwiseCacheManagerBuilderCustomizer {

  /** Changes {@code builder}. */
  void customize(ShardwiseCacheManager.Builder builder);
}
