package io.shardwise.spring.dockercompose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.spring.boot.ShardwiseConnectionDetails;
import java.lang.reflect.Constructor;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.docker.compose.core.ConnectionPorts;
import org.springframework.boot.docker.compose.core.ImageReference;
import org.springframework.boot.docker.compose.core.RunningService;
import org.springframework.boot.docker.compose.service.connection.DockerComposeConnectionSource;
import org.springframework.core.env.StandardEnvironment;

/**
 * What can be checked without a Docker engine: a service is matched by its image name or Boot's
 * service-connection label as Boot's own factories match theirs, and its host and published port
 * make the server entry. The running services are fakes of Boot's {@link RunningService}; no
 * container is started (this machine and CI have no Docker engine). That Boot finds the factories
 * is checked with the Testcontainers ones ({@code ShardwiseContainerConnectionDetailsFactoryTest}).
 */
class ShardwiseDockerComposeConnectionDetailsFactoryTest {

  @Test
  void aMemcachedServiceBecomesOneMemcachedServer() throws Exception {
    RunningService service = service("cache", "memcached:1.6", "127.0.0.1", Map.of(11211, 32768), Map.of());
    ShardwiseConnectionDetails details =
        new ShardwiseDockerComposeConnectionDetailsFactory.Memcached().getConnectionDetails(source(service));
    assertThat(details.backend()).isEqualTo("memcached");
    assertThat(details.servers()).containsExactly("127.0.0.1:32768");
    assertThat(new ShardwiseDockerComposeConnectionDetailsFactory.Redis().getConnectionDetails(source(service)))
        .isNull();
  }

  @Test
  void aRedisStackServiceBecomesOneRedisServer() throws Exception {
    RunningService service =
        service("store", "redis/redis-stack-server:7.4.0-v1", "::1", Map.of(6379, 40000), Map.of());
    ShardwiseConnectionDetails details =
        new ShardwiseDockerComposeConnectionDetailsFactory.Redis().getConnectionDetails(source(service));
    assertThat(details.backend()).isEqualTo("redis");
    assertThat(details.servers()).containsExactly("[::1]:40000");
    assertThat(new ShardwiseDockerComposeConnectionDetailsFactory.Memcached().getConnectionDetails(source(service)))
        .isNull();
  }

  @Test
  void aServiceOfAnotherImageMatchesByBootsServiceConnectionLabel() throws Exception {
    RunningService service =
        service(
            "cache",
            "example/own-memcached:2",
            "127.0.0.1",
            Map.of(11211, 32769),
            Map.of("org.springframework.boot.service-connection", "memcached"));
    assertThat(
            new ShardwiseDockerComposeConnectionDetailsFactory.Memcached()
                .getConnectionDetails(source(service))
                .servers())
        .containsExactly("127.0.0.1:32769");
    RunningService unlabelled = service("cache", "example/own-memcached:2", "127.0.0.1", Map.of(11211, 32769), Map.of());
    assertThat(new ShardwiseDockerComposeConnectionDetailsFactory.Memcached().getConnectionDetails(source(unlabelled)))
        .isNull();
  }

  @Test
  void aServiceThatPublishesNoCachePortIsNamedInTheError() {
    RunningService service = service("cache", "memcached:1.6", "127.0.0.1", Map.of(8080, 8080), Map.of());
    assertThatThrownBy(() -> ShardwiseDockerComposeConnectionDetailsFactory.server(service, 11211))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("docker compose service 'cache'")
        .hasMessageContaining("does not publish port 11211");
  }

  /** Boot makes these itself; its constructor is not public. */
  private static DockerComposeConnectionSource source(RunningService service) throws Exception {
    Constructor<DockerComposeConnectionSource> c =
        DockerComposeConnectionSource.class.getDeclaredConstructor(
            RunningService.class, org.springframework.core.env.Environment.class);
    c.setAccessible(true);
    return c.newInstance(service, new StandardEnvironment());
  }

  private static RunningService service(
      String name, String image, String host, Map<Integer, Integer> published, Map<String, String> labels) {
    ConnectionPorts ports =
        new ConnectionPorts() {
          @Override
          public int get(int containerPort) {
            Integer p = published.get(containerPort);
            if (p == null) {
              // What Boot's own ConnectionPorts does for a port with no mapping.
              throw new IllegalStateException("No host port mapping found for container port " + containerPort);
            }
            return p;
          }

          @Override
          public List<Integer> getAll() {
            return List.copyOf(published.values());
          }

          @Override
          public List<Integer> getAll(String protocol) {
            return getAll();
          }
        };
    return new RunningService() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public ImageReference image() {
        return ImageReference.of(image);
      }

      @Override
      public String host() {
        return host;
      }

      @Override
      public ConnectionPorts ports() {
        return ports;
      }

      @Override
      public Map<String, String> env() {
        return Map.of();
      }

      @Override
      public Map<String, String> labels() {
        return labels;
      }
    };
  }
}
