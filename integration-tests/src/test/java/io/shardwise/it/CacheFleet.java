package io.shardwise.it;

import static org.assertj.core.api.Assertions.fail;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.redis.RedisBackend;
import io.shardwise.redis.RedisBackendOptions;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.testing.MemcachedItem;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * One fleet of real servers seen the same way whatever their kind: how to build a Shardwise client
 * over it, and raw access to each server that bypasses that client. Lets one test run against
 * memcached and Redis alike.
 */
abstract class CacheFleet {

  /**
   * Per-request timeout of the clients under test: generous, because other builds share this 2-core
   * machine; failures that should be fast are asserted separately.
   */
  static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(2);

  /** The backends' own request timeout, below the client's so the backend's exception shows. */
  static final Duration BACKEND_TIMEOUT = Duration.ofMillis(1500);

  /** How long a new client may take until every node answers a ping. */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(15);

  static CacheFleet memcached(ServerFleet<MemcachedServer> fleet) {
    return new Memcached(fleet);
  }

  static CacheFleet redis(ServerFleet<RedisServer> fleet) {
    return new Redis(fleet);
  }

  /** {@code memcached} or {@code redis}. */
  abstract String kind();

  abstract ServerFleet<? extends ServerHandle> fleet();

  /** A new backend of this kind with the generous test timeouts. */
  abstract Backend newBackend();

  /** The values among {@code keys} that server {@code index} holds, read without the client. */
  abstract Map<String, byte[]> rawGetAll(int index, Collection<String> keys);

  /** Writes {@code values} to server {@code index} without the client (flags 0 for memcached). */
  abstract void rawSetAll(int index, Map<String, byte[]> values);

  /**
   * Seconds until {@code key} on server {@code index} expires, read without the client: -1 for no
   * expiry, null when absent.
   */
  abstract Long rawSecondsToExpiry(int index, String key);

  /**
   * What server {@code index} has done and holds, read without the client, in a form that stays
   * equal as long as no request of a client reaches the server (memcached: command counters and
   * items ever stored, not the current item count, which the LRU crawler lowers in the background
   * as it reclaims flushed items; Redis: command statistics other than INFO, and the keyspace).
   */
  abstract Map<String, String> rawActivity(int index);

  final int size() {
    return fleet().size();
  }

  final ServerHandle server(int index) {
    return fleet().server(index);
  }

  /** The server list of the first {@code count} servers, as the client's builder reads it. */
  final String serverList(int count) {
    return fleet().addresses().subList(0, count).stream().collect(Collectors.joining(","));
  }

  /** Index in the fleet of the server behind {@code node}. */
  final int indexOf(Node node) {
    List<String> addresses = fleet().addresses();
    int index = addresses.indexOf(node.address());
    if (index < 0) {
      throw new IllegalArgumentException(node + " is not a server of " + fleet());
    }
    return index;
  }

  /** A builder over the first {@code count} servers with this kind's backend and test timeouts. */
  final ClientBuilder<Object> builder(int count) {
    return ShardwiseClient.builder()
        .backend(newBackend())
        .servers(serverList(count))
        .timeout(CLIENT_TIMEOUT);
  }

  /** Restarts killed servers and empties all of them. */
  final void reset() {
    fleet().restoreAll();
    fleet().flushAll();
  }

  /**
   * Waits until every node of {@code client} answers a ping through the client: a Redis connection
   * is made in the background after {@code build()}.
   */
  static <V> AsyncCacheClient<V> ready(AsyncCacheClient<V> client) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      Map<Node, CompletableFuture<Duration>> pings = client.pingAll();
      Map<Node, Throwable> failed = new HashMap<>();
      for (Map.Entry<Node, CompletableFuture<Duration>> ping : pings.entrySet()) {
        try {
          ping.getValue().get(CLIENT_TIMEOUT.toMillis() * 2, TimeUnit.MILLISECONDS);
        } catch (Exception e) {
          failed.put(ping.getKey(), e);
        }
      }
      if (failed.isEmpty()) {
        return client;
      }
      if (System.nanoTime() > deadline) {
        fail("nodes did not answer within " + READY_TIMEOUT + ": " + failed);
      }
      sleep(50);
    }
  }

  /**
   * The Redis backend as it is, with the test timeouts, connecting in the background: {@link
   * #newBackend()} wraps it in a {@link ConnectedBackend} for Redis.
   */
  static RedisBackend plainRedisBackend() {
    return RedisBackend.create(
        RedisBackendOptions.builder()
            .commandTimeout(BACKEND_TIMEOUT)
            .reconnectDelay(Duration.ofMillis(100), Duration.ofSeconds(1))
            .build());
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return kind();
  }

  private static final class Memcached extends CacheFleet {
    private final ServerFleet<MemcachedServer> fleet;

    Memcached(ServerFleet<MemcachedServer> fleet) {
      this.fleet = fleet;
    }

    @Override
    String kind() {
      return "memcached";
    }

    @Override
    ServerFleet<MemcachedServer> fleet() {
      return fleet;
    }

    @Override
    Backend newBackend() {
      return MemcachedBackend.create(
          MemcachedOptions.builder()
              .operationTimeout(BACKEND_TIMEOUT)
              .maxReconnectDelay(Duration.ofSeconds(1))
              .build());
    }

    @Override
    Map<String, byte[]> rawGetAll(int index, Collection<String> keys) {
      try (RawMemcached raw = RawMemcached.to(fleet.server(index))) {
        Map<String, byte[]> values = new HashMap<>();
        for (Map.Entry<String, MemcachedItem> e : raw.getAll(keys).entrySet()) {
          values.put(e.getKey(), e.getValue().value());
        }
        return values;
      }
    }

    @Override
    void rawSetAll(int index, Map<String, byte[]> values) {
      try (RawMemcached raw = RawMemcached.to(fleet.server(index))) {
        raw.setAll(values, 0);
      }
    }

    @Override
    Map<String, String> rawActivity(int index) {
      Map<String, String> stats = fleet.server(index).stats();
      Map<String, String> activity = new TreeMap<>();
      for (Map.Entry<String, String> e : stats.entrySet()) {
        String name = e.getKey();
        if (name.startsWith("cmd_")
            || name.startsWith("get_")
            || name.startsWith("delete_")
            || name.startsWith("incr_")
            || name.startsWith("decr_")
            || name.startsWith("touch_")
            || name.startsWith("cas_")
            || name.equals("total_items")) {
          activity.put(name, e.getValue());
        }
      }
      return activity;
    }

    @Override
    Long rawSecondsToExpiry(int index, String key) {
      try (RawMemcached raw = RawMemcached.to(fleet.server(index))) {
        return raw.secondsToExpiry(key);
      }
    }
  }

  private static final class Redis extends CacheFleet {
    private final ServerFleet<RedisServer> fleet;

    Redis(ServerFleet<RedisServer> fleet) {
      this.fleet = fleet;
    }

    @Override
    String kind() {
      return "redis";
    }

    @Override
    ServerFleet<RedisServer> fleet() {
      return fleet;
    }

    @Override
    Backend newBackend() {
      return new ConnectedBackend(plainRedisBackend(), READY_TIMEOUT);
    }

    @Override
    Map<String, byte[]> rawGetAll(int index, Collection<String> keys) {
      try (RawRedis raw = RawRedis.to(fleet.server(index))) {
        return raw.getAll(keys);
      }
    }

    @Override
    void rawSetAll(int index, Map<String, byte[]> values) {
      try (RawRedis raw = RawRedis.to(fleet.server(index))) {
        raw.setAll(values);
      }
    }

    @Override
    Map<String, String> rawActivity(int index) {
      Map<String, String> activity = new TreeMap<>();
      try (RawRedis raw = RawRedis.to(fleet.server(index))) {
        raw.info("commandstats").forEach(activity::put);
        raw.info("keyspace").forEach(activity::put);
      }
      activity.remove("cmdstat_info"); // the raw reads themselves
      return activity;
    }

    @Override
    Long rawSecondsToExpiry(int index, String key) {
      long ttl = (Long) fleet.server(index).command("TTL", key);
      return ttl == -2 ? null : ttl;
    }
  }
}
