package io.shardwise.spring.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.spring.dockercompose.ShardwiseDockerComposeConnectionDetailsFactory;
import java.lang.reflect.Proxy;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetailsFactory;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * What can be checked without a Docker engine: Boot finds the factories (these two and the Docker
 * Compose ones) where it looks for connection details factories, and a container's host and mapped
 * port (or, on the host's network, its own port) make a server entry.
 */
class ShardwiseContainerConnectionDetailsFactoryTest {

  @Test
  void bootLoadsEveryServiceConnectionFactoryFromSpringFactories() {
    @SuppressWarnings("rawtypes")
    List<ConnectionDetailsFactory> factories =
        SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
            .load(ConnectionDetailsFactory.class);
    assertThat(factories)
        .hasAtLeastOneElementOfType(ShardwiseContainerConnectionDetailsFactory.Memcached.class)
        .hasAtLeastOneElementOfType(ShardwiseContainerConnectionDetailsFactory.Redis.class)
        .hasAtLeastOneElementOfType(ShardwiseDockerComposeConnectionDetailsFactory.Memcached.class)
        .hasAtLeastOneElementOfType(ShardwiseDockerComposeConnectionDetailsFactory.Redis.class);
  }

  @Test
  void aContainersHostAndMappedPortAreItsServerEntryWithIpv6InBrackets() {
    assertThat(
            ShardwiseContainerConnectionDetailsFactory.server(container("localhost", 32768), 11211))
        .isEqualTo("localhost:32768");
    assertThat(ShardwiseContainerConnectionDetailsFactory.server(container("::1", 40000), 6379))
        .isEqualTo("[::1]:40000");
  }

  @Test
  void aContainerOnTheHostNetworkIsItsHostAndTheServersOwnPort() {
    assertThat(ShardwiseContainerConnectionDetailsFactory.server(onHostNetwork(), 11211))
        .isEqualTo("localhost:11211");
    assertThat(ShardwiseContainerConnectionDetailsFactory.server(onHostNetwork(), 6379))
        .isEqualTo("localhost:6379");
  }

  /** A container definition on the host's network; defining it does not contact an engine. */
  private static HostNetworkContainer onHostNetwork() {
    return new HostNetworkContainer();
  }

  private static final class HostNetworkContainer extends GenericContainer<HostNetworkContainer> {
    HostNetworkContainer() {
      super(DockerImageName.parse("memcached:1.6"));
      withNetworkMode("host");
    }

    @Override
    public String getHost() {
      return "localhost";
    }
  }

  /** A container that only answers getHost and getMappedPort (11211 and 6379). */
  private static Container<?> container(String host, int mapped) {
    return (Container<?>)
        Proxy.newProxyInstance(
            Container.class.getClassLoader(),
            new Class<?>[] {Container.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getHost" -> host;
                  case "getMappedPort" -> mapped;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }
}
