package io.shardwise.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;

import io.shardwise.client.AsyncCacheClient;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.cache.interceptor.SimpleKey;

/** How cache keys become keys on the fleet (no I/O). */
class ShardwiseCacheTest {

  @SuppressWarnings("unchecked")
  private final ShardwiseCache cache =
      new ShardwiseCache(
          "books",
          mock(AsyncCacheClient.class),
          CacheSettings.defaults().forCache("books"),
          Duration.ZERO);

  @Test
  void keysAreThePrefixTheGenerationAndTheKeysText() {
    assertThat(cache.storageKey(7, "isbn-1")).isEqualTo("books:7:isbn-1");
    assertThat(cache.storageKey(7, 42L)).isEqualTo("books:7:42");
    UUID id = UUID.fromString("123e4567-e89b-12d3-a456-426614174000");
    assertThat(cache.storageKey(7, id)).isEqualTo("books:7:" + id);
    record Isbn(String value) {}
    assertThat(cache.storageKey(7, new Isbn("x"))).isEqualTo("books:7:Isbn[value=x]");
  }

  @Test
  void keysMemcachedCannotStoreAreDigested() {
    String spaced = cache.storageKey(7, new SimpleKey("a", 1));
    assertThat(spaced)
        .startsWith("books:7:#")
        .hasSize("books:7:#".length() + 43)
        .doesNotContain(" ");
    assertThat(cache.storageKey(7, "x".repeat(300))).startsWith("books:7:#");
    assertThat(cache.storageKey(7, "x".repeat(300)))
        .isNotEqualTo(cache.storageKey(7, "x".repeat(301)));
    assertThat(cache.storageKey(7, "line\nbreak")).startsWith("books:7:#");
  }

  @Test
  void keysWithoutATextFormAreRefused() {
    assertThatThrownBy(() -> cache.storageKey(7, new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not override toString()");
  }

  @Test
  void theDefaultsGiveEachCacheItsNameAsPrefix() {
    CacheSettings defaults = CacheSettings.defaults();
    assertThat(defaults.forCache("books").keyPrefix()).isEqualTo("books:");
    assertThat(defaults.forCache("books").ttl()).isEqualTo(Duration.ofHours(1));
    assertThat(defaults.forCache("books").cacheNullValues()).isTrue();
    assertThat(defaults.generationRefresh()).isEqualTo(Duration.ofSeconds(1));
  }
}
