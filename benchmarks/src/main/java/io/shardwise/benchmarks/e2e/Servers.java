package io.shardwise.benchmarks.e2e;

import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import io.shardwise.testing.ServerMode;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The servers the scenarios share, started on first use as local processes on loopback
 * ({@code test-servers} defaults: memcached {@code -t 2 -m 64}, Redis without persistence) and
 * stopped by {@link #close()}. Local processes rather than Docker: a container's port proxy would
 * add a hop to both sides and noise to the ratio.
 */
final class Servers implements AutoCloseable {

  private final java.util.Map<Integer, ServerFleet<MemcachedServer>> memcached =
      new java.util.TreeMap<>();
  private final java.util.Map<Integer, ServerFleet<RedisServer>> redis =
      new java.util.TreeMap<>();

  /**
   * A memcached fleet of {@code count} servers, started at the first call. Fleets of more than 4
   * get 16 MB each ({@code -m 16}), which the data set fits in many times over.
   */
  synchronized List<MemcachedServer> memcached(int count) {
    ServerFleet<MemcachedServer> fleet = memcached.get(count);
    if (fleet == null) {
      ServerFleet.Builder<MemcachedServer> builder = ServerFleet.memcachedBuilder().servers(count);
      fleet = start(count > 4 ? builder.memoryMegabytes(16) : builder);
      memcached.put(count, fleet);
    }
    return fleet.servers();
  }

  /** The single Redis server of the one-node scenarios, started at the first call. */
  synchronized RedisServer redis() {
    return redis(1).get(0);
  }

  /** A Redis fleet of {@code count} servers, started at the first call. */
  synchronized List<RedisServer> redis(int count) {
    ServerFleet<RedisServer> fleet = redis.get(count);
    if (fleet == null) {
      fleet = start(ServerFleet.redisBuilder().servers(count));
      redis.put(count, fleet);
    }
    return fleet.servers();
  }

  private static <S extends ServerHandle> ServerFleet<S> start(ServerFleet.Builder<S> builder) {
    return builder.mode(ServerMode.LOCAL).build().start();
  }

  /** {@code host:port, host:port, ...} of {@code servers}, in order. */
  static String serverList(List<? extends ServerHandle> servers) {
    return servers.stream().map(ServerHandle::address).collect(Collectors.joining(", "));
  }

  /**
   * What servers counted so far: commands, and bytes received (which tells one request for many
   * keys from one request per key).
   */
  record Counters(long commands, long bytesIn) {
    Counters minus(Counters before) {
      return new Counters(commands - before.commands, bytesIn - before.bytesIn);
    }
  }

  /** Gets and sets ({@code cmd_get} counts keys) and {@code bytes_read} of memcached servers. */
  static Counters memcachedCounters(List<MemcachedServer> servers) {
    long commands = 0;
    long bytes = 0;
    for (MemcachedServer server : servers) {
      Map<String, String> stats = server.stats();
      commands += Long.parseLong(stats.get("cmd_get")) + Long.parseLong(stats.get("cmd_set"));
      bytes += Long.parseLong(stats.get("bytes_read"));
    }
    return new Counters(commands, bytes);
  }

  /**
   * Commands processed ({@code MGET} counts once, however many keys) and bytes received by Redis
   * servers.
   */
  static Counters redisCounters(List<RedisServer> servers) {
    long commands = 0;
    long bytes = 0;
    for (RedisServer server : servers) {
      Map<String, String> stats = server.info("stats");
      commands += Long.parseLong(stats.get("total_commands_processed"));
      bytes += Long.parseLong(stats.get("total_net_input_bytes"));
    }
    return new Counters(commands, bytes);
  }

  @Override
  public synchronized void close() {
    List<ServerFleet<?>> fleets = new java.util.ArrayList<>(memcached.values());
    fleets.addAll(redis.values());
    for (ServerFleet<?> fleet : fleets) {
      if (fleet != null) {
        fleet.close();
      }
    }
  }
}
