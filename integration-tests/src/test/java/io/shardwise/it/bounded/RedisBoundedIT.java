package io.shardwise.it.bounded;

import io.shardwise.redis.RedisBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisBoundedIT extends BoundedLoads {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(8);

  @Override
  ServerFleet<RedisServer> fleet() {
    return FLEET;
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
