package io.shardwise.benchmarks.e2e;

import io.shardwise.core.RouterSpec;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.redis.RedisBackend;
import io.shardwise.routing.Node;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The pairs the issue asks for. Each opens its peer (first) and Shardwise (second) on the same
 * server(s) with the same timeout; with {@code breakdown}, a third contender: Shardwise's backend
 * alone in the single-node scenarios, and bare spymemcached with one client per server (Shardwise's
 * layout) over several memcached nodes. Over several Redis nodes the peer already has Shardwise's
 * layout (bare Lettuce, a connection per server, one {@code MGET} per server), so there is no third
 * contender.
 */
enum Scenario {
  MEMCACHED_SYNC(
      "memcached-sync", "memcached sync get/set, 1 node", Workload.SYNC_GET_SET, 0.95, 1),
  MEMCACHED_ASYNC(
      "memcached-async", "memcached async batches of 100, 1 node", Workload.ASYNC_BATCH, 0.95, 1),
  REDIS_SYNC("redis-sync", "Redis sync get/set, 1 node", Workload.SYNC_GET_SET, 0.95, 1),
  REDIS_ASYNC("redis-async", "Redis async batches of 100, 1 node", Workload.ASYNC_BATCH, 0.95, 1),
  MEMCACHED_GET_MULTI(
      "memcached-getmulti", "memcached getMulti of 100 keys, 4 nodes", Workload.GET_MULTI, 1.15, 4),
  MEMCACHED_GET_MULTI_FLEET(
      "memcached-getmulti-100",
      "memcached getMulti of 1,000 keys, 100 nodes",
      Workload.GET_MULTI_LARGE,
      1.0,
      100),
  REDIS_GET_MULTI(
      "redis-getmulti", "Redis getMulti of 100 keys, 4 nodes", Workload.GET_MULTI, 1.0, 4),
  MEMCACHED_REPLICAS_SET(
      "memcached-replicas-set", "memcached sync set, 5 nodes, replicas 2 against 1", Workload.SYNC_SET, 0.8, 5),
  MEMCACHED_REPLICAS_GET(
      "memcached-replicas-get", "memcached sync get, 5 nodes, replicas 2 against 1", Workload.SYNC_GET, 0.95, 5),
  REDIS_REPLICAS_SET(
      "redis-replicas-set", "Redis sync set, 5 nodes, replicas 2 against 1", Workload.SYNC_SET, 0.8, 5),
  REDIS_REPLICAS_GET(
      "redis-replicas-get", "Redis sync get, 5 nodes, replicas 2 against 1", Workload.SYNC_GET, 0.95, 5),
  MEMCACHED_COPIES_SET(
      "memcached-copies-set",
      "bare spymemcached sync set, 5 nodes, 2 copies against 1",
      Workload.SYNC_SET,
      0.8,
      5),
  REDIS_COPIES_SET(
      "redis-copies-set", "bare Lettuce sync set, 5 nodes, 2 copies against 1", Workload.SYNC_SET, 0.8, 5),
  MEMCACHED_NEAR_ZIPF_099("memcached-near-zipf-0.99", "memcached, 3 nodes, Zipf 0.99", 0.99, 0),
  MEMCACHED_NEAR_ZIPF_11("memcached-near-zipf-1.1", "memcached, 3 nodes, Zipf 1.1", 1.1, 5.0),
  MEMCACHED_NEAR_UNIFORM("memcached-near-uniform", "memcached, 3 nodes, uniform", 0, 0.95),
  REDIS_NEAR_ZIPF_099("redis-near-zipf-0.99", "Redis, 3 nodes, Zipf 0.99", 0.99, 0),
  REDIS_NEAR_ZIPF_11("redis-near-zipf-1.1", "Redis, 3 nodes, Zipf 1.1", 1.1, 5.0),
  REDIS_NEAR_UNIFORM("redis-near-uniform", "Redis, 3 nodes, uniform", 0, 0.95);

  private final String id;
  private final String title;
  private final Workload workload;
  private final double target;
  private final int nodes;
  /** Near-cache scenarios: the Zipf exponent of the key stream, 0 for uniform; NaN otherwise. */
  private final double zipf;

  Scenario(String id, String title, Workload workload, double target, int nodes) {
    this.id = id;
    this.title = title;
    this.workload = workload;
    this.target = target;
    this.nodes = nodes;
    this.zipf = Double.NaN;
  }

  /**
   * A near-cache scenario on 3 nodes: sync gets and sets ({@code --get-percent} gets) of keys drawn
   * with Zipf exponent {@code zipf} (0: uniformly). Its target applies to Shardwise with a near
   * cache: against the bare client on a skewed stream, against Shardwise without the near cache on
   * the uniform one (where the near cache can only cost); 0 for none.
   */
  Scenario(String id, String title, double zipf, double target) {
    this.id = id;
    this.title = title;
    this.workload = Workload.SYNC_GET_SET;
    this.target = target;
    this.nodes = NEAR_NODES;
    this.zipf = zipf;
  }

  /** Servers of the near-cache scenarios. */
  static final int NEAR_NODES = 3;

  /** The contenders of one scenario and what their servers have counted so far. */
  record Setup(List<Contender> contenders, Supplier<Servers.Counters> serverCounters) {}

  String id() {
    return id;
  }

  String title() {
    return title;
  }

  Workload workload() {
    return workload;
  }

  /** The lowest acceptable Shardwise / peer ratio. */
  double target() {
    return target;
  }

  int nodes() {
    return nodes;
  }

  /**
   * Whether the scenario sets a bare client (first), Shardwise without a near cache (second) and
   * Shardwise with each near cache asked for (then) on a skewed or uniform key stream.
   */
  boolean comparesNearCache() {
    return !Double.isNaN(zipf);
  }

  /** Whether the near cache's target is against the bare client (skewed) or Shardwise (uniform). */
  boolean nearTargetAgainstBare() {
    return zipf > 0;
  }

  /** The key stream over {@code size} keys: Zipf or uniform for the near-cache scenarios. */
  KeyStream keys(int size, long seed) {
    return comparesNearCache() && zipf > 0 ? KeyStream.zipf(size, zipf, seed) : KeyStream.uniform(size);
  }

  boolean isRedis() {
    return this == REDIS_NEAR_ZIPF_099 || this == REDIS_NEAR_ZIPF_11 || this == REDIS_NEAR_UNIFORM
        || this == REDIS_SYNC || this == REDIS_ASYNC || this == REDIS_GET_MULTI || this == REDIS_REPLICAS_SET
        || this == REDIS_REPLICAS_GET || this == REDIS_COPIES_SET;
  }

  /**
   * Whether the scenario sets a bare client writing each key to two servers (second) against the
   * same client writing it to one (first), with no Shardwise: what the second request costs the
   * machine by itself, the yardstick for the replicas scenarios' ratio.
   */
  boolean comparesBareCopies() {
    return this == MEMCACHED_COPIES_SET || this == REDIS_COPIES_SET;
  }

  /**
   * Whether the scenario sets Shardwise with two replicas per key (second) against Shardwise with
   * one (first), on the same servers: the cost of storing every key twice. The data set is written
   * through the second, so that both find every key on every replica.
   */
  boolean comparesReplicas() {
    return this == MEMCACHED_REPLICAS_SET || this == MEMCACHED_REPLICAS_GET || this == REDIS_REPLICAS_SET
        || this == REDIS_REPLICAS_GET;
  }

  /** The scenario with this id. */
  static Scenario of(String id) {
    for (Scenario s : values()) {
      if (s.id.equals(id.strip())) {
        return s;
      }
    }
    List<String> ids = new ArrayList<>();
    for (Scenario s : values()) {
      ids.add(s.id);
    }
    throw new IllegalArgumentException("unknown scenario '" + id + "'; expected one of " + ids);
  }

  /** Opens the peer, Shardwise and, with {@code breakdown}, the third contender (see above). */
  Setup open(Servers servers, Duration timeout, boolean breakdown) {
    return open(servers, timeout, breakdown, List.of());
  }

  /**
   * As above; a near-cache scenario also opens Shardwise with each of {@code nearCaches} (after
   * the bare client and Shardwise without one). memcached's bare client is spymemcached's ketama
   * client over the 3 servers, Shardwise's router ketama in spymemcached mode, so that both place
   * every key alike; Redis's is bare Lettuce with a connection per server, keys placed by the
   * default router on both sides.
   */
  Setup open(Servers servers, Duration timeout, boolean breakdown, List<NearVariant> nearCaches) {
    List<Contender> contenders = new ArrayList<>();
    try {
      if (comparesNearCache() && isRedis()) {
        List<RedisServer> fleet = servers.redis(nodes);
        List<InetSocketAddress> addresses = fleet.stream().map(RedisServer::socketAddress).toList();
        String list = Servers.serverList(fleet);
        contenders.add(new LettucePerNodeContender(addresses, RouterSpec.DEFAULT, timeout));
        contenders.add(ShardwiseContender.redis(list, timeout));
        for (NearVariant v : nearCaches) {
          contenders.add(
              ShardwiseContender.near(
                  v.label(), ShardwiseContender.redisBackend(timeout), list, RouterSpec.DEFAULT, v.options(), timeout));
        }
        return new Setup(contenders, () -> Servers.redisCounters(fleet));
      }
      if (comparesNearCache()) {
        List<MemcachedServer> fleet = servers.memcached(nodes);
        List<InetSocketAddress> addresses = fleet.stream().map(MemcachedServer::socketAddress).toList();
        String list = Servers.serverList(fleet);
        RouterSpec ketama = RouterSpec.of("ketama").withKetamaCompatibility("spymemcached");
        contenders.add(SpymemcachedContender.ketama(addresses, timeout));
        contenders.add(ShardwiseContender.memcached(list, ketama, timeout));
        for (NearVariant v : nearCaches) {
          contenders.add(
              ShardwiseContender.near(
                  v.label(), ShardwiseContender.memcachedBackend(timeout), list, ketama, v.forMemcached(), timeout));
        }
        return new Setup(contenders, () -> Servers.memcachedCounters(fleet));
      }
      if (comparesBareCopies() && isRedis()) {
        List<InetSocketAddress> addresses = servers.redis(nodes).stream().map(RedisServer::socketAddress).toList();
        contenders.add(new LettucePerNodeContender(addresses, RouterSpec.DEFAULT, timeout, 1));
        contenders.add(new LettucePerNodeContender(addresses, RouterSpec.DEFAULT, timeout, 2));
        List<RedisServer> fleet = servers.redis(nodes);
        return new Setup(contenders, () -> Servers.redisCounters(fleet));
      }
      if (comparesBareCopies()) {
        List<MemcachedServer> fleet = servers.memcached(nodes);
        List<InetSocketAddress> addresses = fleet.stream().map(MemcachedServer::socketAddress).toList();
        contenders.add(new SpymemcachedPerNodeContender(addresses, timeout, 1));
        contenders.add(new SpymemcachedPerNodeContender(addresses, timeout, 2));
        return new Setup(contenders, () -> Servers.memcachedCounters(fleet));
      }
      if (comparesReplicas() && isRedis()) {
        List<RedisServer> fleet = servers.redis(nodes);
        contenders.add(ShardwiseContender.replicated(ShardwiseContender.redisBackend(timeout), Servers.serverList(fleet), 1, timeout));
        contenders.add(ShardwiseContender.replicated(ShardwiseContender.redisBackend(timeout), Servers.serverList(fleet), 2, timeout));
        return new Setup(contenders, () -> Servers.redisCounters(fleet));
      }
      if (comparesReplicas()) {
        List<MemcachedServer> fleet = servers.memcached(nodes);
        contenders.add(
            ShardwiseContender.replicated(ShardwiseContender.memcachedBackend(timeout), Servers.serverList(fleet), 1, timeout));
        contenders.add(
            ShardwiseContender.replicated(ShardwiseContender.memcachedBackend(timeout), Servers.serverList(fleet), 2, timeout));
        return new Setup(contenders, () -> Servers.memcachedCounters(fleet));
      }
      if (isRedis() && nodes > 1) {
        List<RedisServer> fleet = servers.redis(nodes);
        List<InetSocketAddress> addresses = fleet.stream().map(RedisServer::socketAddress).toList();
        contenders.add(new LettucePerNodeContender(addresses, RouterSpec.DEFAULT, timeout));
        contenders.add(
            ShardwiseContender.redis(Servers.serverList(fleet), RouterSpec.DEFAULT, timeout));
        return new Setup(contenders, () -> Servers.redisCounters(fleet));
      }
      if (isRedis()) {
        RedisServer server = servers.redis();
        contenders.add(new LettuceContender(server.host(), server.port(), timeout));
        contenders.add(ShardwiseContender.redis(server.address(), timeout));
        if (breakdown) {
          RedisBackend backend = ShardwiseContender.redisBackend(timeout);
          contenders.add(
              new BackendContender(backend, backend.connect(Node.of(server.host(), server.port()))));
        }
        return new Setup(contenders, () -> Servers.redisCounters(List.of(server)));
      }
      List<MemcachedServer> fleet = servers.memcached(nodes);
      if (nodes == 1) {
        MemcachedServer server = fleet.get(0);
        contenders.add(SpymemcachedContender.single(server.socketAddress(), timeout));
        contenders.add(ShardwiseContender.memcached(server.address(), RouterSpec.DEFAULT, timeout));
        if (breakdown) {
          MemcachedBackend backend = ShardwiseContender.memcachedBackend(timeout);
          contenders.add(
              new BackendContender(backend, backend.connect(Node.of(server.host(), server.port()))));
        }
      } else {
        List<InetSocketAddress> addresses = fleet.stream().map(MemcachedServer::socketAddress).toList();
        contenders.add(SpymemcachedContender.ketama(addresses, timeout));
        contenders.add(
            ShardwiseContender.memcached(
                Servers.serverList(fleet),
                RouterSpec.of("ketama").withKetamaCompatibility("spymemcached"),
                timeout));
        if (breakdown) {
          contenders.add(new SpymemcachedPerNodeContender(addresses, timeout));
        }
      }
      return new Setup(contenders, () -> Servers.memcachedCounters(fleet));
    } catch (RuntimeException e) {
      contenders.forEach(Contender::close);
      throw e;
    }
  }
}
