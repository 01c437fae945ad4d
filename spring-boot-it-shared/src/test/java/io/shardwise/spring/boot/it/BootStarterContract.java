package io.shardwise.spring.boot.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.NodeState;
import io.shardwise.routing.Node;
import io.shardwise.spring.boot.ShardwiseConnectionDetails;
import io.shardwise.spring.boot.it.BookshopApplication.Book;
import io.shardwise.spring.boot.it.BookshopApplication.Bookshop;
import io.shardwise.spring.cache.ShardwiseCache;
import io.shardwise.spring.cache.ShardwiseCacheErrorHandler;
import io.shardwise.spring.cache.ShardwiseCacheManager;
import io.shardwise.testing.Concurrently;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.CachingConfigurer;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.cache.support.NoOpCacheManager;
import org.springframework.cache.transaction.TransactionAwareCacheDecorator;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;

/**
 * What a Spring Boot user of the starter gets, checked on each supported Boot version by a subclass
 * in that version's module: {@link BookshopApplication}, configured by properties alone, on a web
 * server with Actuator, against two real memcached servers (and a Redis server for the backend
 * switch).
 */
@SpringBootTest(
    classes = BookshopApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@Timeout(60)
public abstract class BootStarterContract {

  @RegisterExtension static final ServerFleet<MemcachedServer> FLEET = ServerFleet.memcached(2);

  @DynamicPropertySource
  static void servers(DynamicPropertyRegistry registry) {
    registry.add("shardwise.servers", () -> String.join(",", FLEET.addresses()));
  }

  @Autowired Bookshop bookshop;
  @Autowired CacheManager cacheManager;
  @Autowired AsyncCacheClient<Object> client;
  @Autowired CacheClient<Object> syncClient;
  @Autowired MeterRegistry meters;
  @Autowired Environment environment;

  /** The Boot version the module runs, e.g. {@code "3.5."}. */
  protected abstract String bootVersionPrefix();

  /** The Lettuce version the module's Boot manages, which its Redis checks run on. */
  protected abstract String lettuceVersionPrefix();

  @BeforeEach
  void freshServers() throws InterruptedException {
    FLEET.restoreAll();
    FLEET.flushAll();
    // A server killed by the previous test is back: wait until the client has its connection to
    // it again and holds it healthy, or this test's first request to it fails "not connected"
    // (seen in CI after the health test's kill).
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      boolean ready = client.nodeStates().values().stream().allMatch(s -> s == NodeState.HEALTHY);
      for (CompletableFuture<java.time.Duration> ping : client.pingAll().values()) {
        try {
          ping.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
          ready = false;
        }
      }
      if (ready) {
        return;
      }
      assertThat(System.nanoTime()).as("every server reachable again within 30 s").isLessThan(deadline);
      Thread.sleep(20);
    }
  }

  @Test
  void theModuleRunsTheBootVersionItIsFor() {
    assertThat(SpringBootVersion.getVersion()).startsWith(bootVersionPrefix());
    assertThat(RedisClient.class.getPackage().getImplementationVersion())
        .as("the Lettuce the module's Boot manages")
        .startsWith(lettuceVersionPrefix());
  }

  @Test
  void cacheableIsServedFromTheFleetOnTheSecondCall() {
    int before = bookshop.loads();
    Book first = bookshop.book(1);
    assertThat(bookshop.book(1)).isEqualTo(first);
    assertThat(bookshop.loads() - before).isEqualTo(1);
    ShardwiseCache books = (ShardwiseCache) cacheManager.getCache("books");
    assertThat(client.get(books.storageKey(1L)).join()).isEqualTo(first);

    bookshop.save(new Book(1, "Revised"));
    assertThat(bookshop.book(1).title()).isEqualTo("Revised");
    bookshop.remove(1);
    assertThat(bookshop.book(1).title()).isEqualTo("Book 1");
    assertThat(bookshop.loads() - before).isEqualTo(2);
  }

  @Test
  void actuatorHealthShowsEveryServerAndADeadOneAsDown() throws Exception {
    String body = get("/actuator/health/shardwise", 200);
    assertThat(body).contains("\"status\":\"UP\"", "\"up\":2", "\"servers\":2");
    for (String address : FLEET.addresses()) {
      assertThat(body).contains("\"" + address + "\":{\"status\":\"UP\"");
    }

    FLEET.server(1).kill();
    String after = get("/actuator/health/shardwise", 200);
    assertThat(after).as("one server still serves").contains("\"status\":\"UP\"", "\"up\":1");
    assertThat(after).contains("\"" + FLEET.server(1).address() + "\":{\"status\":\"DOWN\"");
    assertThat(after).contains("\"" + FLEET.server(0).address() + "\":{\"status\":\"UP\"");
  }

  @Test
  void bootsCacheMetersCountTheCallsMade() throws Exception {
    cacheManager.getCache("books"); // created, with its meters, on first use
    double hits = count("books", "hit");
    double misses = count("books", "miss");
    double puts = meters.get("cache.puts").tag("cache", "books").functionCounter().count();
    double removals = meters.get("cache.removals").tag("cache", "books").functionCounter().count();

    for (long id = 100; id < 103; id++) {
      bookshop.book(id);
    }
    bookshop.book(100);
    bookshop.book(101);
    bookshop.remove(102);

    assertThat(count("books", "miss") - misses).isEqualTo(3);
    assertThat(count("books", "hit") - hits).isEqualTo(2);
    assertThat(meters.get("cache.puts").tag("cache", "books").functionCounter().count() - puts)
        .isEqualTo(3);
    assertThat(
            meters.get("cache.removals").tag("cache", "books").functionCounter().count()
                - removals)
        .isEqualTo(1);
    // The other meters Boot binds for a Redis cache; no cache.evictions, as for Boot's Redis cache.
    assertThat(count("books", "pending")).isZero();
    assertThat(meters.get("cache.lock.duration").tag("cache", "books").timeGauge()).isNotNull();
    assertThat(Search.in(meters).name("cache.evictions").meters()).isEmpty();
    assertThat(
            meters.get("cache.gets").tag("cache", "books").meter().getId().getTag("cache.manager"))
        .isEqualTo("cacheManager");
    // The same through Actuator's metrics endpoint, and the per-server meters beside them.
    assertThat(get("/actuator/metrics/cache.gets?tag=cache:books&tag=result:hit", 200))
        .contains("\"name\":\"cache.gets\"");
    assertThat(Search.in(meters).name("shardwise.node.up").gauges()).hasSize(2);
    assertThat(Search.in(meters).name("shardwise.requests").timers()).isNotEmpty();
  }

  @Test
  void syncCompletableFutureMethodsCountEveryCallAsTheBlockingFormDoes() throws Exception {
    cacheManager.getCache("books"); // created, with its meters, on first use
    double hits = count("books", "hit");
    double misses = count("books", "miss");
    int before = bookshop.loads();
    // 8 calls at once while the first call's load is held open, then 8 once the book is stored.
    CompletableFuture<Void> release = new CompletableFuture<>();
    List<CompletableFuture<Book>> first =
        Concurrently.call(8, () -> bookshop.bookWhen(200, release));
    release.complete(null);
    for (CompletableFuture<Book> book : first) {
      assertThat(book.get()).isEqualTo(new Book(200, "Book 200"));
    }
    for (CompletableFuture<Book> book :
        Concurrently.call(8, () -> bookshop.bookWhen(200, release))) {
      assertThat(book.get()).isEqualTo(new Book(200, "Book 200"));
    }
    assertThat(bookshop.loads() - before).isEqualTo(1);
    assertThat(count("books", "miss") - misses).isEqualTo(1);
    assertThat(count("books", "hit") - hits).isEqualTo(15);
    assertThat(count("books", "pending")).isZero();
  }

  @Test
  void cacheNamesFromSpringCachePropertiesAndTheCustomizersAreApplied() {
    assertThat(cacheManager).isInstanceOf(ShardwiseCacheManager.class);
    // spring.cache.cache-names and the cache manager customizer create their caches at start-up.
    assertThat(cacheManager.getCacheNames()).contains("prewarmed", "custom");
    ShardwiseCache custom = (ShardwiseCache) cacheManager.getCache("custom");
    assertThat(custom.keyPrefix()).isEqualTo("cu:");
    assertThat(custom.ttl()).isEqualTo(Duration.ofMinutes(5));
    // The client customizer set the largest value.
    syncClient.set(
        "small", new byte[BookshopApplication.MAX_VALUE_BYTES / 2], Duration.ofMinutes(1));
    assertThatThrownBy(
            () ->
                syncClient.set(
                    "large",
                    new byte[BookshopApplication.MAX_VALUE_BYTES * 2],
                    Duration.ofMinutes(1)))
        .hasMessageContaining(String.valueOf(BookshopApplication.MAX_VALUE_BYTES));
  }

  @Test
  void springCacheTypeNoneTurnsCachingOff() {
    try (ConfigurableApplicationContext context =
        start(
            "spring.cache.type=none", "shardwise.servers=" + String.join(",", FLEET.addresses()))) {
      assertThat(context.getBeansOfType(ShardwiseCacheManager.class)).isEmpty();
      assertThat(context.getBean(CacheManager.class)).isInstanceOf(NoOpCacheManager.class);
      Bookshop shop = context.getBean(Bookshop.class);
      shop.book(7);
      shop.book(7);
      assertThat(shop.loads()).isEqualTo(2);
    }
  }

  @Test
  void anotherSpringCacheTypeIsBootsCacheAndTheClientStays() {
    try (ConfigurableApplicationContext context =
        start(
            "spring.cache.type=simple",
            // Boot's simple cache has only the caches named, when names are given.
            "spring.cache.cache-names=books",
            "shardwise.servers=" + String.join(",", FLEET.addresses()))) {
      assertThat(context.getBeansOfType(ShardwiseCacheManager.class)).isEmpty();
      assertThat(context.getBean(CacheManager.class)).isInstanceOf(ConcurrentMapCacheManager.class);
      assertThat(context.getBeansOfType(AsyncCacheClient.class)).hasSize(1);
      Bookshop shop = context.getBean(Bookshop.class);
      shop.book(7);
      shop.book(7);
      assertThat(shop.loads()).isEqualTo(1);
    }
  }

  @Test
  void switchingToRedisIsAMatterOfProperties() throws Exception {
    try (ServerFleet<RedisServer> redis = ServerFleet.redis(1).start();
        ConfigurableApplicationContext context =
            start("shardwise.backend=redis", "shardwise.servers=" + redis.addresses().get(0))) {
      Bookshop shop = context.getBean(Bookshop.class);
      Book book = shop.book(3);
      assertThat(shop.book(3)).isEqualTo(book);
      assertThat(shop.loads()).isEqualTo(1);
      ShardwiseCache books = (ShardwiseCache) context.getBean(CacheManager.class).getCache("books");
      assertThat(redis.server(0).get(books.storageKey(3L))).isNotNull();
      assertThat(
              context
                  .getBean(MeterRegistry.class)
                  .get("cache.gets")
                  .tag("cache", "books")
                  .tag("result", "hit")
                  .functionCounter()
                  .count())
          .isEqualTo(1);
    }
  }

  @Test
  void actuatorShowsNoCredentialEvenWithShowValuesAlways() throws Exception {
    String password = "pw-" + Long.toHexString(System.nanoTime());
    try (ServerFleet<RedisServer> redis =
            ServerFleet.redisBuilder()
                .servers(1)
                .extraArgs("--requirepass", password)
                .build()
                .start();
        ConfigurableApplicationContext context =
            new SpringApplicationBuilder(BookshopApplication.class)
                .web(WebApplicationType.SERVLET)
                .run(
                    "--server.port=0",
                    "--shardwise.backend=redis",
                    "--shardwise.servers=" + redis.addresses().get(0),
                    "--shardwise.redis.username=default",
                    "--shardwise.redis.password=" + password)) {
      // The client authenticated with the password: the server requires it.
      Bookshop shop = context.getBean(Bookshop.class);
      shop.book(9);
      shop.book(9);
      assertThat(shop.loads()).isEqualTo(1);

      String port = context.getEnvironment().getProperty("local.server.port");
      String configprops = get(port, "/actuator/configprops", 200);
      String env = get(port, "/actuator/env", 200);
      assertThat(configprops)
          .as("configprops lists the Shardwise properties, values shown")
          .contains("\"shardwise\"", "\"backend\":\"redis\"")
          .contains("\"password\":\"******\"", "\"username\":\"******\"");
      assertThat(env).contains("shardwise.redis.password");
      for (String body : new String[] {configprops, env}) {
        assertThat(body).doesNotContain(password);
      }
    }
  }

  @Test
  void transactionAwareCachesWriteOnCommitAndFailuresAsMissesKeepTheMethodServing()
      throws Exception {
    try (ServerFleet<MemcachedServer> one = ServerFleet.memcached(1).start();
        ConfigurableApplicationContext context =
            start(
                "shardwise.servers=" + one.addresses().get(0),
                "shardwise.cache.transaction-aware=true",
                "shardwise.cache.failures-as-misses=true")) {
      CacheManager manager = context.getBean(CacheManager.class);
      Cache books = manager.getCache("books");
      assertThat(books).isInstanceOf(TransactionAwareCacheDecorator.class);

      // A put inside a transaction reaches the server only when the transaction commits.
      TransactionSynchronizationManager.initSynchronization();
      try {
        books.put(1L, new Book(1, "In a transaction"));
        assertThat(books.get(1L)).as("not before the commit").isNull();
        TransactionSynchronizationUtils.triggerAfterCommit();
      } finally {
        TransactionSynchronizationManager.clearSynchronization();
      }
      assertThat(books.get(1L, Book.class)).isEqualTo(new Book(1, "In a transaction"));

      // With the only server gone, cached methods still answer, from the method, and count it.
      Bookshop shop = context.getBean(Bookshop.class);
      ShardwiseCacheErrorHandler handler = context.getBean(ShardwiseCacheErrorHandler.class);
      one.server(0).kill();
      assertThat(shop.book(2)).isEqualTo(new Book(2, "Book 2"));
      assertThat(shop.book(2)).isEqualTo(new Book(2, "Book 2"));
      assertThat(shop.loads()).isEqualTo(2);
      assertThat(handler.absorbedCount()).as("two reads and two writes").isEqualTo(4);
      // An eviction that fails still fails: ignored, it would leave the old value served.
      assertThatThrownBy(() -> shop.remove(2)).isInstanceOf(RuntimeException.class);
    }
  }

  @Test
  void aConnectionDetailsBeanNamesTheServersInsteadOfTheProperties() {
    try (ConfigurableApplicationContext context =
        new SpringApplicationBuilder(BookshopApplication.class, FleetConnection.class)
            .web(WebApplicationType.NONE)
            .run("--shardwise.servers=127.0.0.1:9")) {
      AsyncCacheClient<?> fleetClient = context.getBean(AsyncCacheClient.class);
      assertThat(fleetClient.nodes())
          .extracting(Node::address)
          .containsExactlyElementsOf(FLEET.addresses());
      Bookshop shop = context.getBean(Bookshop.class);
      shop.book(4);
      shop.book(4);
      assertThat(shop.loads()).isEqualTo(1);
    }
  }

  @Test
  void failuresAsMissesWithTheApplicationsOwnCachingConfigurerStopsTheStartUp() {
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(BookshopApplication.class, OwnCachingConfigurer.class)
                    .web(WebApplicationType.NONE)
                    .run(
                        "--shardwise.servers=" + String.join(",", FLEET.addresses()),
                        "--shardwise.cache.failures-as-misses=true")
                    .close())
        .hasStackTraceContaining("shardwise.cache.failures-as-misses=true")
        .hasStackTraceContaining("SimpleCacheErrorHandler");
  }

  /** An application's own CachingConfigurer, which leaves Spring's default error handler. */
  static class OwnCachingConfigurer {
    @Bean
    CachingConfigurer ownCachingConfigurer() {
      return new CachingConfigurer() {};
    }
  }

  /** The servers as a service connection (what a @ServiceConnection container provides). */
  static class FleetConnection {
    @Bean
    ShardwiseConnectionDetails fleetConnection() {
      return new ShardwiseConnectionDetails() {
        @Override
        public String backend() {
          return "memcached";
        }

        @Override
        public List<String> servers() {
          return FLEET.addresses();
        }
      };
    }
  }

  private double count(String cache, String result) {
    return meters
        .get("cache.gets")
        .tag("cache", cache)
        .tag("result", result)
        .functionCounter()
        .count();
  }

  /** Another context of the same application, without a web server; {@code args} as --k=v. */
  private static ConfigurableApplicationContext start(String... properties) {
    return new SpringApplicationBuilder(BookshopApplication.class)
        .web(WebApplicationType.NONE)
        .run(java.util.Arrays.stream(properties).map(p -> "--" + p).toArray(String[]::new));
  }

  private String get(String path, int expectedStatus) throws Exception {
    return get(environment.getProperty("local.server.port"), path, expectedStatus);
  }

  private static String get(String port, String path, int expectedStatus) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode())
        .as("GET %s: %s", path, response.body())
        .isEqualTo(expectedStatus);
    return response.body();
  }
}
