package io.shardwise.spring.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.shardwise.core.BoundedOptions;
import io.shardwise.spring.boot.it.BookshopApplication.Book;
import io.shardwise.spring.boot.it.BookshopApplication.Bookshop;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cache.CacheManager;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Instances of {@link BookshopApplication} on three real Redis servers with {@code
 * shardwise.near-cache.enabled=true}, as a user turns it on: {@code @Cacheable} reads are answered
 * by the near cache (every key kept, or with the defaults once the key is hot), an {@code
 * @CacheEvict} in one instance reaches the other through the servers' invalidations, and Boot's
 * cache meters count the calls as without the near cache.
 */
@Timeout(90)
class NearCacheBootIT {

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(3);

  /** Far above the invalidation delay on loopback (about a millisecond); ends a broken run. */
  private static final long WAIT_NANOS = TimeUnit.SECONDS.toNanos(20);

  private ConfigurableApplicationContext here;
  private ConfigurableApplicationContext there;

  /** An instance with the near cache on, and {@code admit} ({@code all}, or null for the default). */
  private static ConfigurableApplicationContext instance(String admit) {
    List<String> args = new ArrayList<>();
    args.add("--shardwise.backend=redis");
    args.add("--shardwise.servers=" + String.join(",", REDIS.addresses()));
    // Raised as in the other tests against real servers, so that a loaded machine does not fail them.
    args.add("--shardwise.timeout=2s");
    args.add("--shardwise.near-cache.enabled=true");
    if (admit != null) {
      args.add("--shardwise.near-cache.admit=" + admit);
    }
    return new SpringApplicationBuilder(BookshopApplication.class).web(WebApplicationType.NONE).run(args.toArray(new String[0]));
  }

  @BeforeEach
  void start() {
    REDIS.flushAll();
  }

  @AfterEach
  void stop() {
    if (here != null) {
      here.close();
    }
    if (there != null) {
      there.close();
    }
  }

  private static double meter(ConfigurableApplicationContext context, String name, String tag, String value) {
    var found = context.getBean(MeterRegistry.class).find(name).tag(tag, value);
    return name.startsWith("cache.") ? found.tag("cache", "books").functionCounter().count() : found.functionCounter().count();
  }

  @Test
  void cacheableReadsAreAnsweredHereAndAnEvictElsewhereIsSeen() {
    // Every key read is kept: the first read of a book is enough.
    here = instance("all");
    there = instance("all");
    here.getBean(CacheManager.class).getCache("books"); // created, with its meters, on first use
    Bookshop shop = here.getBean(Bookshop.class);
    Bookshop other = there.getBean(Bookshop.class);
    double nearHits = meter(here, "shardwise.near.cache.gets", "result", "hit");
    double hits = meter(here, "cache.gets", "result", "hit");
    double misses = meter(here, "cache.gets", "result", "miss");

    Book first = shop.book(1); // a miss: loaded, put on the servers
    assertThat(shop.book(1)).isEqualTo(first); // read on the servers, kept here
    assertThat(shop.book(1)).isEqualTo(first); // answered here
    assertThat(shop.loads()).isEqualTo(1);
    assertThat(meter(here, "shardwise.near.cache.gets", "result", "hit") - nearHits)
        .as("reads the near cache answered")
        .isPositive();
    // Boot's meters count the cache's calls, whoever answered them.
    assertThat(meter(here, "cache.gets", "result", "miss") - misses).isEqualTo(1);
    assertThat(meter(here, "cache.gets", "result", "hit") - hits).isEqualTo(2);

    // The other instance evicts the book: the servers tell this one, whose next call loads it.
    other.remove(1);
    long start = System.nanoTime();
    while (shop.book(1) != null && shop.loads() == 1) {
      assertThat(System.nanoTime() - start).as("the evict seen here").isLessThan(WAIT_NANOS);
      Thread.onSpinWait();
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(shop.loads()).isEqualTo(2);
    System.out.printf("[near cache, boot] an @CacheEvict in another instance seen here after %d ms%n", millis);

    // And an @CachePut there replaces the value here.
    other.save(new Book(1, "Revised"));
    start = System.nanoTime();
    while (!shop.book(1).title().equals("Revised")) {
      assertThat(System.nanoTime() - start).as("the put seen here").isLessThan(WAIT_NANOS);
      Thread.onSpinWait();
    }
  }

  /**
   * With only {@code enabled=true}: hot keys only, the default. A book is kept once its reads on the
   * servers reach the hot threshold (8 by default, the loading call's read included; the sketch may
   * count a little more, never less), so the 8th call after the load is answered here at the latest,
   * and every call from then on.
   */
  @Test
  void withTheDefaultsABookIsAnsweredHereOnceItIsHot() {
    here = instance(null);
    here.getBean(CacheManager.class).getCache("books");
    Bookshop shop = here.getBean(Bookshop.class);
    double nearHits = meter(here, "shardwise.near.cache.gets", "result", "hit");
    double hits = meter(here, "cache.gets", "result", "hit");

    Book first = shop.book(1); // a miss: loaded, put on the servers
    int reads = 0;
    while (meter(here, "shardwise.near.cache.gets", "result", "hit") == nearHits) {
      assertThat(reads).as("reads of the book before one was answered here").isLessThan(BoundedOptions.DEFAULT_HOT_THRESHOLD);
      assertThat(shop.book(1)).isEqualTo(first);
      reads++;
    }
    for (int i = 0; i < 10; i++) {
      assertThat(shop.book(1)).isEqualTo(first);
    }
    assertThat(meter(here, "shardwise.near.cache.gets", "result", "hit") - nearHits)
        .as("the reads after the first answered here")
        .isEqualTo(11);
    assertThat(shop.loads()).isEqualTo(1);
    assertThat(meter(here, "cache.gets", "result", "hit") - hits).isEqualTo(reads + 10);
    System.out.printf("[near cache, boot] with the defaults a book was answered here from read %d on%n", reads);
  }
}
