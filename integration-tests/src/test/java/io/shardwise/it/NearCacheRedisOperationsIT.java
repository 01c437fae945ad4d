package io.shardwise.it;

import io.shardwise.core.ClientBuilder;
import io.shardwise.core.NearCacheOptions;

/**
 * {@link RedisOperationsIT} with the near cache on every key: the connections then speak RESP3 and
 * have the server track their reads, and every operation must still behave as without them.
 */
class NearCacheRedisOperationsIT extends RedisOperationsIT {

  @Override
  ClientBuilder<Object> builder(CountingBackend backend) {
    return super.builder(backend).nearCache(NearCacheOptions.defaults().withHotOnly(false));
  }
}
