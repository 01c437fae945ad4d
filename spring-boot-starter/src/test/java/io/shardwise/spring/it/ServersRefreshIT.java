package io.shardwise.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.routing.Node;
import io.shardwise.spring.boot.ShardwiseAutoConfiguration;
import io.shardwise.spring.boot.ShardwiseHealthAutoConfiguration;
import io.shardwise.spring.boot.ShardwiseMetricsAutoConfiguration;
import io.shardwise.spring.health.ShardwiseHealthIndicator;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.MapPropertySource;

/**
 * The starter's client moves to a third real memcached server when {@code shardwise.servers} is
 * refreshed or its servers file changes, and serves keys from it; meters and health say so. The
 * settle phase is off ({@code shardwise.topology.settle=0}), so that writes of the keys that moved
 * go to the new server at once.
 */
@Timeout(60)
class ServersRefreshIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ShardwiseAutoConfiguration.class,
                  ShardwiseHealthAutoConfiguration.class,
                  ShardwiseMetricsAutoConfiguration.class))
          .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
          .withPropertyValues(
              "shardwise.backend=memcached", "shardwise.codec=utf8", "shardwise.topology.settle=0");

  private static String servers(int count) {
    return String.join(",", FLEET.addresses().subList(0, count));
  }

  @Test
  void aRefreshedServersPropertyAddsAServerThatThenServesKeys() {
    runner
        .withPropertyValues("shardwise.servers=" + servers(2))
        .run(
            context -> {
              AsyncCacheClient<Object> client = client(context);
              context
                  .getEnvironment()
                  .getPropertySources()
                  .addFirst(
                      new MapPropertySource("refresh", Map.of("shardwise.servers", servers(3))));
              context.publishEvent(
                  new EnvironmentChangeEvent(context, java.util.Set.of("shardwise.servers")));
              await("three servers", () -> client.nodes().size() == 3);
              checkThirdServerServes(context, client);
            });
  }

  @Test
  void aChangedServersFileAddsAServer(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("servers.txt");
    Files.writeString(file, servers(2).replace(',', '\n'));
    runner
        .withPropertyValues(
            "shardwise.servers-file=" + file, "shardwise.servers-refresh-interval=50ms")
        .run(
            context -> {
              AsyncCacheClient<Object> client = client(context);
              Files.writeString(file, servers(3).replace(',', '\n'));
              await("three servers", () -> client.nodes().size() == 3);
              checkThirdServerServes(context, client);
            });
  }

  @SuppressWarnings("unchecked")
  private static AsyncCacheClient<Object> client(AssertableApplicationContext context) {
    assertThat(context).hasNotFailed();
    return context.getBean(AsyncCacheClient.class);
  }

  private static void checkThirdServerServes(
      AssertableApplicationContext context, AsyncCacheClient<Object> client) {
    Node third = client.nodes().get(2);
    assertThat(third.address()).isEqualTo(FLEET.server(2).address());
    List<String> keys =
        java.util.stream.IntStream.range(0, 300)
            .mapToObj(i -> "refresh:" + i)
            .filter(k -> client.nodeFor(k).equals(third))
            .toList();
    assertThat(keys).isNotEmpty();
    assertThat(client.topologyStatus().phase()).isEqualTo(io.shardwise.client.TopologyStatus.Phase.WARMING);
    keys.forEach(k -> client.set(k, "v", Duration.ofMinutes(1)).join());
    keys.forEach(k -> assertThat(FLEET.server(2).get(k)).as(k).isNotNull());

    MeterRegistry registry = context.getBean(MeterRegistry.class);
    assertThat(registry.get("shardwise.topology.changes").counter().count()).isGreaterThan(0);
    assertThat(registry.get("shardwise.servers").gauge().value()).isEqualTo(3);
    Map<String, Object> details =
        context.getBean(ShardwiseHealthIndicator.class).health().getDetails();
    assertThat(details.get("serverList")).isEqualTo(servers(3));
    assertThat(details).containsKey("lastTopologyChange");
    assertThat(details.get("topology")).asString().contains("phase=warming");
  }

  private static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 20 s: " + what);
      }
      Thread.sleep(20);
    }
  }
}
