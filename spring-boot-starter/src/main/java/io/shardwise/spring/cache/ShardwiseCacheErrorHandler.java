package io.shardwise.spring.cache;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cache.Cache;
import org.springframework.cache.interceptor.CacheErrorHandler;

/**
 * A Spring {@link CacheErrorHandler} that makes a failed cache read behave as a miss (the cached
 * method runs) and a failed write as done (the method's result is returned, not stored), and logs
 * each kind of failure once: a WARN line the first time a cache meets a failure type (operation and
 * exception class), DEBUG lines after that. A failed eviction or clear still fails the call: were
 * it ignored, the old value would stay served until its time to live.
 *
 * <p>The starter installs it with {@code shardwise.cache.failures-as-misses=true} (when the
 * application has no {@code CachingConfigurer} of its own; with one, return this handler from its
 * {@code errorHandler()}).
 */
public class ShardwiseCacheErrorHandler implements CacheErrorHandler {

  private static final Logger log = LoggerFactory.getLogger(ShardwiseCacheErrorHandler.class);

  private final Set<String> logged = ConcurrentHashMap.newKeySet();
  private final LongAdder absorbed = new LongAdder();

  @Override
  public void handleCacheGetError(RuntimeException exception, Cache cache, Object key) {
    absorb("read", exception, cache);
  }

  @Override
  public void handleCachePutError(
      RuntimeException exception, Cache cache, Object key, Object value) {
    absorb("write", exception, cache);
  }

  @Override
  public void handleCacheEvictError(RuntimeException exception, Cache cache, Object key) {
    throw exception;
  }

  @Override
  public void handleCacheClearError(RuntimeException exception, Cache cache) {
    throw exception;
  }

  /** Failed reads and writes that were turned into misses, since this handler was created. */
  public long absorbedCount() {
    return absorbed.sum();
  }

  private void absorb(String operation, RuntimeException exception, Cache cache) {
    absorbed.increment();
    String kind = cache.getName() + " " + operation + " " + exception.getClass().getName();
    if (logged.add(kind)) {
      log.warn(
          "cache '{}': a {} failed and is treated as a miss ({}); further {} failures of this"
              + " cache with {} are logged at DEBUG",
          cache.getName(),
          operation,
          exception.toString(),
          operation,
          exception.getClass().getSimpleName());
    } else if (log.isDebugEnabled()) {
      log.debug(
          "cache '{}': a {} failed and is treated as a miss",
          cache.getName(),
          operation,
          exception);
    }
  }
}
