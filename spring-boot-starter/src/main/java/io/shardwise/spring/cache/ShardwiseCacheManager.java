package io.shardwise.spring.cache;

import io.shardwise.client.AsyncCacheClient;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.transaction.TransactionAwareCacheDecorator;

/**
 * Spring's {@link CacheManager} over a Shardwise client: {@code @Cacheable}, {@code @CachePut} and
 * {@code @CacheEvict} work over the sharded fleet, on memcached and Redis. A cache is created the
 * first time it is named, with its settings from {@code shardwise.cache.caches.<name>.*} or the
 * defaults of {@code shardwise.cache.*}; the caches that have settings of their own, and those
 * named at start-up ({@link Builder#initialCacheNames}), are created at once.
 *
 * <p>When transaction-aware ({@link Builder#transactionAware}), every cache is wrapped in Spring's
 * {@link TransactionAwareCacheDecorator}: puts and evictions wait for the surrounding transaction
 * to commit, and are dropped if it rolls back. {@link #shardwiseCache(String)} gives the cache
 * under the decorator.
 */
public class ShardwiseCacheManager implements CacheManager {

  private final AsyncCacheClient<Object> client;
  private final CacheSettings settings;
  private final Map<String, CacheSettings.CacheSpec> specs;
  private final boolean transactionAware;
  private final List<Consumer<? super ShardwiseCache>> listeners;
  private final ConcurrentMap<String, ShardwiseCache> caches = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Cache> decorated = new ConcurrentHashMap<>();

  public ShardwiseCacheManager(AsyncCacheClient<Object> client, CacheSettings settings) {
    this(builder(client, settings));
  }

  private ShardwiseCacheManager(Builder builder) {
    this.client = builder.client;
    this.settings = builder.settings;
    this.specs = Map.copyOf(builder.specs);
    this.transactionAware = builder.transactionAware;
    this.listeners = List.copyOf(builder.listeners);
    if (transactionAware) {
      requireTransactionSupport();
    }
    settings.caches().keySet().forEach(this::shardwiseCache);
    builder.specs.keySet().forEach(this::shardwiseCache);
    builder.initialCacheNames.forEach(this::shardwiseCache);
  }

  private static void requireTransactionSupport() {
    for (String type :
        List.of(
            "org.springframework.cache.transaction.TransactionAwareCacheDecorator",
            "org.springframework.transaction.support.TransactionSynchronizationManager")) {
      try {
        Class.forName(type, false, ShardwiseCacheManager.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(
            "a transaction-aware cache manager (shardwise.cache.transaction-aware=true) needs "
                + type
                + ": add spring-context-support and spring-tx (spring-boot-starter-cache and any"
                + " Spring transaction manager bring them)",
            e);
      }
    }
  }

  /** A builder of a manager over {@code client} with {@code settings}. */
  public static Builder builder(AsyncCacheClient<Object> client, CacheSettings settings) {
    return new Builder(client, settings);
  }

  /**
   * The cache {@code name}, created if needed: a {@link ShardwiseCache}, wrapped in a {@link
   * TransactionAwareCacheDecorator} when the manager is transaction-aware.
   */
  @Override
  public Cache getCache(String name) {
    ShardwiseCache cache = shardwiseCache(name);
    return transactionAware
        ? decorated.computeIfAbsent(name, n -> new TransactionAwareCacheDecorator(cache))
        : cache;
  }

  /** The Shardwise cache {@code name}, created if needed, without any decorator. */
  public ShardwiseCache shardwiseCache(String name) {
    Objects.requireNonNull(name, "name");
    ShardwiseCache existing = caches.get(name);
    if (existing != null) {
      return existing;
    }
    ShardwiseCache[] created = {null};
    ShardwiseCache cache =
        caches.computeIfAbsent(
            name,
            n -> {
              CacheSettings.CacheSpec spec = specs.get(n);
              created[0] =
                  new ShardwiseCache(
                      n,
                      client,
                      spec != null ? spec : settings.forCache(n),
                      settings.generationRefresh());
              return created[0];
            });
    if (created[0] != null) {
      listeners.forEach(l -> l.accept(created[0]));
    }
    return cache;
  }

  @Override
  public Collection<String> getCacheNames() {
    return Collections.unmodifiableSet(caches.keySet());
  }

  /** The settings the caches are created with. */
  public CacheSettings settings() {
    return settings;
  }

  /** Whether caches are wrapped in {@link TransactionAwareCacheDecorator}. */
  public boolean isTransactionAware() {
    return transactionAware;
  }

  /**
   * Builds a {@link ShardwiseCacheManager}; the starter hands it to every {@code
   * ShardwiseCacheManagerBuilderCustomizer} bean before building.
   */
  public static final class Builder {
    private final AsyncCacheClient<Object> client;
    private final CacheSettings settings;
    private final Map<String, CacheSettings.CacheSpec> specs = new LinkedHashMap<>();
    private final Set<String> initialCacheNames = new LinkedHashSet<>();
    private final List<Consumer<? super ShardwiseCache>> listeners = new ArrayList<>();
    private boolean transactionAware;

    private Builder(AsyncCacheClient<Object> client, CacheSettings settings) {
      this.client = Objects.requireNonNull(client, "client");
      this.settings = Objects.requireNonNull(settings, "settings");
      this.transactionAware = settings.transactionAware();
    }

    /** The settings caches get unless {@link #withCacheConfiguration} gave them others. */
    public CacheSettings settings() {
      return settings;
    }

    /** Caches to create at start-up (more are still created when first named). */
    public Builder initialCacheNames(Collection<String> names) {
      names.forEach(n -> initialCacheNames.add(Objects.requireNonNull(n, "cache name")));
      return this;
    }

    /**
     * Cache {@code name} with {@code spec} rather than its settings from the properties, created at
     * start-up; start from {@code settings().forCache(name)} to change one setting.
     */
    public Builder withCacheConfiguration(String name, CacheSettings.CacheSpec spec) {
      specs.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(spec, "spec"));
      return this;
    }

    /** Whether puts and evictions wait for the surrounding transaction to commit. */
    public Builder transactionAware(boolean aware) {
      this.transactionAware = aware;
      return this;
    }

    /** Called once with each cache when it is created (e.g. to bind its meters). */
    public Builder onCacheCreated(Consumer<? super ShardwiseCache> listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    public ShardwiseCacheManager build() {
      return new ShardwiseCacheManager(this);
    }
  }
}
