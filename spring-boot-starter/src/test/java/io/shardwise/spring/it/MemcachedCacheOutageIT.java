package io.shardwise.spring.it;

import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link CacheOutageContract} over three (and four) real memcached servers. */
@Timeout(120)
class MemcachedCacheOutageIT extends CacheOutageContract {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  @RegisterExtension static final ServerFleet<MemcachedServer> FOUR = ServerFleet.memcached(4);

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
    return MemcachedBackend.create();
  }

  @Override
  String backendName() {
    return "memcached";
  }
}
