package io.shardwise.spring.it;

import java.io.Serializable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;

/** A service whose methods count how often they really run, so tests see what the cache served. */
public class Library {

  /** A cached value: anything Serializable. */
  public record Book(long id, String title) implements Serializable {}

  // Read through the methods below: the caching proxy around this object has fields of its own.
  private final AtomicInteger bookLoads = new AtomicInteger();
  private final AtomicInteger authorLoads = new AtomicInteger();
  private final AtomicInteger missingLoads = new AtomicInteger();
  private final AtomicInteger asyncLoads = new AtomicInteger();

  public int bookLoads() {
    return bookLoads.get();
  }

  public int authorLoads() {
    return authorLoads.get();
  }

  public int missingLoads() {
    return missingLoads.get();
  }

  public int asyncLoads() {
    return asyncLoads.get();
  }

  @Cacheable("books")
  public Book book(long id) {
    bookLoads.incrementAndGet();
    return new Book(id, "Book " + id);
  }

  @CachePut(cacheNames = "books", key = "#p0.id()")
  public Book save(Book book) {
    return book;
  }

  @CacheEvict(cacheNames = "books", allEntries = true)
  public void evictAllBooks() {}

  @CacheEvict(cacheNames = "books", key = "#p0")
  public void evictBook(long id) {}

  @Cacheable("authors")
  public String author(String name) {
    authorLoads.incrementAndGet();
    return "Author " + name;
  }

  /** Returns null for every id: the cache keeps the null and the method runs once per id. */
  @Cacheable("missing")
  public Book missing(long id) {
    missingLoads.incrementAndGet();
    return null;
  }

  /** Cached through the cache's async retrieve methods. */
  @Cacheable("async-books")
  public CompletableFuture<Book> bookAsync(long id) {
    asyncLoads.incrementAndGet();
    return CompletableFuture.supplyAsync(() -> new Book(id, "Async book " + id));
  }

  public void reset() {
    bookLoads.set(0);
    authorLoads.set(0);
    missingLoads.set(0);
    asyncLoads.set(0);
  }
}
