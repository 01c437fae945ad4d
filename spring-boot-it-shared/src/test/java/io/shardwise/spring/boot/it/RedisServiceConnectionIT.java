package io.shardwise.spring.boot.it;

import static io.shardwise.spring.boot.it.ServiceConnectionContainers.HOST_NETWORK;
import static io.shardwise.spring.boot.it.ServiceConnectionContainers.LOOPBACK;
import static io.shardwise.spring.boot.it.ServiceConnectionContainers.REDIS_PORT;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.routing.Node;
import io.shardwise.spring.boot.it.BookshopApplication.Book;
import io.shardwise.spring.boot.it.BookshopApplication.Bookshop;
import io.shardwise.testing.EnabledInDockerMode;
import io.shardwise.testing.RespClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.core.env.Environment;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The starter's {@code @ServiceConnection} on a real Redis container declared as a user declares
 * one; the container, not {@code shardwise.backend=memcached} of the application's properties,
 * decides the backend. Docker mode only ({@code scripts/docker-slice.sh}).
 */
@Testcontainers
@EnabledInDockerMode
// The application's 500 ms timeout, raised as in the other tests against real servers, so that a
// loaded machine does not fail them.
@SpringBootTest(classes = BookshopApplication.class, properties = "shardwise.timeout=2s")
class RedisServiceConnectionIT {
  @Container
  @ServiceConnection
  static final GenericContainer<?> REDIS =
      new GenericContainer<>("redis:7")
          .withNetworkMode(HOST_NETWORK)
          .withCommand("redis-server", "--bind", LOOPBACK)
          .waitingFor(Wait.forLogMessage(".*Ready to accept connections.*", 1));

  @Autowired AsyncCacheClient<Object> client;
  @Autowired Bookshop bookshop;
  @Autowired Environment environment;

  @Test
  void theContainerIsTheOnlyServerAndHoldsWhatTheCacheStores() {
    assertThat(environment.getProperty("shardwise.backend")).isEqualTo("memcached");
    assertThat(client.nodes())
        .extracting(Node::address)
        .containsExactly(Node.of(REDIS.getHost(), REDIS_PORT).address());
    RespClient raw = new RespClient(LOOPBACK, REDIS_PORT, Duration.ofSeconds(5));
    long keysBefore = raw.dbSize();

    assertThat(bookshop.book(7)).isEqualTo(new Book(7, "Book 7"));
    assertThat(bookshop.book(7)).isEqualTo(new Book(7, "Book 7"));

    assertThat(bookshop.loads()).as("the second call is a hit").isEqualTo(1);
    assertThat(raw.dbSize()).as("keys on the container").isGreaterThan(keysBefore);
  }
}
