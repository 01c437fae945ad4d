package io.shardwise.spring.cache;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.spi.KeyRules;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.support.AbstractValueAdaptingCache;

/**
 * A Spring {@link org.springframework.cache.Cache} over a Shardwise client: every entry is one key
 * on the fleet, on the server the router names for it.
 *
 * <p>A key on the fleet is {@code <prefix><generation>:<key>}: the cache's prefix (by default its
 * name and a colon), its {@link Generation}, and the cache key as text (a {@code String} as it is,
 * anything else by its {@code toString()}, which the key's type must override). A key the servers
 * cannot store as it is (memcached: over 250 bytes, whitespace, control characters) is stored under
 * the SHA-256 of its text instead. {@link #clear()} advances the generation, which clears the cache
 * on memcached and Redis alike, and only this cache. The generation is kept in counters on up to
 * three distinct servers ({@link #generationKeys()}), so that losing, hanging or readmitting one
 * server costs only that server's share of the cache's entries.
 *
 * <p>The async methods ({@link #retrieve(Object)}, {@link #retrieve(Object, Supplier)}) never
 * block; their futures complete, and value loaders run, on the common fork-join pool (as with
 * Spring's {@code ConcurrentMapCache}) or the executor given, never on the client's I/O threads:
 * Spring stores the value of a {@code CompletableFuture} method with a blocking {@link #put} in a
 * callback, which on an I/O thread would wait for a reply only that thread can read.
 *
 * <p>Null values are stored as Spring's {@code NullValue} when the cache allows them, and refused
 * otherwise, as {@link AbstractValueAdaptingCache} does. Values go through the client's codec: use
 * {@code spymemcached} or {@code java} (the defaults) for arbitrary {@code Serializable} values.
 */
public final class ShardwiseCache extends AbstractValueAdaptingCache {

  private static final int LOCK_STRIPES = 64;

  private final String name;
  private final AsyncCacheClient<Object> client;
  private final Duration ttl;
  private final String prefix;
  private final Generation generation;
  private final Executor callbacks;
  private final ReentrantLock[] locks = new ReentrantLock[LOCK_STRIPES];
  private final ConcurrentHashMap<String, CompletableFuture<Object>> loading =
      new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder removals = new LongAdder();
  private final LongAdder pending = new LongAdder();
  private final LongAdder lockWaitNanos = new LongAdder();

  /**
   * A cache named {@code name} over {@code client}.
   *
   * @param generationRefresh how long a generation read from the fleet is reused
   */
  public ShardwiseCache(
      String name,
      AsyncCacheClient<Object> client,
      CacheSettings.CacheSpec spec,
      Duration generationRefresh) {
    this(name, client, spec, generationRefresh, ForkJoinPool.commonPool());
  }

  /**
   * A cache whose async methods complete, and call their value loaders, on {@code callbacks}.
   *
   * @param callbacks runs what follows a reply: never the client's I/O threads, because Spring (and
   *     application code) may block in a callback, e.g. on a synchronous {@link #put}
   */
  public ShardwiseCache(
      String name,
      AsyncCacheClient<Object> client,
      CacheSettings.CacheSpec spec,
      Duration generationRefresh,
      Executor callbacks) {
    super(spec.cacheNullValues());
    this.callbacks = Objects.requireNonNull(callbacks, "callbacks");
    this.name = Objects.requireNonNull(name, "name");
    this.client = Objects.requireNonNull(client, "client");
    this.ttl = spec.ttl();
    this.prefix = spec.keyPrefix();
    this.generation = new Generation(client, prefix + "generation", generationRefresh);
    for (int i = 0; i < locks.length; i++) {
      locks[i] = new ReentrantLock();
    }
  }

  @Override
  public String getName() {
    return name;
  }

  /** The Shardwise client. */
  @Override
  public AsyncCacheClient<Object> getNativeCache() {
    return client;
  }

  /** Time to live of this cache's entries; zero for none. */
  public Duration ttl() {
    return ttl;
  }

  /** The text before every key of this cache on the fleet. */
  public String keyPrefix() {
    return prefix;
  }

  /**
   * The keys of the counters that hold this cache's generation, each on its own server (fewer than
   * three with fewer servers, or when a hash tag in the prefix pins every key to one server): e.g.
   * to ask the client which servers hold them.
   */
  public List<String> generationKeys() {
    return generation.replicas().stream().map(Generation.Replica::key).toList();
  }

  /** The key {@code key} has on the fleet now, e.g. to ask the client which server holds it. */
  public String storageKey(Object key) {
    return storageKey(await(generation.current()), key);
  }

  /** Reads of this cache that found a value (a stored null included), since it was created. */
  public long hitCount() {
    return hits.sum();
  }

  /** Reads of this cache that found nothing, since it was created. */
  public long missCount() {
    return misses.sum();
  }

  /**
   * Values stored in this cache ({@code put}, a stored load, a {@code putIfAbsent} that stored).
   */
  public long putCount() {
    return puts.sum();
  }

  /**
   * Calls of {@code evict} and {@code evictIfPresent} that completed, whether or not the key had a
   * value. A {@link #clear()} removes no key and is not counted.
   */
  public long removalCount() {
    return removals.sum();
  }

  /**
   * Gets under way: calls that have started to read and are not yet answered by a hit, a miss or a
   * failure (for example calls that wait for another call's load of their key).
   */
  public long pendingCount() {
    return pending.sum();
  }

  /**
   * Time that calls of {@link #get(Object, Callable)} have spent waiting for a key's lock, in total
   * since the cache was created: the lock held while one call loads a key's value, in this process.
   */
  public Duration lockWaitTime() {
    return Duration.ofNanos(lockWaitNanos.sum());
  }

  @Override
  protected @Nullable Object lookup(Object key) {
    pending.increment();
    return counted(readOrFail(key));
  }

  private @Nullable Object read(Object key) {
    long g = await(generation.current());
    return await(client.get(storageKey(g, key)));
  }

  /** {@link #read}; a failure answers the pending get. */
  private @Nullable Object readOrFail(Object key) {
    try {
      return read(key);
    } catch (RuntimeException | Error e) {
      pending.decrement();
      throw e;
    }
  }

  /** Answers a pending get with what it read: a hit, or a miss. */
  private @Nullable Object counted(@Nullable Object stored) {
    pending.decrement();
    (stored != null ? hits : misses).increment();
    return stored;
  }

  /** The stored value of {@code key}, read for a get now pending; a failed read answers it. */
  private CompletableFuture<@Nullable Object> storedForGet(Object key) {
    pending.increment();
    return stored(key)
        .whenComplete(
            (stored, failure) -> {
              if (failure != null) {
                pending.decrement();
              }
            });
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
    pending.increment();
    Object stored = readOrFail(key);
    if (stored != null) {
      return (T) fromStoreValue(counted(stored));
    }
    ReentrantLock lock = locks[Math.floorMod(keyText(key).hashCode(), LOCK_STRIPES)];
    if (!lock.tryLock()) {
      long start = System.nanoTime();
      lock.lock();
      lockWaitNanos.add(System.nanoTime() - start);
    }
    try {
      // One get of the caller counts once: a miss, or a hit if another thread loaded meanwhile.
      stored = counted(readOrFail(key));
      if (stored != null) {
        return (T) fromStoreValue(stored);
      }
      T value;
      try {
        value = valueLoader.call();
      } catch (Exception e) {
        throw new ValueRetrievalException(key, valueLoader, e);
      }
      put(key, value);
      return value;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public @Nullable CompletableFuture<?> retrieve(Object key) {
    return storedForGet(key)
        .thenApplyAsync(
            v ->
                counted(v) == null
                    ? null
                    : isAllowNullValues() ? toValueWrapper(v) : fromStoreValue(v),
            callbacks);
  }

  /**
   * The value of {@code key}, or else the value {@code valueLoader} produces, which is then stored.
   * Concurrent calls for one key in this process share one read and at most one load. Each call
   * counts one get, as {@link #get(Object, Callable)} counts it: the call that reads counts a hit or
   * a miss; a call that joins a read or load under way counts a hit once it completes with a value
   * (it did not load, as a blocking caller that waited for another's load finds the value), and
   * neither if it fails.
   */
  @Override
  @SuppressWarnings("unchecked")
  public <T> CompletableFuture<T> retrieve(Object key, Supplier<CompletableFuture<T>> valueLoader) {
    String text = keyText(key);
    CompletableFuture<Object> mine = new CompletableFuture<>();
    CompletableFuture<Object> running = loading.putIfAbsent(text, mine);
    if (running != null) {
      pending.increment();
      return (CompletableFuture<T>)
          running.whenComplete(
              (value, failure) -> {
                pending.decrement();
                if (failure == null) {
                  hits.increment();
                }
              });
    }
    storedForGet(key)
        .thenComposeAsync(
            stored ->
                counted(stored) != null
                    ? CompletableFuture.completedFuture(fromStoreValue(stored))
                    : valueLoader
                        .get()
                        .thenCompose(value -> putAsync(key, value).thenApply(x -> (Object) value)),
            callbacks)
        .whenCompleteAsync(
            (value, failure) -> {
              loading.remove(text, mine);
              if (failure != null) {
                mine.completeExceptionally(failure);
              } else {
                mine.complete(value);
              }
            },
            callbacks);
    return (CompletableFuture<T>) mine.thenApply(v -> v);
  }

  @Override
  public void put(Object key, @Nullable Object value) {
    await(putAsync(key, value));
  }

  /**
   * Stores {@code value} only if {@code key} has no value, and returns the value it has otherwise
   * (memcached {@code add}, Redis {@code SET NX}).
   */
  @Override
  public @Nullable ValueWrapper putIfAbsent(Object key, @Nullable Object value) {
    Object store = toStoreValue(value);
    for (int attempt = 0; attempt < 3; attempt++) {
      String k = storageKey(await(generation.current()), key);
      if (await(client.add(k, store, ttl))) {
        puts.increment();
        return null;
      }
      Object existing = await(client.get(k));
      if (existing != null) {
        return toValueWrapper(existing);
      }
      // Removed (or expired) between the add and the get: try again.
    }
    put(key, value);
    return null;
  }

  @Override
  public void evict(Object key) {
    evictIfPresent(key);
  }

  @Override
  public boolean evictIfPresent(Object key) {
    long g = await(generation.current());
    boolean removed = await(client.delete(storageKey(g, key)));
    removals.increment();
    return removed;
  }

  /** Clears this cache, and only this one, by moving it to a new generation. */
  @Override
  public void clear() {
    await(generation.advance());
  }

  /** {@link #clear()}; whether entries existed is unknown, so this returns false. */
  @Override
  public boolean invalidate() {
    clear();
    return false;
  }

  @Override
  public String toString() {
    return "ShardwiseCache[" + name + ", prefix '" + prefix + "', ttl " + ttl + "]";
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private CompletableFuture<@Nullable Object> stored(Object key) {
    return generation.current().thenCompose(g -> client.get(storageKey(g, key)));
  }

  private CompletableFuture<Void> putAsync(Object key, @Nullable Object value) {
    Object store = toStoreValue(value);
    return generation
        .current()
        .thenCompose(g -> client.set(storageKey(g, key), store, ttl))
        .thenRun(puts::increment);
  }

  String storageKey(long g, Object key) {
    String text = keyText(key);
    String full = prefix + g + ":" + text;
    try {
      KeyRules.MEMCACHED.validate(full);
      return full;
    } catch (IllegalArgumentException e) {
      return prefix + g + ":#" + sha256(text);
    }
  }

  /** The text form of a cache key. */
  static String keyText(Object key) {
    Objects.requireNonNull(key, "cache key");
    if (key instanceof String) {
      return (String) key;
    }
    try {
      Method toString = key.getClass().getMethod("toString");
      if (toString.getDeclaringClass() == Object.class) {
        throw new IllegalArgumentException(
            "cache keys need a text form, but "
                + key.getClass().getName()
                + " does not override toString();"
                + " give the cache annotation a key expression (key = \"#id\") or a KeyGenerator");
      }
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    return key.toString();
  }

  private static String sha256(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }

  /**
   * Waits for a client future (which completes within the client's timeout) and unwraps its
   * failure.
   */
  private static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the cache", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException(cause);
    }
  }
}
