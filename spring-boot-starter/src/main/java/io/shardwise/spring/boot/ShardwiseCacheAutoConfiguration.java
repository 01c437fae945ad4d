package io.shardwise.spring.boot;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.spring.cache.ShardwiseCacheErrorHandler;
import io.shardwise.spring.cache.ShardwiseCacheManager;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.CachingConfigurer;
import org.springframework.cache.interceptor.CacheAspectSupport;
import org.springframework.cache.interceptor.CacheErrorHandler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * A Spring Cache {@link ShardwiseCacheManager} over the client, when caching is enabled
 * ({@code @EnableCaching}), the application has no {@link CacheManager} of its own, {@code
 * shardwise.cache.enabled} is not {@code false} and {@code spring.cache.type} is not set (with
 * {@code none}, or another type, Spring Boot's own cache auto-configuration decides: no caching, or
 * its cache). Runs before Spring Boot's cache auto-configuration, which then backs off.
 *
 * <p>The caches named by {@code spring.cache.cache-names} are created at start-up; others are still
 * created when first named. Boot's {@code spring.cache.redis.*} keys configure only Boot's Redis
 * cache manager: when set, one warning at start-up names each of them and the {@code
 * shardwise.cache.*} key to set instead. Every {@link ShardwiseCacheManagerBuilderCustomizer} bean sees the
 * builder before it builds. With {@code shardwise.cache.failures-as-misses=true}, a {@link
 * ShardwiseCacheErrorHandler} handles cache failures.
 */
@AutoConfiguration(
    after = ShardwiseAutoConfiguration.class,
    beforeName = {
      "org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration", // Boot 4
      "org.springframework.boot.autoconfigure.cache.CacheAutoConfiguration" // Boot 3.5
    })
@ConditionalOnClass(CacheManager.class)
@ConditionalOnBean({CacheAspectSupport.class, AsyncCacheClient.class})
@ConditionalOnMissingBean(CacheManager.class)
@ConditionalOnProperty(
    prefix = "shardwise.cache",
    name = "enabled",
    havingValue = "true",
    matchIfMissing = true)
@Conditional(ShardwiseCacheAutoConfiguration.NoBootCacheType.class)
public class ShardwiseCacheAutoConfiguration {

  private static final Logger LOG = LoggerFactory.getLogger(ShardwiseCacheAutoConfiguration.class);

  @Bean
  ShardwiseCacheManager cacheManager(
      AsyncCacheClient<Object> client,
      ShardwiseSettings settings,
      Environment environment,
      ObjectProvider<ShardwiseCacheManagerBuilderCustomizer> customizers) {
    BootRedisCacheKeys.warning(environment).ifPresent(LOG::warn);
    ShardwiseCacheManager.Builder builder = ShardwiseCacheManager.builder(client, settings.cache());
    builder.initialCacheNames(
        Binder.get(environment)
            .bind("spring.cache.cache-names", Bindable.listOf(String.class))
            .orElse(List.of()));
    customizers.orderedStream().forEach(c -> c.customize(builder));
    return builder.build();
  }

  /** {@code shardwise.cache.failures-as-misses=true}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnProperty(
      prefix = "shardwise.cache",
      name = "failures-as-misses",
      havingValue = "true")
  static class FailuresAsMissesConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ShardwiseCacheErrorHandler shardwiseCacheErrorHandler() {
      return new ShardwiseCacheErrorHandler();
    }

    @Bean
    @ConditionalOnMissingBean(CachingConfigurer.class)
    CachingConfigurer shardwiseCachingConfigurer(ShardwiseCacheErrorHandler handler) {
      return new CachingConfigurer() {
        @Override
        public CacheErrorHandler errorHandler() {
          return handler;
        }
      };
    }

    /**
     * Stops the start-up when an application's own {@code CachingConfigurer} left another error
     * handler in place: the property would otherwise be silently ignored.
     */
    @Bean
    SmartInitializingSingleton shardwiseCacheErrorHandlerCheck(ListableBeanFactory beans) {
      return () -> {
        for (CacheAspectSupport aspect : beans.getBeansOfType(CacheAspectSupport.class).values()) {
          CacheErrorHandler handler = aspect.getErrorHandler();
          if (!(handler instanceof ShardwiseCacheErrorHandler)) {
            throw new IllegalStateException(
                "shardwise.cache.failures-as-misses=true, but the application's CachingConfigurer"
                    + " sets the cache error handler "
                    + handler.getClass().getName()
                    + "; return the ShardwiseCacheErrorHandler bean from its errorHandler(), or"
                    + " set the property to false");
          }
        }
      };
    }
  }

  /** Matches unless {@code spring.cache.type} is set: then Boot's own choice applies. */
  static final class NoBootCacheType extends SpringBootCondition {
    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      String type = context.getEnvironment().getProperty("spring.cache.type");
      return type == null || type.isBlank()
          ? ConditionOutcome.match("spring.cache.type is not set")
          : ConditionOutcome.noMatch(
              "spring.cache.type=" + type + ": Spring Boot's cache auto-configuration decides");
    }
  }
}
