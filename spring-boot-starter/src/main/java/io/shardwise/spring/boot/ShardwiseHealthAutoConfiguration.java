package io.shardwise.spring.boot;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.spring.health.Boot3HealthIndicator;
import io.shardwise.spring.health.LastTopologyChange;
import io.shardwise.spring.health.ShardwiseHealthCheck;
import io.shardwise.spring.health.ShardwiseHealthIndicator;
import java.time.Duration;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/**
 * The {@code shardwise} health indicator, when the application has Actuator's health support
 * (Spring Boot 4's {@code spring-boot-health}, or Boot 3.5's {@code spring-boot-actuator}) and
 * {@code management.health.shardwise.enabled} (else {@code management.health.defaults.enabled}) is
 * not {@code false}: {@link ShardwiseHealthIndicator} on Boot 4, {@link Boot3HealthIndicator} on
 * Boot 3.5, both showing what {@link ShardwiseHealthCheck} reports.
 */
@AutoConfiguration(after = ShardwiseAutoConfiguration.class)
public class ShardwiseHealthAutoConfiguration {

  /** The check both indicators show. */
  @Bean
  @ConditionalOnBean(AsyncCacheClient.class)
  @Conditional(OnShardwiseHealthEnabled.class)
  @ConditionalOnMissingBean
  static ShardwiseHealthCheck shardwiseHealthCheck(
      AsyncCacheClient<?> client,
      ObjectProvider<ShardwiseSettings> settings,
      ObjectProvider<LastTopologyChange> lastChange) {
    ShardwiseConfig config =
        settings.getIfAvailable() == null ? null : settings.getObject().config().orElse(null);
    Duration timeout = config != null ? config.timeout() : ShardwiseConfig.DEFAULT_TIMEOUT;
    return new ShardwiseHealthCheck(
        client,
        config != null ? config.backend() : "application's own client",
        timeout.multipliedBy(2).plusMillis(250),
        lastChange.getIfAvailable());
  }

  /** Spring Boot 4. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnBean(AsyncCacheClient.class)
  @Conditional(OnShardwiseHealthEnabled.class)
  static class Boot4Configuration {

    @Bean
    @ConditionalOnMissingBean(name = "shardwiseHealthIndicator")
    ShardwiseHealthIndicator shardwiseHealthIndicator(ShardwiseHealthCheck check) {
      return new ShardwiseHealthIndicator(check);
    }
  }

  /** Spring Boot 3.5: Actuator's health classes in their Boot 3 package. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = Boot3HealthIndicator.INDICATOR)
  @ConditionalOnMissingClass("org.springframework.boot.health.contributor.HealthIndicator")
  @ConditionalOnBean(AsyncCacheClient.class)
  @Conditional(OnShardwiseHealthEnabled.class)
  @Import(Boot3IndicatorRegistrar.class)
  static class Boot3Configuration {}

  /**
   * Registers the Boot 3.5 indicator with Boot 3.5's {@code HealthIndicator} as its bean type, so
   * that Actuator finds it by type before it is created (a {@code @Bean} method could only declare
   * {@code Object}).
   */
  static final class Boot3IndicatorRegistrar
      implements ImportBeanDefinitionRegistrar, BeanClassLoaderAware {

    private ClassLoader classLoader = Boot3HealthIndicator.class.getClassLoader();

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
      this.classLoader = classLoader;
    }

    @Override
    @SuppressWarnings({"rawtypes", "unchecked"})
    public void registerBeanDefinitions(
        AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
      if (registry.containsBeanDefinition("shardwiseHealthIndicator")
          || !(registry instanceof BeanFactory)) {
        return;
      }
      BeanFactory beans = (BeanFactory) registry;
      Class type;
      try {
        type = Class.forName(Boot3HealthIndicator.INDICATOR, false, classLoader);
      } catch (ClassNotFoundException e) {
        return;
      }
      ClassLoader loader = classLoader;
      RootBeanDefinition definition =
          new RootBeanDefinition(
              type,
              () -> Boot3HealthIndicator.create(beans.getBean(ShardwiseHealthCheck.class), loader));
      registry.registerBeanDefinition("shardwiseHealthIndicator", definition);
    }
  }
}
