package io.shardwise.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NodeState;
import io.shardwise.spring.cache.ShardwiseCache;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.CacheManager;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * {@code shardwise.replicas=2} on three real memcached servers, configured by properties alone:
 * every cached entry is on two servers, and killing any one server loses no entry: the cache
 * serves every one of them from its other replica, and the method behind it is not called again.
 */
@SpringBootTest(classes = LibraryApplication.class)
@ActiveProfiles("memcached")
@Timeout(120)
class ReplicatedCacheIT {

  private static final int BOOKS = 300;

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(3);

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("shardwise.servers", () -> String.join(",", FLEET.addresses()));
    registry.add("shardwise.replicas", () -> "2");
  }

  @Autowired Library library;
  @Autowired CacheManager cacheManager;
  @Autowired AsyncCacheClient<Object> client;

  @BeforeEach
  void freshServers() throws InterruptedException {
    FLEET.restoreAll();
    // The server killed by the previous run is back: wait until the client has readmitted it, or
    // the writes below would skip it (journaled against it, as they should be).
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!client.nodeStates().values().stream().allMatch(s -> s == NodeState.HEALTHY)) {
      assertThat(System.nanoTime()).as("every server readmitted within 30 s").isLessThan(deadline);
      Thread.sleep(20);
    }
    FLEET.flushAll();
    library.reset();
  }

  @AfterEach
  void restore() {
    FLEET.restoreAll();
  }

  @ParameterizedTest(name = "server {0}")
  @ValueSource(ints = {0, 1, 2})
  void killingOneOfThreeServersLosesNoEntry(int server) {
    for (long id = 0; id < BOOKS; id++) {
      library.book(id);
    }
    assertThat(library.bookLoads()).isEqualTo(BOOKS);
    ShardwiseCache books = (ShardwiseCache) cacheManager.getCache("books");
    for (long id = 0; id < BOOKS; id++) {
      String key = books.storageKey(id);
      int copies = 0;
      for (int i = 0; i < FLEET.size(); i++) {
        copies += FLEET.server(i).get(key) != null ? 1 : 0;
      }
      assertThat(copies).as("servers holding %s", key).isEqualTo(2);
    }
    library.reset();

    FLEET.server(server).kill();
    for (long id = 0; id < BOOKS; id++) {
      assertThat(library.book(id).id()).isEqualTo(id);
    }
    assertThat(library.bookLoads()).as("entries the cache lost with server %d", server).isZero();
  }
}
