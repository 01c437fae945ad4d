package io.shardwise.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.spring.boot.ShardwiseAutoConfiguration;
import io.shardwise.spring.boot.ShardwiseCacheAutoConfiguration;
import io.shardwise.spring.boot.ShardwiseHealthAutoConfiguration;
import io.shardwise.spring.boot.ShardwiseMetricsAutoConfiguration;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;

/** The context opens one connection per server and closes them when it closes. */
@Timeout(60)
class ConnectionLifecycleIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(2);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(2);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ShardwiseAutoConfiguration.class,
                  ShardwiseCacheAutoConfiguration.class,
                  ShardwiseHealthAutoConfiguration.class,
                  ShardwiseMetricsAutoConfiguration.class));

  @Test
  void memcachedConnectionsCloseWithTheContext() {
    IntSupplier connections =
        () -> Integer.parseInt(MEMCACHED.server(0).stats().get("curr_connections"));
    check(
        connections,
        "shardwise.backend=memcached",
        "shardwise.servers=" + String.join(",", MEMCACHED.addresses()));
  }

  @Test
  void redisConnectionsCloseWithTheContext() {
    IntSupplier connections =
        () -> Integer.parseInt(REDIS.server(0).info("clients").get("connected_clients"));
    check(
        connections,
        "shardwise.backend=redis",
        "shardwise.servers=" + String.join(",", REDIS.addresses()));
  }

  private void check(IntSupplier connections, String... properties) {
    int before = connections.getAsInt();
    ConfigurableApplicationContext[] kept = new ConfigurableApplicationContext[1];
    runner
        .withPropertyValues(properties)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AsyncCacheClient<?> client = context.getBean(AsyncCacheClient.class);
              client.pingAll().values().forEach(f -> f.join());
              await(connections, before + 1, "one connection per server while the context runs");
              kept[0] = context;
            });
    // The runner closed the context: the connection is gone.
    assertThat(kept[0].isActive()).isFalse();
    await(connections, before, "no connection left after the context closed");
  }

  private static void await(IntSupplier connections, int expected, String what) {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    int seen;
    while ((seen = connections.getAsInt()) != expected) {
      if (System.nanoTime() > deadline) {
        fail(what + ": expected " + expected + " connections but the server has " + seen);
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
