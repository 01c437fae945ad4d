package io.shardwise.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.spring.boot.ShardwiseAutoConfiguration;
import io.shardwise.spring.boot.ShardwiseMetricsAutoConfiguration;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code shardwise.bounded.*} reaches the client: with bounded loads on, reads of one hammered key
 * spill off its overloaded server, and the spills are metered ({@code shardwise.redirects}, reason
 * {@code spill}).
 */
@Timeout(60)
class BoundedSpillIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  @Test
  void readsOfAHotKeySpillAndAreMetered() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                ShardwiseAutoConfiguration.class, ShardwiseMetricsAutoConfiguration.class))
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(
            "shardwise.backend=memcached",
            "shardwise.servers=" + String.join(",", FLEET.addresses()),
            "shardwise.timeout=1s",
            "shardwise.bounded.enabled=true",
            "shardwise.bounded.scope=all",
            "shardwise.bounded.epsilon=0.1",
            "shardwise.bounded.probe-limit=2")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              @SuppressWarnings("unchecked")
              AsyncCacheClient<Object> client = context.getBean(AsyncCacheClient.class);
              client.set("hot", "value", Duration.ofMinutes(1)).join();
              for (int i = 0; i < 500; i++) {
                assertThat(client.get("hot").join()).isEqualTo("value");
              }
              MeterRegistry meters = context.getBean(MeterRegistry.class);
              double spills =
                  meters.find("shardwise.redirects").tag("reason", "spill").counters().stream()
                      .mapToDouble(c -> c.count())
                      .sum();
              assertThat(spills).isPositive();
            });
  }
}
