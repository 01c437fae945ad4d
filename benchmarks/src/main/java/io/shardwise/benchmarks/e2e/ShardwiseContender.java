package io.shardwise.benchmarks.e2e;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeEventListener;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.memcached.MemcachedProtocol;
import io.shardwise.redis.RedisBackend;
import io.shardwise.redis.RedisBackendOptions;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.LongAdder;

/**
 * A Shardwise client built the documented way ({@code ShardwiseClient.builder()}) with the
 * {@code bytes} codec; sync calls go through its {@link AsyncCacheClient#sync()} view.
 */
final class ShardwiseContender implements Contender {

  private final String name;
  private final AsyncCacheClient<byte[]> async;
  private final CacheClient<byte[]> sync;
  private final Watch watch;

  private ShardwiseContender(String name, AsyncCacheClient<byte[]> client, Watch watch) {
    this.name = name;
    this.async = client;
    this.sync = client.sync();
    this.watch = watch;
  }

  /**
   * Counts what the routing client did on its own: node state changes, requests redirected away
   * from their primary, and node requests that failed. A node ejected during a run sends its keys
   * to their next nodes, where they read as misses without any error reaching the caller; these
   * counts tell such a round apart. Costs a null check per request on the success path.
   */
  private static final class Watch implements NodeEventListener, ClientMetrics {
    final LongAdder events = new LongAdder();
    final LongAdder redirected = new LongAdder();
    final LongAdder failed = new LongAdder();
    /** Keys read from servers (hits and misses): what the near cache did not answer. */
    final LongAdder serverReads = new LongAdder();
    volatile String lastEvent = "";

    @Override
    public void onEvent(NodeEvent event) {
      events.increment();
      lastEvent = event.node().name() + " " + event.from() + " -> " + event.to();
    }

    @Override
    public void request(Node node, String operation, long latencyNanos, Throwable failure) {
      if (failure != null) {
        failed.increment();
      }
    }

    @Override
    public void reads(Node node, int hits, int misses) {
      serverReads.add(hits + misses);
    }

    @Override
    public void redirected(Node primary, Node to, String reason) {
      redirected.increment();
    }

    String drain() {
      long e = events.sumThenReset();
      long r = redirected.sumThenReset();
      long f = failed.sumThenReset();
      if (e == 0 && r == 0 && f == 0) {
        return "";
      }
      return "node events "
          + e
          + (e == 0 ? "" : " (last: " + lastEvent + ")")
          + ", redirected requests "
          + r
          + ", failed node requests "
          + f;
    }
  }

  /** The memcached backend every Shardwise contender uses: text protocol, the given timeout. */
  static MemcachedBackend memcachedBackend(Duration timeout) {
    return MemcachedBackend.create(
        MemcachedOptions.builder().protocol(MemcachedProtocol.TEXT).operationTimeout(timeout).build());
  }

  /** The Redis backend every Shardwise contender uses: the given timeout. */
  static RedisBackend redisBackend(Duration timeout) {
    return RedisBackend.create(RedisBackendOptions.builder().commandTimeout(timeout).build());
  }

  /** memcached (text protocol) on {@code servers} ({@code host:port, ...}) with {@code router}. */
  static ShardwiseContender memcached(String servers, RouterSpec router, Duration timeout) {
    return open("Shardwise " + router, memcachedBackend(timeout), servers, router, timeout);
  }

  /** Redis on {@code servers} with the default router. */
  static ShardwiseContender redis(String servers, Duration timeout) {
    return open("Shardwise", redisBackend(timeout), servers, RouterSpec.DEFAULT, timeout);
  }

  /** Redis on {@code servers} ({@code host:port, ...}) with {@code router}. */
  static ShardwiseContender redis(String servers, RouterSpec router, Duration timeout) {
    return open("Shardwise " + router, redisBackend(timeout), servers, router, timeout);
  }

  /**
   * {@code backend} on {@code servers} with {@code router} and the near cache {@code near},
   * labelled {@code name}.
   */
  static ShardwiseContender near(
      String name, Backend backend, String servers, RouterSpec router, NearCacheOptions near, Duration timeout) {
    return open(name, backend, servers, router, 1, near, timeout);
  }

  /**
   * Repair of lost replica copies: on (the default) unless {@code -Dbench.replica-repair=false},
   * to measure what it costs.
   */
  private static final io.shardwise.core.ReplicaRepair REPAIR =
      Boolean.parseBoolean(System.getProperty("bench.replica-repair", "true"))
          ? io.shardwise.core.ReplicaRepair.defaults()
          : io.shardwise.core.ReplicaRepair.off();

  /** {@code backend} on {@code servers} with the default router, each key on {@code replicas} servers. */
  static ShardwiseContender replicated(Backend backend, String servers, int replicas, Duration timeout) {
    return open("Shardwise replicas " + replicas, backend, servers, RouterSpec.DEFAULT, replicas, timeout);
  }

  private static ShardwiseContender open(
      String name, Backend backend, String servers, RouterSpec router, Duration timeout) {
    return open(name, backend, servers, router, 1, timeout);
  }

  private static ShardwiseContender open(
      String name, Backend backend, String servers, RouterSpec router, int replicas, Duration timeout) {
    return open(name, backend, servers, router, replicas, NearCacheOptions.off(), timeout);
  }

  private static ShardwiseContender open(
      String name,
      Backend backend,
      String servers,
      RouterSpec router,
      int replicas,
      NearCacheOptions near,
      Duration timeout) {
    Watch watch = new Watch();
    AsyncCacheClient<byte[]> client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers(servers)
            .router(router)
            .replicas(replicas)
            .replicaRepair(REPAIR)
            .timeout(timeout)
            .listener(watch)
            .metrics(watch)
            .codec(Codecs.bytes())
            .nearCache(near)
            .build();
    return new ShardwiseContender(name, client, watch);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public byte[] get(String key) {
    return sync.get(key);
  }

  @Override
  public void set(String key, byte[] value) {
    sync.set(key, value, Duration.ZERO);
  }

  @Override
  public Future<?> getAsync(String key) {
    return async.get(key);
  }

  @Override
  public Future<?> setAsync(String key, byte[] value) {
    return async.set(key, value, Duration.ZERO);
  }

  @Override
  public Map<String, ?> getMulti(List<String> keys) {
    return sync.getMulti(keys).valuesOrThrow();
  }

  @Override
  public Optional<String> serverOf(String key) {
    return Optional.of(async.nodeFor(key).address());
  }

  @Override
  public long serverGets() {
    return watch.serverReads.sum();
  }

  @Override
  public String drainEvents() {
    return watch.drain();
  }

  @Override
  public void close() {
    async.close();
  }
}
