package io.shardwise.spring.boot;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.spring.health.LastTopologyChange;
import io.shardwise.spring.health.ShardwiseHealthIndicator;
import java.time.Duration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The {@code shardwise} health indicator ({@link ShardwiseHealthIndicator}), when the application
 * has Spring Boot's health support ({@code spring-boot-health}, part of Actuator) and {@code
 * management.health.shardwise.enabled} is not {@code false}.
 */
@AutoConfiguration(after = ShardwiseAutoConfiguration.class)
@ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
public class ShardwiseHealthAutoConfiguration {

  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(AsyncCacheClient.class)
  @ConditionalOnEnabledHealthIndicator("shardwise")
  static class HealthConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "shardwiseHealthIndicator")
    ShardwiseHealthIndicator shardwiseHealthIndicator(
        AsyncCacheClient<?> client,
        ObjectProvider<ShardwiseSettings> settings,
        ObjectProvider<LastTopologyChange> lastChange) {
      ShardwiseConfig config =
          settings.getIfAvailable() == null ? null : settings.getObject().config().orElse(null);
      Duration timeout = config != null ? config.timeout() : ShardwiseConfig.DEFAULT_TIMEOUT;
      return new ShardwiseHealthIndicator(
          client,
          config != null ? config.backend() : "application's own client",
          timeout.multipliedBy(2).plusMillis(250),
          lastChange.getIfAvailable());
    }
  }
}
