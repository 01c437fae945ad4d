package io.shardwise.spring.dockercompose;

import io.shardwise.routing.Node;
import io.shardwise.spring.boot.ShardwiseConnectionDetails;
import java.util.List;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionDetailsFactory;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;

/**
 * {@link ShardwiseConnectionDetails} for a memcached or Redis service of the application's
 * {@code compose.yaml} (Spring Boot's Docker Compose support, {@code spring-boot-docker-compose}):
 * the service's host and the port published for 11211 or 6379 become {@code shardwise.servers},
 * and its kind {@code shardwise.backend}. A service matches as with Boot's own factories: by its
 * image ({@code memcached} or {@code bitnami/memcached}; {@code redis}, {@code redis/redis-stack},
 * {@code redis/redis-stack-server} or {@code bitnami/redis}, any tag) or by the label {@code
 * org.springframework.boot.service-connection} naming one of those. One service is one server; for
 * a fleet, name the servers in {@code shardwise.servers} instead.
 *
 * <p>Registered in {@code META-INF/spring.factories}; Boot skips it when {@code
 * spring-boot-docker-compose} is absent.
 */
public abstract class ShardwiseDockerComposeConnectionDetailsFactory
    extends DockerComposeConnectionDetailsFactory<ShardwiseConnectionDetails> {

  private final String backend;
  private final int port;

  ShardwiseDockerComposeConnectionDetailsFactory(String backend, int port, String... images) {
    super(images);
    this.backend = backend;
    this.port = port;
  }

  @Override
  protected ShardwiseConnectionDetails getDockerComposeConnectionDetails(DockerComposeConnectionSource source) {
    return new Details(source.getRunningService(), backend, port);
  }

  /**
   * The server entry of a service: its host and the port published for {@code port} (an IPv6
   * host in brackets). Fails, naming the service, when the service publishes no such port.
   */
  static String server(RunningService service, int port) {
    int published;
    try {
      published = service.ports().get(port);
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "docker compose service '"
              + service.name()
              + "' ("
              + service.image()
              + ") does not publish port "
              + port
              + ", so Shardwise cannot reach it; add \""
              + port
              + "\" to its ports",
          e);
    }
    return Node.of(service.host(), published).address();
  }

  /** memcached services: port 11211. */
  public static final class Memcached extends ShardwiseDockerComposeConnectionDetailsFactory {
    public Memcached() {
      super("memcached", 11211, "memcached", "bitnami/memcached");
    }
  }

  /** Redis services: port 6379. */
  public static final class Redis extends ShardwiseDockerComposeConnectionDetailsFactory {
    public Redis() {
      super("redis", 6379, "redis", "redis/redis-stack", "redis/redis-stack-server", "bitnami/redis");
    }
  }

  private static final class Details extends DockerComposeConnectionDetails
      implements ShardwiseConnectionDetails {

    private final String backend;
    private final List<String> servers;

    Details(RunningService service, String backend, int port) {
      super(service);
      this.backend = backend;
      this.servers = List.of(server(service, port));
    }

    @Override
    public String backend() {
      return backend;
    }

    @Override
    public List<String> servers() {
      return servers;
    }
  }
}
