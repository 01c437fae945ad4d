package io.shardwise.spring.boot;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.spring.cache.ShardwiseCacheManager;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.cache.CacheManager;
import org.springframework.cache.interceptor.CacheAspectSupport;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Cache {@link ShardwiseCacheManager} over the client, when caching is enabled
 * ({@code @EnableCaching}), the application has no {@link CacheManager} of its own and {@code
 * shardwise.cache.enabled} is not {@code false}. Runs before Spring Boot's own cache
 * auto-configuration, which then backs off.
 */
@AutoConfiguration(
    after = ShardwiseAutoConfiguration.class,
    beforeName = "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration")
@ConditionalOnClass(CacheManager.class)
@ConditionalOnBean({CacheAspectSupport.class, AsyncCacheClient.class})
@ConditionalOnMissingBean(CacheManager.class)
@ConditionalOnProperty(
    prefix = "shardwise.cache",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
public class ShardwiseCacheAutoConfiguration {

  @Bean
  ShardwiseCacheManager cacheManager(AsyncCacheClient<Object> client, ShardwiseSettings settings) {
    return new ShardwiseCacheManager(client, settings.cache());
  }
}
