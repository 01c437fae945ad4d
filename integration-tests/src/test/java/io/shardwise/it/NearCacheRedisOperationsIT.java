package io.shardwise.it;

import io.shardwise.core.ClientBuilder;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CacheOperationsContract} on Redis with the near cache on every key: the connections then
 * speak RESP3 and have the server track their reads, and every operation must still behave as
 * without them.
 */
class NearCacheRedisOperationsIT extends CacheOperationsContract {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(3);

  @Override
  CacheFleet fleet() {
    return CacheFleet.redis(FLEET);
  }

  @Override
  ClientBuilder<Object> builder(CountingBackend backend) {
    return fleetBuilder(backend).maxValueBytes(MAX_VALUE_BYTES).nearCache(NearCacheOptions.defaults().withHotOnly(false));
  }
}
