package io.shardwise.examples.web;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.spring.cache.ShardwiseCache;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.cache.CacheManager;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /books/{id}} (slow the first time, then cached), {@code PUT /books/{id}?title=...}
 * (updates the cache), {@code DELETE /books} (clears the cache); each answer says which server
 * holds the entry.
 */
@RestController
public class BookController {

  private final BookService books;
  private final CacheManager caches;
  private final AsyncCacheClient<Object> client;

  public BookController(BookService books, CacheManager caches, AsyncCacheClient<Object> client) {
    this.books = books;
    this.caches = caches;
    this.client = client;
  }

  @GetMapping("/books/{id}")
  public Map<String, Object> get(@PathVariable("id") long id) {
    long start = System.nanoTime();
    Book book = books.find(id);
    return answer(id, book, start);
  }

  @PutMapping("/books/{id}")
  public Map<String, Object> rename(
      @PathVariable("id") long id, @RequestParam("title") String title) {
    long start = System.nanoTime();
    return answer(id, books.rename(id, title), start);
  }

  @DeleteMapping("/books")
  public Map<String, Object> clear() {
    books.forgetAll();
    return Map.of("cleared", "books");
  }

  private Map<String, Object> answer(long id, Book book, long start) {
    String key = ((ShardwiseCache) caches.getCache("books")).storageKey(id);
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("book", book);
    answer.put("tookMs", (System.nanoTime() - start) / 1_000_000);
    answer.put("cacheKey", key);
    answer.put("server", client.nodeFor(key).address());
    return answer;
  }
}
