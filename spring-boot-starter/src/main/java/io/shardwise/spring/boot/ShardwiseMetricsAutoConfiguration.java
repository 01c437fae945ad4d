package io.shardwise.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.spring.metrics.ShardwiseCacheMetrics;
import io.shardwise.spring.metrics.ShardwiseMetrics;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Micrometer meters of the client ({@link ShardwiseMetrics}: requests, hits, misses, errors and
 * latency per server; ejections; spills), and the standard cache meters of every Shardwise cache
 * ({@link ShardwiseCacheMetrics}), when the application has a {@link MeterRegistry}.
 */
@AutoConfiguration(
    // After the registry exists: Boot 4 names, then Boot 3.5 names (metrics moved package in Boot
    // 4).
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration"
    })
@ConditionalOnClass(name = "io.micrometer.core.instrument.MeterRegistry")
public class ShardwiseMetricsAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(MeterRegistry.class)
  static class MetersConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ShardwiseMetrics shardwiseMetrics(MeterRegistry registry) {
      return new ShardwiseMetrics(registry);
    }

    /**
     * Boot's standard cache meters for every Shardwise cache, bound when the cache is created
     * (unless {@code shardwise.cache.enable-statistics=false}), tagged as Boot tags them: {@code
     * cache} and {@code cache.manager} (the cache manager's bean name).
     */
    @Bean
    @ConditionalOnClass(name = "org.springframework.cache.CacheManager")
    ShardwiseCacheManagerBuilderCustomizer shardwiseCacheMeters(MeterRegistry registry) {
      return builder -> {
        if (builder.settings().statistics()) {
          builder.onCacheCreated(
              cache ->
                  new ShardwiseCacheMetrics(cache, Tags.of("cache.manager", "cacheManager"))
                      .bindTo(registry));
        }
      };
    }

    /** Registers every server's meters once the client exists, before its first request. */
    @Bean
    SmartInitializingSingleton shardwiseMetricsNodes(
        ShardwiseMetrics metrics, ObjectProvider<AsyncCacheClient<?>> clients) {
      return () -> clients.orderedStream().forEach(metrics::watch);
    }
  }
}
