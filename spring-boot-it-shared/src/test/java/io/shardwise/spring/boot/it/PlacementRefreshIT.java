package io.shardwise.spring.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.TopologyChange;
import io.shardwise.spring.boot.ShardwiseAutoConfiguration;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.MapPropertySource;

/**
 * A Spring Cloud refresh of the placement keys moves the starter's running client from
 * spymemcached's default placement (compat array_mod) to ketama over three real memcached
 * servers: the client stays the same bean, its placement changes, the entries written before are
 * still read (the warm-up reads them where they were), and a bad router is refused with the
 * placement in force serving on. The settle phase is off, so that the warm-up starts at once.
 */
@Timeout(60)
class PlacementRefreshIT {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  private static final String SPY_DEFAULT = "spymemcached:array_mod:native_hash";
  private static final List<String> KEYS =
      IntStream.range(0, 600).mapToObj(i -> "placement:" + i).toList();

  /** The application's properties, changed in place by a refresh. */
  private final Map<String, Object> properties = new ConcurrentHashMap<>();

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ShardwiseAutoConfiguration.class))
          .withInitializer(
              context ->
                  context
                      .getEnvironment()
                      .getPropertySources()
                      .addFirst(new MapPropertySource("placement", properties)));

  @Test
  void aRefreshOfTheRouterMovesTheRunningClientToKetamaAndEveryEntryIsStillRead() {
    properties.putAll(
        Map.of(
            "shardwise.backend", "memcached",
            "shardwise.codec", "utf8",
            "shardwise.servers", String.join(",", FLEET.addresses()),
            "shardwise.router", "compat",
            "shardwise.compat.mode", SPY_DEFAULT,
            "shardwise.topology.settle", "0",
            "shardwise.topology.warm-up", "60s"));
    runner.run(
        context -> {
          AsyncCacheClient<Object> client = client(context);
          KEYS.forEach(k -> client.set(k, "v:" + k, Duration.ofMinutes(5)).join());
          Map<String, String> before = new ConcurrentHashMap<>();
          KEYS.forEach(k -> before.put(k, client.nodeFor(k).name()));

          properties.remove("shardwise.compat.mode");
          refresh(context, "shardwise.router", "ketama");
          await("the ketama placement", () -> client.topologyStatus().lastChange() != null);

          TopologyChange change = client.topologyStatus().lastChange();
          assertThat(change.placementBefore()).isEqualTo("compat(" + SPY_DEFAULT + ")");
          assertThat(change.placementAfter()).isEqualTo("ketama(libketama)");
          assertThat(change.movedShare()).isBetween(0.55, 0.78); // 1 - 1/3: unrelated placements
          long moved = KEYS.stream().filter(k -> !client.nodeFor(k).name().equals(before.get(k))).count();
          assertThat(moved).isGreaterThan(KEYS.size() / 2);
          assertThat(context.getBean(AsyncCacheClient.class)).isSameAs(client);
          for (String key : KEYS) {
            assertThat(client.get(key).join()).as(key).isEqualTo("v:" + key);
          }

          refresh(context, "shardwise.router", "fastest"); // refused, logged at WARN
          Thread.sleep(200); // a refused change fails at once; give a wrong one time to show
          assertThat(client.topologyStatus().lastChange()).isSameAs(change);
          assertThat(client.toString()).contains("ketama(libketama)");
          for (String key : KEYS) {
            assertThat(client.get(key).join()).as(key).isEqualTo("v:" + key);
          }
        });
  }

  private void refresh(AssertableApplicationContext context, String key, String value) {
    properties.put(key, value);
    context.publishEvent(new EnvironmentChangeEvent(context, java.util.Set.of(key)));
  }

  @SuppressWarnings("unchecked")
  private static AsyncCacheClient<Object> client(AssertableApplicationContext context) {
    assertThat(context).hasNotFailed();
    return context.getBean(AsyncCacheClient.class);
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
