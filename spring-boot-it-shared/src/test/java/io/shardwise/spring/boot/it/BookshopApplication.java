package io.shardwise.spring.boot.it;

import io.shardwise.spring.boot.ShardwiseCacheManagerBuilderCustomizer;
import io.shardwise.spring.boot.ShardwiseClientBuilderCustomizer;
import java.io.Serializable;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;

/**
 * The application both Boot versions run: auto-configuration, caching, one cached service and one
 * customizer of each kind. It compiles against Boot 3.5 and Boot 4 alike.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableCaching
public class BookshopApplication {

  /** Largest value the client customizer lets the client store. */
  static final int MAX_VALUE_BYTES = 4096;

  @Bean
  Bookshop bookshop() {
    return new Bookshop();
  }

  @Bean
  ShardwiseClientBuilderCustomizer smallValues() {
    return builder -> builder.maxValueBytes(MAX_VALUE_BYTES);
  }

  @Bean
  ShardwiseCacheManagerBuilderCustomizer customCache() {
    return builder ->
        builder.withCacheConfiguration(
            "custom",
            builder
                .settings()
                .forCache("custom")
                .withKeyPrefix("cu:")
                .withTtl(Duration.ofMinutes(5)));
  }

  /** A cached value. */
  public record Book(long id, String title) implements Serializable {}

  /** Counts how often its methods really run. */
  public static class Bookshop {
    private final AtomicInteger loads = new AtomicInteger();

    public int loads() {
      return loads.get();
    }

    @Cacheable("books")
    public Book book(long id) {
      loads.incrementAndGet();
      return new Book(id, "Book " + id);
    }

    /**
     * Cached with {@code sync = true} through the cache's async methods: concurrent calls for one
     * id share one load, which completes once {@code release} does.
     */
    @Cacheable(cacheNames = "books", key = "#p0", sync = true)
    public CompletableFuture<Book> bookWhen(long id, CompletableFuture<?> release) {
      loads.incrementAndGet();
      return release.thenApply(x -> new Book(id, "Book " + id));
    }

    @CachePut(cacheNames = "books", key = "#p0.id()")
    public Book save(Book book) {
      return book;
    }

    @CacheEvict(cacheNames = "books", key = "#p0")
    public void remove(long id) {}
  }
}
