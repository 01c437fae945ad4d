package io.shardwise.spring.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.NodeState;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.routing.Node;
import io.shardwise.spring.boot.ShardwiseSettings;
import io.shardwise.spring.cache.ShardwiseCache;
import io.shardwise.spring.health.ShardwiseHealthIndicator;
import io.shardwise.spring.it.Library.Book;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

/**
 * What the starter must do for an application configured by {@code
 * application-<backend>.properties} alone (plus the servers' addresses), against real servers: the
 * same tests for memcached and Redis.
 */
abstract class SpringBootContract {

  private static final Duration RECOVERY = Duration.ofSeconds(30);

  @Autowired Library library;
  @Autowired CacheManager cacheManager;
  @Autowired AsyncCacheClient<Object> client;
  @Autowired CacheClient<Object> syncClient;
  @Autowired ShardwiseSettings settings;
  @Autowired ShardwiseHealthIndicator health;
  @Autowired MeterRegistry meters;

  abstract ServerFleet<? extends ServerHandle> fleet();

  /** Whether server {@code index} holds {@code key}, read without the client. */
  abstract boolean rawHas(int index, String key);

  abstract String backend();

  @BeforeEach
  void freshServers() {
    fleet().restoreAll();
    awaitAllHealthy();
    fleet().flushAll();
    library.reset();
  }

  @AfterEach
  void restore() {
    fleet().restoreAll();
  }

  @Test
  void theContextStartsFromPropertiesAlone() {
    ShardwiseConfig config = settings.config().orElseThrow();
    assertThat(config.backend()).isEqualTo(backend());
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(client.nodes())
        .extracting(Node::address)
        .containsExactlyElementsOf(fleet().addresses());
    syncClient.set("greeting", "hello", Duration.ofMinutes(1));
    assertThat(client.get("greeting").join()).isEqualTo("hello");
  }

  @Test
  void cacheableHitsTheCacheOnTheSecondCallAndTheValueSitsOnTheNodeTheRouterNames() {
    Book first = library.book(42);
    Book second = library.book(42);
    assertThat(second).isEqualTo(first);
    assertThat(library.bookLoads()).isEqualTo(1);

    ShardwiseCache books = (ShardwiseCache) cacheManager.getCache("books");
    String key = books.storageKey(42L);
    assertThat(key).startsWith("books:").endsWith(":42");
    int owner = fleet().addresses().indexOf(client.nodeFor(key).address());
    for (int i = 0; i < fleet().size(); i++) {
      assertThat(rawHas(i, key))
          .as("server %d holds %s (the router names server %d)", i, key, owner)
          .isEqualTo(i == owner);
    }
    assertThat(books.get(42L, Book.class)).isEqualTo(first);
  }

  @Test
  void cacheEvictAllEntriesClearsOneCacheAndNotAnother() {
    for (long id = 0; id < 20; id++) {
      library.book(id);
    }
    library.author("ann");
    library.author("bob");
    library.reset();

    library.evictAllBooks();

    for (long id = 0; id < 20; id++) {
      library.book(id);
    }
    library.author("ann");
    library.author("bob");
    assertThat(library.bookLoads()).as("books were cleared").isEqualTo(20);
    assertThat(library.authorLoads()).as("authors were not").isEqualTo(0);
    assertThat(((ShardwiseCache) cacheManager.getCache("authors")).storageKey("ann"))
        .startsWith("au:");
  }

  @Test
  void cachePutAndSingleEvictionsAndNullValues() {
    library.book(7);
    library.save(new Book(7, "Revised"));
    assertThat(library.book(7).title()).isEqualTo("Revised");
    library.evictBook(7);
    assertThat(library.book(7).title()).isEqualTo("Book 7");
    assertThat(library.bookLoads()).isEqualTo(2);

    assertThat(library.missing(1)).isNull();
    assertThat(library.missing(1)).isNull();
    assertThat(library.missingLoads()).as("a null result is cached").isEqualTo(1);
    Cache.ValueWrapper wrapper = cacheManager.getCache("missing").get(1L);
    assertThat(wrapper).isNotNull();
    assertThat(wrapper.get()).isNull();
  }

  @Test
  void putIfAbsentEvictIfPresentAndInvalidate() {
    Cache cache = cacheManager.getCache("plain");
    assertThat(cache.putIfAbsent("k", "first")).isNull();
    Cache.ValueWrapper existing = cache.putIfAbsent("k", "second");
    assertThat(existing).isNotNull();
    assertThat(existing.get()).isEqualTo("first");
    assertThat(cache.get("k", String.class)).isEqualTo("first");
    assertThat(cache.putIfAbsent("nothing", null)).isNull();
    assertThat(cache.putIfAbsent("nothing", "x").get()).isNull();

    assertThat(cache.evictIfPresent("k")).isTrue();
    assertThat(cache.evictIfPresent("k")).isFalse();
    cache.put("k", "again");
    cache.invalidate();
    assertThat(cache.get("k")).isNull();
  }

  @Test
  void theAsyncRetrieveMethodsServeCompletableFutureMethods() throws Exception {
    Book first = library.bookAsync(5).get(10, TimeUnit.SECONDS);
    Book second = library.bookAsync(5).get(10, TimeUnit.SECONDS);
    assertThat(second).isEqualTo(first);
    assertThat(library.asyncLoads()).isEqualTo(1);

    Cache cache = cacheManager.getCache("plain");
    assertThat(cache.retrieve("absent").get(10, TimeUnit.SECONDS)).isNull();
    cache.put("present", "v");
    Object found = cache.retrieve("present").get(10, TimeUnit.SECONDS);
    assertThat(found).isInstanceOf(Cache.ValueWrapper.class);
    assertThat(((Cache.ValueWrapper) found).get()).isEqualTo("v");
    int[] loads = {0};
    CompletableFuture<String> loaded =
        cache.retrieve(
            "lazy",
            () -> {
              loads[0]++;
              return CompletableFuture.completedFuture("made");
            });
    assertThat(loaded.get(10, TimeUnit.SECONDS)).isEqualTo("made");
    assertThat(
            cache
                .retrieve("lazy", () -> CompletableFuture.completedFuture("again"))
                .get(10, TimeUnit.SECONDS))
        .isEqualTo("made");
    assertThat(loads[0]).isEqualTo(1);
  }

  @Test
  void theAsyncMethodsNeverCallBackOnTheClientsIoThreads() throws Exception {
    // Spring stores a CompletableFuture method's value with a blocking put in a callback: on an
    // I/O thread that put would wait for a reply only that thread can read, until the timeout.
    Cache cache = cacheManager.getCache("plain");
    for (int i = 0; i < 20; i++) {
      String key = "from-callback-" + i;
      cache.retrieve("absent-" + i).thenRun(() -> cache.put(key, "v")).get(10, TimeUnit.SECONDS);
      assertThat(cache.get(key, String.class)).isEqualTo("v");
      String loaded =
          cache
              .retrieve(
                  "lazy-" + i,
                  () -> {
                    cache.put("inside-loader-" + key, "w");
                    return CompletableFuture.completedFuture("made");
                  })
              .get(10, TimeUnit.SECONDS);
      assertThat(loaded).isEqualTo("made");
    }
  }

  @Test
  void perCacheTimeToLive() throws InterruptedException {
    Cache shortLived = cacheManager.getCache("short-lived");
    shortLived.put("k", "v");
    cacheManager.getCache("plain").put("k", "v");
    assertThat(shortLived.get("k", String.class)).isEqualTo("v");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (shortLived.get("k") != null) {
      if (System.nanoTime() > deadline) {
        fail("an entry with a 1s TTL outlived 5s");
      }
      Thread.sleep(100);
    }
    assertThat(cacheManager.getCache("plain").get("k", String.class)).isEqualTo("v");
  }

  @Test
  void aClearByAnotherProcessShowsWithinTheGenerationRefresh() throws InterruptedException {
    io.shardwise.spring.cache.CacheSettings.CacheSpec spec =
        io.shardwise.spring.cache.CacheSettings.defaults().forCache("shared");
    Duration refresh = Duration.ofMillis(300);
    ShardwiseCache here = new ShardwiseCache("shared", client, spec, refresh);
    ShardwiseCache there = new ShardwiseCache("shared", client, spec, refresh);
    here.put("k", "v");
    assertThat(there.get("k", String.class)).isEqualTo("v");
    here.clear();
    assertThat(here.get("k")).as("this process sees its own clear at once").isNull();
    Thread.sleep(refresh.toMillis() + 50);
    assertThat(there.get("k")).as("another one within the refresh").isNull();
    there.put("k", "w");
    assertThat(here.get("k", String.class)).isEqualTo("w");
  }

  @Test
  void nullValuesAreRefusedWhereTheCacheDoesNotAllowThem() {
    // A cache without null values, as Spring's own caches do: the put fails and names the cache.
    ShardwiseCache strict =
        new ShardwiseCache(
            "strict",
            client,
            io.shardwise.spring.cache.CacheSettings.defaults()
                .forCache("strict")
                .withNullValues(false),
            Duration.ZERO);
    assertThatThrownBy(() -> strict.put("k", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("strict");
    strict.put("k", "v");
    assertThat(strict.get("k", String.class)).isEqualTo("v");
  }

  @Test
  void healthShowsAKilledNodeAsDown() {
    Health before = health.health();
    assertThat(before.getStatus()).isEqualTo(Status.UP);
    assertThat(before.getDetails()).containsEntry("up", fleet().size());

    fleet().server(1).kill();
    Health after = health.health();
    assertThat(after.getStatus()).as("the fleet still serves").isEqualTo(Status.UP);
    assertThat(after.getDetails()).containsEntry("up", fleet().size() - 1);
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> nodes =
        (Map<String, Map<String, Object>>) after.getDetails().get("nodes");
    assertThat(nodes.get(fleet().server(1).address()))
        .containsEntry("status", "DOWN")
        .containsEntry("ping", "failed")
        .containsKey("error");
    assertThat(nodes.get(fleet().server(0).address()))
        .containsEntry("status", "UP")
        .containsEntry("state", "HEALTHY")
        .containsEntry("ping", "ok")
        .containsKey("since");

    // Each health check pings once: a few more and the dead server is ejected, with the reason.
    Map<String, Object> dead = nodes.get(fleet().server(1).address());
    for (int i = 0; i < 20 && "HEALTHY".equals(dead.get("state")); i++) {
      assertThat(dead)
          .as("DOWN while still routed to, and why")
          .containsEntry("ping", "failed")
          .containsKey("reason");
      dead = node(health.health(), fleet().server(1).address());
    }
    assertThat(dead.get("state")).isNotEqualTo("HEALTHY");
    assertThat((String) dead.get("reason")).contains("consecutive failures");

    // Out of rotation, it is left to the client's own probes: more checks send it no ping.
    double pingErrors = pingErrors(fleet().server(1).address());
    for (int i = 0; i < 5; i++) {
      assertThat(node(health.health(), fleet().server(1).address()))
          .containsEntry("status", "DOWN")
          .hasEntrySatisfying("ping", ping -> assertThat((String) ping).startsWith("not sent"));
    }
    assertThat(pingErrors(fleet().server(1).address())).isEqualTo(pingErrors);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> node(Health health, String name) {
    return ((Map<String, Map<String, Object>>) health.getDetails().get("nodes")).get(name);
  }

  /** Failed pings of {@code node}, as shardwise.errors counts them. */
  private double pingErrors(String node) {
    return meters.find("shardwise.errors").tags("node", node, "operation", "ping").counters()
        .stream()
        .mapToDouble(c -> c.count())
        .sum();
  }

  @Test
  void metersCountRequestsHitsAndMissesPerNode() {
    for (long id = 0; id < 30; id++) {
      library.book(id);
      library.book(id);
    }
    double requests = 0;
    for (Node node : client.nodes()) {
      java.util.Collection<Timer> timers =
          meters
              .find("shardwise.requests")
              .tags("node", node.name(), "outcome", "success")
              .timers();
      assertThat(timers).as("requests to %s", node).isNotEmpty();
      requests += timers.stream().mapToLong(Timer::count).sum();
    }
    assertThat(requests).as("a get per call, a set per miss").isGreaterThanOrEqualTo(90);
    double hits =
        meters.find("shardwise.reads").tag("result", "hit").counters().stream()
            .mapToDouble(c -> c.count())
            .sum();
    double misses =
        meters.find("shardwise.reads").tag("result", "miss").counters().stream()
            .mapToDouble(c -> c.count())
            .sum();
    assertThat(hits).isGreaterThanOrEqualTo(30);
    assertThat(misses).isGreaterThanOrEqualTo(30);
    assertThat(meters.find("shardwise.node.up").gauges()).hasSize(fleet().size());
  }

  /** Waits until every server answers through the client and none is ejected. */
  void awaitAllHealthy() {
    long deadline = System.nanoTime() + RECOVERY.toNanos();
    while (true) {
      boolean ok = true;
      for (CompletableFuture<Duration> ping : client.pingAll().values()) {
        try {
          ping.get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
          ok = false;
        }
      }
      ok &= client.nodeStates().values().stream().allMatch(s -> s == NodeState.HEALTHY);
      if (ok) {
        return;
      }
      if (System.nanoTime() > deadline) {
        fail("the fleet did not recover within " + RECOVERY + ": " + client.nodeStates());
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }
}
