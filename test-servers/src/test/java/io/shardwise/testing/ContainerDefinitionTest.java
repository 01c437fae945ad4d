package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.GenericContainer;

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

  @Test
  void containersUseTheHostNetworkAndListenOnLoopbackOnly() {
    GenericContainer<?> redis = ContainerServer.newContainer(spec(ServerKind.REDIS, false), 41234);
    GenericContainer<?> memcached =
        ContainerServer.newContainer(spec(ServerKind.MEMCACHED, false), 41235);

    assertThat(redis.getNetworkMode()).isEqualTo("host");
    assertThat(memcached.getNetworkMode()).isEqualTo("host");
    assertThat(redis.getExposedPorts()).isEmpty();
    assertThat(memcached.getExposedPorts()).isEmpty();
    assertThat(redis.getPortBindings()).isEmpty();
    assertThat(List.of(redis.getCommandParts()))
        .startsWith("redis-server", "--bind", "127.0.0.1", "--port", "41234");
    assertThat(List.of(memcached.getCommandParts()))
        .startsWith("-l", "127.0.0.1", "-p", "41235");
  }

  @Test
  void redisCommandDisablesSnapshotsUnlessPersistent() {
    List<String> plain =
        List.of(ContainerServer.newContainer(spec(ServerKind.REDIS, false), 1).getCommandParts());
    List<String> persistent =
        List.of(ContainerServer.newContainer(spec(ServerKind.REDIS, true), 1).getCommandParts());

    assertThat(plain)
        .startsWith("redis-server", "--bind", "127.0.0.1", "--port", "1", "--dir", "/data")
        .containsSequence("--save", "")
        .containsSequence("--protected-mode", "no")
        .containsSequence("--appendonly", "no");
    assertThat(persistent).containsSequence("--appendonly", "yes", "--appendfsync", "always");
  }

  @Test
  void memcachedContainerPassesOptionsToTheImageEntrypointAndAppendsExtraArgs() {
    GenericContainer<?> container =
        ContainerServer.newContainer(spec(ServerKind.MEMCACHED, false, "-vv"), 40000);

    assertThat(container.getCommandParts())
        .containsExactly(
            "-l", "127.0.0.1", "-p", "40000", "-U", "0", "-t", "2", "-c", "1024", "-m", "64",
            "-vv");
    assertThat(container.getLabels()).containsEntry("io.shardwise.test-servers", "memcached");
  }
}
