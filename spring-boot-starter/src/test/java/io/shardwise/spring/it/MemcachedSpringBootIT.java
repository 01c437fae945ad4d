package io.shardwise.spring.it;

import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link SpringBootContract} over three real memcached servers. */
@SpringBootTest(classes = LibraryApplication.class)
@ActiveProfiles("memcached")
@Timeout(120)
class MemcachedSpringBootIT extends SpringBootContract {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("shardwise.servers", () -> String.join(",", FLEET.addresses()));
  }

  @Override
  ServerFleet<? extends ServerHandle> fleet() {
    return FLEET;
  }

  @Override
  boolean rawHas(int index, String key) {
    return FLEET.server(index).get(key) != null;
  }

  @Override
  String backend() {
    return "memcached";
  }
}
