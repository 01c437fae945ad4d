package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.HostConfig;
import com.github.dockerjava.api.model.Ports;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.core.CreateContainerCmdModifier;

/** Docker mode's container definitions, checked without a Docker engine. */
class ContainerDefinitionTest {

  private static ServerSpec spec(ServerKind kind, boolean persistent, String... extraArgs) {
    return new ServerSpec(
        kind,
        persistent,
        64,
        List.of(extraArgs),
        Duration.ofSeconds(20),
        Duration.ofSeconds(2),
        null,
        null);
  }

  /** Applies the container's create-command modifiers to a command holding {@code hostConfig}. */
  private static void applyModifiers(GenericContainer<?> container, HostConfig hostConfig) {
    CreateContainerCmd cmd =
        (CreateContainerCmd)
            Proxy.newProxyInstance(
                CreateContainerCmd.class.getClassLoader(),
                new Class<?>[] {CreateContainerCmd.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("getHostConfig")) {
                    return hostConfig;
                  }
                  return method.getReturnType().isInstance(proxy) ? proxy : null;
                });
    for (CreateContainerCmdModifier modifier : container.getCreateContainerCmdModifiers()) {
      cmd = modifier.modify(cmd);
    }
  }

  @Test
  void redisContainerPublishesItsPortOnAFixedLoopbackHostPort() {
    GenericContainer<?> container =
        ContainerServer.newContainer(spec(ServerKind.REDIS, false), 41234);
    HostConfig hostConfig = HostConfig.newHostConfig();

    applyModifiers(container, hostConfig);

    assertThat(container.getExposedPorts()).containsExactly(6379);
    Map<ExposedPort, Ports.Binding[]> bindings = hostConfig.getPortBindings().getBindings();
    assertThat(bindings).containsOnlyKeys(ExposedPort.tcp(6379));
    assertThat(bindings.get(ExposedPort.tcp(6379)))
        .containsExactly(Ports.Binding.bindIpAndPort("127.0.0.1", 41234));
  }

  @Test
  void redisCommandDisablesSnapshotsUnlessPersistent() {
    List<String> plain =
        List.of(ContainerServer.newContainer(spec(ServerKind.REDIS, false), 1).getCommandParts());
    List<String> persistent =
        List.of(ContainerServer.newContainer(spec(ServerKind.REDIS, true), 1).getCommandParts());

    assertThat(plain)
        .startsWith("redis-server", "--port", "6379", "--dir", "/data")
        .containsSequence("--save", "")
        .containsSequence("--protected-mode", "no")
        .containsSequence("--appendonly", "no");
    assertThat(persistent).containsSequence("--appendonly", "yes", "--appendfsync", "always");
  }

  @Test
  void memcachedContainerPassesOptionsToTheImageEntrypointAndAppendsExtraArgs() {
    GenericContainer<?> container =
        ContainerServer.newContainer(spec(ServerKind.MEMCACHED, false, "-vv"), 40000);

    assertThat(container.getExposedPorts()).containsExactly(11211);
    assertThat(container.getCommandParts())
        .containsExactly("-p", "11211", "-U", "0", "-t", "2", "-c", "1024", "-m", "64", "-vv");
    assertThat(container.getLabels()).containsEntry("io.shardwise.test-servers", "memcached");
  }
}
