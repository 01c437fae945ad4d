package io.shardwise.spring.it;

import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@link SpringBootContract} over three real Redis servers. */
@SpringBootTest(classes = LibraryApplication.class)
@ActiveProfiles("redis")
@Timeout(120)
class RedisSpringBootIT extends SpringBootContract {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(3);

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
    return "redis";
  }
}
