package io.shardwise.examples.web;

import java.time.LocalTime;
import org.springframework.cache.annotation.CacheEvict;
import org.springframework.cache.annotation.CachePut;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.stereotype.Service;

/** A slow lookup (300 ms, standing in for a database) behind the {@code books} cache. */
@Service
public class BookService {

  @Cacheable("books")
  public Book find(long id) {
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return new Book(id, "Book " + id, LocalTime.now().toString());
  }

  @CachePut(cacheNames = "books", key = "#p0")
  public Book rename(long id, String title) {
    return new Book(id, title, LocalTime.now().toString());
  }

  @CacheEvict(cacheNames = "books", allEntries = true)
  public void forgetAll() {}
}
