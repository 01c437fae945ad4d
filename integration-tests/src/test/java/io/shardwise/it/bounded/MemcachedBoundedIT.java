package io.shardwise.it.bounded;

import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import org.junit.jupiter.api.extension.RegisterExtension;

class MemcachedBoundedIT extends BoundedLoads {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(8);

  @Override
  ServerFleet<MemcachedServer> fleet() {
    return FLEET;
  }

  @Override
  Backend newBackend() {
    return MemcachedBackend.create();
  }

  @Override
  String backendName() {
    return "memcached";
  }
}
