package io.shardwise.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.MutablePropertySources;
import org.springframework.core.env.PropertySource;

/**
 * A Spring Cloud refresh of {@code shardwise.servers} reaches the running client's {@code
 * updateServers}; nothing listens on the servers, and the client's {@code updateServers} is
 * recorded (see {@link Recorder}).
 */
class ServersRefreshTest {

  private static final String SERVERS = "127.0.0.1:1,127.0.0.1:2";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ShardwiseAutoConfiguration.class,
                  ShardwiseHealthAutoConfiguration.class,
                  ShardwiseMetricsAutoConfiguration.class))
          .withUserConfiguration(RecordUpdates.class)
          .withPropertyValues("shardwise.backend=memcached", "shardwise.connect-wait=0");

  private static void refresh(AssertableApplicationContext context, Map<String, Object> changed) {
    context
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("refresh-" + System.nanoTime(), changed));
    context.publishEvent(new EnvironmentChangeEvent(context, changed.keySet()));
  }

  private static Recorder recorder(AssertableApplicationContext context) {
    return (Recorder) Proxy.getInvocationHandler(context.getBean(AsyncCacheClient.class));
  }

  @Test
  void aRefreshedServerListMovesTheClientWithoutRecreatingIt() {
    runner
        .withPropertyValues("shardwise.servers=" + SERVERS)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AsyncCacheClient<?> client = context.getBean(AsyncCacheClient.class);
              Recorder recorder = recorder(context);

              refresh(context, Map.of("shardwise.servers", SERVERS + ",127.0.0.1:3"));
              assertThat(recorder.calls)
                  .containsExactly(ServerList.parse(SERVERS + ",127.0.0.1:3"));
              assertThat(context.getBean(AsyncCacheClient.class)).isSameAs(client);

              refresh(context, Map.of("shardwise.timeout", "2s")); // not the servers
              refresh(context, Map.of("shardwise.servers", "127.0.0.1:3,127.0.0.1:3")); // twice
              refresh(context, Map.of("shardwise.servers", "127.0.0.1:")); // does not parse
              context.publishEvent(new ApplicationEvent(context) {
                private static final long serialVersionUID = 1L;
              });
              assertThat(recorder.calls).as("bad lists are refused").hasSize(1);
              assertThat(client.nodes()).hasSize(3);
            });
  }

  @Test
  void aRefreshedYamlListIsAppliedToo() {
    runner
        .withPropertyValues("shardwise.servers[0]=127.0.0.1:1", "shardwise.servers[1]=127.0.0.1:2")
        .run(
            context -> {
              refresh(
                  context,
                  Map.of(
                      "shardwise.servers[0]", "127.0.0.1:1",
                      "shardwise.servers[1]", "127.0.0.1:2",
                      "shardwise.servers[2]", "127.0.0.1:4"));
              AsyncCacheClient<?> client = context.getBean(AsyncCacheClient.class);
              assertThat(client.nodes())
                  .containsExactly(
                      Node.of("127.0.0.1", 1), Node.of("127.0.0.1", 2), Node.of("127.0.0.1", 4));
              assertThat(recorder(context).calls).hasSize(1);
            });
  }

  @Test
  void withAServersFileARefreshedServersPropertyIsNotApplied(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("servers.txt");
    Files.writeString(file, SERVERS.replace(',', '\n'));
    runner
        .withPropertyValues(
            "shardwise.servers-file=" + file, "shardwise.servers-refresh-interval=1h")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              refresh(context, Map.of("shardwise.servers", "127.0.0.1:9"));
              assertThat(recorder(context).calls).isEmpty();
            });
  }

  /** Wraps the starter's client so that its {@code updateServers} is recorded and applied. */
  @Configuration(proxyBeanMethods = false)
  static class RecordUpdates {
    @Bean
    static BeanPostProcessor recordUpdates() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessAfterInitialization(Object bean, String name) {
          if (!name.equals("shardwiseClient")) {
            return bean;
          }
          return Proxy.newProxyInstance(
              AsyncCacheClient.class.getClassLoader(),
              new Class<?>[] {AsyncCacheClient.class},
              new Recorder((AsyncCacheClient<?>) bean));
        }
      };
    }
  }

  /** The real client, except that {@code updateServers} is recorded and applied to nodes(). */
  static final class Recorder implements InvocationHandler {
    final AsyncCacheClient<?> real;
    final List<List<Node>> calls = new CopyOnWriteArrayList<>();
    final List<Map<String, String>> placements = new CopyOnWriteArrayList<>();
    volatile List<Node> current;

    Recorder(AsyncCacheClient<?> real) {
      this.real = real;
      this.current = real.nodes();
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      switch (method.getName()) {
        case "updateServers":
          @SuppressWarnings("unchecked")
          List<Node> after = (List<Node>) args[0];
          calls.add(after);
          List<Node> before = current;
          current = after;
          return CompletableFuture.completedFuture(
              new TopologyChange(
                  before,
                  after,
                  after.stream().filter(n -> !before.contains(n)).toList(),
                  before.stream().filter(n -> !after.contains(n)).toList(),
                  0.5,
                  Instant.now(),
                  Duration.ZERO));
        case "updatePlacement":
          @SuppressWarnings("unchecked")
          Map<String, String> settings = (Map<String, String>) args[0];
          placements.add(settings);
          return method.invoke(real, args);
        case "nodes":
          return current;
        default:
          try {
            return method.invoke(real, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
      }
    }
  }

  @Test
  void aRefreshedPlacementKeyChangesThePlacementOfTheRunningClient() {
    runner
        .withPropertyValues("shardwise.servers=" + SERVERS, "shardwise.router=hrw")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AsyncCacheClient<?> client = context.getBean(AsyncCacheClient.class);
              Recorder recorder = recorder(context);

              refresh(context, Map.of("shardwise.router", "maglev"));
              assertThat(recorder.placements)
                  .containsExactly(
                      Map.of(
                          "shardwise.router", "maglev",
                          "shardwise.maglev.table-size", "65537",
                          "shardwise.hash-tag", "none",
                          "shardwise.replicas", "1"));
              await(() -> client.topologyStatus().lastChange() != null);
              assertThat(client.topologyStatus().lastChange().placementAfter()).isEqualTo("maglev(M=65537)");

              refresh(context, Map.of("shardwise.hash-tag", "{{")); // refused, logged
              refresh(context, Map.of("shardwise.hash-tag", "{}", "shardwise.servers", SERVERS + ",127.0.0.1:3"));
              assertThat(recorder.placements).hasSize(3);
              assertThat(recorder.placements.get(2))
                  .containsEntry("shardwise.hash-tag", "{}")
                  .containsEntry("shardwise.servers", SERVERS + ",127.0.0.1:3");
              assertThat(recorder.calls).as("the list went with the placement").isEmpty();
              assertThat(context.getBean(AsyncCacheClient.class)).isSameAs(client);

              refresh(context, Map.of("shardwise.hash-tag", "{}", "shardwise.replicas", "2"));
              // Handed over; applied once the change before has settled (10 s by default).
              assertThat(recorder.placements.get(3)).containsEntry("shardwise.replicas", "2");
            });
  }

  @Test
  void aRefreshedBoundedLoadKeyTurnsBoundedLoadsOnAndARemovedOneGoesBackToItsDefault() {
    runner
        .withPropertyValues("shardwise.servers=" + SERVERS, "shardwise.router=hrw", "shardwise.bounded.probe-limit=3")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AsyncCacheClient<?> client = context.getBean(AsyncCacheClient.class);
              Recorder recorder = recorder(context);
              assertThat(client.loadReport().enabled()).isFalse();

              refresh(context, Map.of("shardwise.bounded.enabled", "true", "shardwise.bounded.epsilon", "0.5"));
              assertThat(recorder.placements).hasSize(1);
              assertThat(recorder.placements.get(0))
                  .containsEntry("shardwise.router", "hrw")
                  .containsEntry("shardwise.bounded.enabled", "true")
                  .containsEntry("shardwise.bounded.epsilon", "0.5")
                  .containsEntry("shardwise.bounded.probe-limit", "3")
                  .containsEntry("shardwise.bounded.scope", "hot");
              await(() -> client.loadReport().enabled());

              refresh(context, Map.of("shardwise.bounded.epsilon", "-1")); // refused, logged
              refresh(context, Map.of("shardwise.hash-tag", "{}"));
              assertThat(recorder.placements).hasSize(3);
              assertThat(recorder.placements.get(2)).doesNotContainKey("shardwise.bounded.enabled");
              await(() -> client.topologyStatus().lastChange() != null
                  && client.topologyStatus().lastChange().placementAfter().equals("hrw, hash tag {}"));
              assertThat(client.loadReport().enabled()).isTrue();
            });
  }

  @Test
  void aRefreshedLiveNearCacheKeyGoesToTheClientAloneAndTheStartUpOnlyOnesDoNot() {
    runner
        .withPropertyValues(
            "shardwise.servers=" + SERVERS,
            "shardwise.near-cache.enabled=true",
            "shardwise.near-cache.max-staleness=1s",
            "shardwise.near-cache.hot-threshold=4")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              AsyncCacheClient<?> client = context.getBean(AsyncCacheClient.class);
              Recorder recorder = recorder(context);
              assertThat(client.nearCacheStats().enabled()).isTrue();

              refresh(context, Map.of("shardwise.near-cache.max-staleness", "500")); // Boot: milliseconds
              assertThat(recorder.placements).hasSize(1);
              assertThat(recorder.placements.get(0))
                  .containsOnly(
                      Map.entry("shardwise.near-cache.max-bytes", "64MB"),
                      Map.entry("shardwise.near-cache.max-staleness", "500ms"),
                      Map.entry("shardwise.near-cache.refresh-ahead", "true"),
                      Map.entry("shardwise.near-cache.hot-threshold", "4"));

              refresh(context, Map.of("shardwise.near-cache.refresh-ahead", "false"));
              assertThat(recorder.placements).hasSize(2);
              assertThat(recorder.placements.get(1)).containsEntry("shardwise.near-cache.refresh-ahead", "false");

              refresh(context, Map.of("shardwise.near-cache.admit", "all", "shardwise.near-cache.enabled", "false"));
              assertThat(recorder.placements).as("read at start-up only: a WARN, no call").hasSize(2);
              assertThat(client.nearCacheStats().enabled()).isTrue();
            });
  }

  @Test
  void aStalenessBoundRemovedOnMemcachedKeepsTheOneInForce() {
    String key = "shardwise.near-cache.max-staleness";
    runner
        .withPropertyValues("shardwise.servers=" + SERVERS, "shardwise.near-cache.enabled=true", key + "=2s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Recorder recorder = recorder(context);
              MutablePropertySources sources = context.getEnvironment().getPropertySources();
              for (PropertySource<?> source : sources) {
                if (source instanceof MapPropertySource map && map.containsProperty(key)) {
                  Map<String, Object> without = new HashMap<>(map.getSource());
                  without.remove(key);
                  sources.replace(map.getName(), new MapPropertySource(map.getName(), without));
                }
              }
              assertThat(context.getEnvironment().getProperty(key)).isNull();
              context.publishEvent(new EnvironmentChangeEvent(context, Set.of(key)));
              assertThat(recorder.placements).hasSize(1);
              assertThat(recorder.placements.get(0))
                  .as("memcached has no default to go back to")
                  .doesNotContainKey(key)
                  .containsEntry("shardwise.near-cache.max-bytes", "64MB");
            });
  }

  @Test
  void aNearCacheOnMemcachedWithoutAStalenessBoundDoesNotStart() {
    runner
        .withPropertyValues("shardwise.servers=" + SERVERS, "shardwise.near-cache.enabled=true")
        .run(
            context ->
                assertThat(context)
                    .hasFailed()
                    .getFailure()
                    .rootCause()
                    .hasMessageContaining("shardwise.near-cache.max-staleness: is required with backend memcached when the near cache is enabled"));
  }

  private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean() && System.nanoTime() < end) {
      Thread.sleep(10);
    }
    assertThat(condition.getAsBoolean()).isTrue();
  }

  @Test
  void theListenerKnowsSpringCloudsEventByName() {
    assertThat(ServersRefreshListener.ENVIRONMENT_CHANGE_EVENT)
        .isEqualTo(EnvironmentChangeEvent.class.getName());
  }
}
