package io.shardwise.spring.it;

import io.shardwise.redis.RedisBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link CacheOutageContract} over three (and four) real Redis servers. */
@Timeout(120)
class RedisCacheOutageIT extends CacheOutageContract {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(3);

  @RegisterExtension static final ServerFleet<RedisServer> FOUR = ServerFleet.redis(4);

  @Override
  ServerFleet<? extends ServerHandle> fleet() {
    return FLEET;
  }

  @Override
  ServerFleet<? extends ServerHandle> fourServers() {
    return FOUR;
  }

  @Override
  Backend newBackend() {
    return RedisBackend.create();
  }

  @Override
  String backendName() {
    return "redis";
  }
}
