package io.shardwise.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardwise.client.AsyncCacheClient;
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
 * latency per server; ejections; spills), when the application has a {@link MeterRegistry}.
 */
@AutoConfiguration(
    afterName = {
      "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
      "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"
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

    /** Registers every server's meters once the client exists, before its first request. */
    @Bean
    SmartInitializingSingleton shardwiseMetricsNodes(
        ShardwiseMetrics metrics, ObjectProvider<AsyncCacheClient<?>> clients) {
      return () -> clients.orderedStream().forEach(metrics::watch);
    }
  }
}
