package io.shardwise.it.failure;

import io.shardwise.redis.RedisBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisFailureIT extends FailureInjection {

  /** Persistent: a killed server restarts with its data, the failback hazard as it happens. */
  @RegisterExtension
  static final ServerFleet<RedisServer> FLEET = ServerFleet.redisBuilder().servers(5).persistent().build();

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

  @Override
  void restartHolding(ServerHandle server, Map<String, String> old) {
    server.restart(); // reloads its append-only file: it still holds what it held
  }

  @Override
  String rawGet(ServerHandle server, String key) {
    byte[] v = ((RedisServer) server).get(key);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }
}
