package io.shardwise.core;

import io.shardwise.client.Codecs;

/**
 * Entry point of the plain-Java API.
 *
 * <pre>{@code
 * AsyncCacheClient<Object> cache =
 *     ShardwiseClient.builder()
 *         .backend(MemcachedBackend.create())
 *         .servers("10.0.0.1:11211,10.0.0.2:11211")
 *         .router(RouterSpec.of("ketama").withKetamaCompatibility("spymemcached"))
 *         .build();
 * cache.set("user:42", profile, Duration.ofMinutes(5)).join();
 * }</pre>
 */
public final class ShardwiseClient {

  private ShardwiseClient() {}

  /** A builder with the spymemcached-compatible codec; change it with {@code codec(...)}. */
  public static ClientBuilder<Object> builder() {
    return new ClientBuilder<>(Codecs.spymemcached());
  }
}
