package io.shardwise.spring.boot.it;

import static io.shardwise.spring.boot.it.ServiceConnectionContainers.HOST_NETWORK;
import static io.shardwise.spring.boot.it.ServiceConnectionContainers.LOOPBACK;
import static io.shardwise.spring.boot.it.ServiceConnectionContainers.MEMCACHED_PORT;
import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.routing.Node;
import io.shardwise.spring.boot.it.BookshopApplication.Book;
import io.shardwise.spring.boot.it.BookshopApplication.Bookshop;
import io.shardwise.testing.EnabledInDockerMode;
import io.shardwise.testing.MemcachedTextClient;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * The starter's {@code @ServiceConnection} on a real memcached container declared as a user
 * declares one: a {@code @Container} field that Testcontainers starts, and no {@code
 * shardwise.servers}. Docker mode only ({@code scripts/docker-slice.sh}).
 */
@Testcontainers
@EnabledInDockerMode
// The application's 500 ms timeout, raised as in the other tests against real servers, so that a
// loaded machine does not fail them.
@SpringBootTest(classes = BookshopApplication.class, properties = "shardwise.timeout=2s")
class MemcachedServiceConnectionIT {
  @Container
  @ServiceConnection
  static final GenericContainer<?> MEMCACHED =
      new GenericContainer<>("memcached:1.6")
          .withNetworkMode(HOST_NETWORK)
          .withCommand("-l", LOOPBACK, "-vv")
          .waitingFor(Wait.forLogMessage(".*server listening.*", 1));

  @Autowired AsyncCacheClient<Object> client;
  @Autowired Bookshop bookshop;

  @Test
  void theContainerIsTheOnlyServerAndHoldsWhatTheCacheStores() {
    assertThat(client.nodes())
        .extracting(Node::address)
        .containsExactly(Node.of(MEMCACHED.getHost(), MEMCACHED_PORT).address());
    MemcachedTextClient raw =
        new MemcachedTextClient(LOOPBACK, MEMCACHED_PORT, Duration.ofSeconds(5));
    long itemsBefore = Long.parseLong(raw.stats().get("curr_items"));

    assertThat(bookshop.book(7)).isEqualTo(new Book(7, "Book 7"));
    assertThat(bookshop.book(7)).isEqualTo(new Book(7, "Book 7"));

    assertThat(bookshop.loads()).as("the second call is a hit").isEqualTo(1);
    assertThat(Long.parseLong(raw.stats().get("curr_items")))
        .as("items on the container")
        .isGreaterThan(itemsBefore);
  }
}
