package io.shardwise.spring.boot;

import io.shardwise.core.ClientBuilder;

/**
 * A bean of this type changes the client's builder after the {@code shardwise.*} properties have
 * set it up and before the client is built: the way to set what properties cannot hold (a codec
 * instance, a clock, extra listeners). Customizers run in their {@code @Order}; what one sets
 * replaces what the properties set.
 */
@FunctionalInterface
public interface ShardwiseClientBuilderCustomizer {

  /** Changes {@code builder}. */
  void customize(ClientBuilder<Object> builder);
}
