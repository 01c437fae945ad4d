package io.shardwise.spring.boot;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeEventListener;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.spring.health.LastTopologyChange;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The Shardwise client from the {@code shardwise.*} properties, unless the application defines an
 * {@link AsyncCacheClient} of its own. Every {@link ClientMetrics} and {@link NodeEventListener}
 * bean is handed to the client; the client is closed, with its connections, when the context
 * closes. A bad property stops the context with every problem listed. The servers come from {@code
 * shardwise.servers}, which a Spring Cloud refresh can change while the client serves ({@link
 * ServersRefreshListener}), or from a watched file or DNS name ({@code shardwise.servers-file},
 * {@code shardwise.servers-dns}). Every {@link ShardwiseClientBuilderCustomizer} bean sees the
 * client's builder last, in order.
 *
 * <p>Spring Boot 3.5.x and 4.x are supported; on an older Boot the context stops with a message
 * saying so ({@link SupportedBootVersion}).
 */
@AutoConfiguration
@EnableConfigurationProperties(ShardwiseProperties.class)
public class ShardwiseAutoConfiguration {

  public ShardwiseAutoConfiguration() {
    SupportedBootVersion.check(SpringBootVersion.getVersion());
  }

  /**
   * Masks Shardwise's credentials in Actuator's endpoints whatever {@code show-values} says (Boot
   * 3.5 and 4 share the interface).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.SanitizingFunction")
  static class SanitizingConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ShardwiseSanitizingFunction shardwiseSanitizingFunction() {
      return new ShardwiseSanitizingFunction();
    }
  }

  /** Used when the application has a client of its own: only the cache keys are read. */
  @Bean
  @ConditionalOnMissingBean(ShardwiseSettings.class)
  ShardwiseSettings shardwiseCacheSettings(Environment environment) {
    return ShardwiseSettings.read(environment, false);
  }

  /** The client, when the application has none. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(AsyncCacheClient.class)
  static class ClientConfiguration {

    /** From the properties; a {@link ShardwiseConnectionDetails} bean names the servers. */
    @Bean
    ShardwiseSettings shardwiseSettings(
        Environment environment, ObjectProvider<ShardwiseConnectionDetails> connection) {
      return ShardwiseSettings.read(environment, true, connection.getIfAvailable());
    }

    @Bean(destroyMethod = "close")
    AsyncCacheClient<Object> shardwiseClient(
        ShardwiseSettings shardwiseSettings,
        ObjectProvider<ClientMetrics> metrics,
        ObjectProvider<NodeEventListener> listeners,
        ObjectProvider<ShardwiseClientBuilderCustomizer> customizers) {
      ShardwiseConfig config = shardwiseSettings.config().orElseThrow();
      List<ClientMetrics> all = metrics.orderedStream().toList();
      return config.build(
          builder -> {
            if (!all.isEmpty()) {
              builder.metrics(all.size() == 1 ? all.get(0) : new CompositeClientMetrics(all));
            }
            listeners.orderedStream().forEach(builder::listener);
            customizers.orderedStream().forEach(c -> c.customize(builder));
          });
    }

    /** The client's last server-list change, for the health indicator. */
    @Bean
    LastTopologyChange shardwiseLastTopologyChange() {
      return new LastTopologyChange();
    }

    /** A refresh of {@code shardwise.servers} (Spring Cloud) moves the client to the new list. */
    @Bean
    ServersRefreshListener shardwiseServersRefresh(
        Environment environment,
        ShardwiseSettings shardwiseSettings,
        ObjectProvider<AsyncCacheClient<?>> shardwiseClient) {
      return new ServersRefreshListener(
          environment, shardwiseSettings.config().orElseThrow(), shardwiseClient::getObject);
    }

    /** The blocking view of the same client; closing the context closes the client once. */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(CacheClient.class)
    CacheClient<Object> shardwiseSyncClient(AsyncCacheClient<Object> shardwiseClient) {
      return shardwiseClient.sync();
    }
  }
}
