package io.shardwise.spring.testcontainers;

import io.shardwise.routing.Node;
import io.shardwise.spring.boot.ShardwiseConnectionDetails;
import java.util.List;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionDetailsFactory;
import org.springframework.boot.testcontainers.service.connection.ContainerConnectionSource;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;

/**
 * {@link ShardwiseConnectionDetails} for a {@code @ServiceConnection} memcached or Redis container
 * (Spring Boot's Testcontainers support, {@code spring-boot-testcontainers}): the container's host
 * and mapped port become {@code shardwise.servers}, and its kind {@code shardwise.backend}. A
 * container matches by its image name ({@code memcached:1.6}, {@code redis:7}) or by
 * {@code @ServiceConnection(name = "memcached")}. One container is one server; for a fleet, name
 * the servers in {@code shardwise.servers} instead.
 *
 * <p>Registered in {@code META-INF/spring.factories}; Boot skips it when {@code
 * spring-boot-testcontainers} is absent. Run against real containers by the Boot 3.5 and Boot 4
 * modules' {@code *ServiceConnectionIT} in the Docker slice ({@code scripts/docker-slice.sh}).
 */
public abstract class ShardwiseContainerConnectionDetailsFactory
    extends ContainerConnectionDetailsFactory<Container<?>, ShardwiseConnectionDetails> {

  private static final String HOST_NETWORK = "host";

  private final String backend;
  private final int port;

  ShardwiseContainerConnectionDetailsFactory(String backend, int port) {
    super(backend);
    this.backend = backend;
    this.port = port;
  }

  @Override
  protected ShardwiseConnectionDetails getContainerConnectionDetails(
      ContainerConnectionSource<Container<?>> source) {
    return new Details(source, backend, port);
  }

  /**
   * The server entry of a container: its host and the port mapped to {@code port}. A container on
   * the host's network ({@code withNetworkMode("host")}) has no mapped port (Testcontainers cannot
   * expose one there): its server listens on the host itself, on {@code port}.
   */
  static String server(Container<?> container, int port) {
    if (container instanceof GenericContainer<?> generic
        && HOST_NETWORK.equals(generic.getNetworkMode())) {
      return Node.of(container.getHost(), port).address();
    }
    return Node.of(container.getHost(), container.getMappedPort(port)).address();
  }

  /** memcached containers: port 11211. */
  public static final class Memcached extends ShardwiseContainerConnectionDetailsFactory {
    public Memcached() {
      super("memcached", 11211);
    }
  }

  /** Redis containers: port 6379. */
  public static final class Redis extends ShardwiseContainerConnectionDetailsFactory {
    public Redis() {
      super("redis", 6379);
    }
  }

  private static final class Details extends ContainerConnectionDetails<Container<?>>
      implements ShardwiseConnectionDetails {

    private final String backend;
    private final int port;

    Details(ContainerConnectionSource<Container<?>> source, String backend, int port) {
      super(source);
      this.backend = backend;
      this.port = port;
    }

    @Override
    public String backend() {
      return backend;
    }

    @Override
    public List<String> servers() {
      return List.of(server(getContainer(), port));
    }
  }
}
