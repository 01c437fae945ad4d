package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.memcached.MemcachedProtocol;
import io.shardwise.redis.RedisBackend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The value size limits at their boundary, on real servers: memcached's item size (read from each
 * server) and Redis' {@code proto-max-bulk-len} (read from each server). The largest value accepted is stored, the smallest
 * refused fails at the call with an {@link IllegalArgumentException} and sends nothing (the
 * server's command counters do not move), and the key's previous value survives.
 */
@Timeout(60)
class LimitsIT {

  /** memcached's defaults: {@code -I 1m} with CAS. */
  @RegisterExtension
  static final ServerFleet<MemcachedServer> DEFAULT_MEMCACHED = ServerFleet.memcached(1);

  /** A larger item size without CAS: the client must read both from the server. */
  @RegisterExtension
  static final ServerFleet<MemcachedServer> LARGE_MEMCACHED =
      ServerFleet.memcachedBuilder().servers(1).extraArgs("-I", "2m", "-C").build();

  /** The smallest bulk length Redis allows, so that the boundary is cheap to test. */
  @RegisterExtension
  static final ServerFleet<RedisServer> SMALL_BULK_REDIS =
      ServerFleet.redisBuilder().servers(1).extraArgs("--proto-max-bulk-len", "1mb").build();

  /** Byte arrays stored with the given flags, as they are. */
  private static ValueCodec<byte[]> flagged(int flags) {
    return new ValueCodec<>() {
      @Override
      public String name() {
        return "bytes with flags " + flags;
      }

      @Override
      public CachedValue encode(byte[] value) {
        return CachedValue.of(value, flags);
      }

      @Override
      public byte[] decode(CachedValue stored) {
        return stored.bytes();
      }
    };
  }

  private static byte[] random(int length) {
    byte[] b = new byte[length];
    new Random(length).nextBytes(b);
    return b;
  }

  private static long stat(MemcachedServer server, String name) {
    return Long.parseLong(server.stats().get(name));
  }

  /**
   * The item size rule measured on memcached 1.6.18: item_size_max - 48 (header) - key - 1 - 2
   * (CRLF) - 8 (CAS, unless -C) - 4 (flags, unless 0).
   */
  @ParameterizedTest(name = "{0} protocol, {1}-byte key, flags {2}, -I {3}")
  @CsvSource({
    "TEXT, 1, 0, 1m, 1048516",
    "TEXT, 1, 7, 1m, 1048512",
    "TEXT, 250, 0, 1m, 1048267",
    "BINARY, 1, 7, 1m, 1048512",
    "BINARY, 250, 0, 1m, 1048267",
    "TEXT, 1, 0, 2m, 2097100",
    "BINARY, 250, 7, 2m, 2096847",
  })
  void memcachedStoresTheLargestValueAcceptedAndNeverSeesTheSmallestRefused(
      MemcachedProtocol protocol, int keyBytes, int flags, String itemSize, int largest) {
    ServerFleet<MemcachedServer> fleet = itemSize.equals("1m") ? DEFAULT_MEMCACHED : LARGE_MEMCACHED;
    // No flush_all: without CAS, memcached hides items stored in the second of a flush.
    MemcachedServer server = fleet.server(0);
    String key = "k".repeat(keyBytes);
    MemcachedBackend backend =
        MemcachedBackend.create(
            MemcachedOptions.builder()
                .protocol(protocol)
                .operationTimeout(CacheFleet.BACKEND_TIMEOUT)
                .build());
    try (AsyncCacheClient<byte[]> client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers(server.address())
            .timeout(CacheFleet.CLIENT_TIMEOUT)
            .codec(flagged(flags))
            .build()) {
      // build() has waited for the server's settings.
      assertThat(backend.maxValueBytes(key, flags)).isEqualTo(largest);

      byte[] fits = random(largest);
      client.sync().set(key, fits, Duration.ZERO);
      assertThat(server.get(key).value()).isEqualTo(fits);
      assertThat(server.get(key).flags()).isEqualTo(flags);

      byte[] previous = random(10);
      client.sync().set(key, previous, Duration.ZERO);
      long setsBefore = stat(server, "cmd_set");
      assertThatThrownBy(() -> client.set(key, random(largest + 1), Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith(
              "memcached stores values of at most "
                  + largest
                  + " bytes under a "
                  + keyBytes
                  + "-byte key with flags "
                  + (flags == 0 ? "0" : "not 0"))
          .hasMessageEndingWith("got " + (largest + 1) + " for " + (keyBytes == 1 ? key : "k".repeat(32) + "...kkkkkk"));
      assertThatThrownBy(() -> client.add(key, random(largest + 1), Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(stat(server, "cmd_set")).as("sets that reached the server").isEqualTo(setsBefore);
      assertThat(server.get(key).value()).isEqualTo(previous);
    }
  }

  private static long redisSets(RedisServer server) {
    String set = server.info("commandstats").get("cmdstat_set");
    if (set == null) {
      return 0;
    }
    // calls=N,usec=...
    return Long.parseLong(set.substring("calls=".length(), set.indexOf(',')));
  }

  @Test
  void redisStoresAValueOfExactlyProtoMaxBulkLenAndNeverSeesALongerOne() {
    RedisServer server = SMALL_BULK_REDIS.server(0);
    server.flushAll();
    RedisBackend redis = CacheFleet.plainRedisBackend();
    try (AsyncCacheClient<byte[]> client =
        CacheFleet.ready(
            ShardwiseClient.builder()
                .backend(redis)
                .servers(server.address())
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .codec(flagged(0))
                .build())) {
      assertThat(redis.maxValueBytes()).as("read by build()").isEqualTo(1 << 20);
      String key = "bulk";
      byte[] fits = random(1 << 20);
      client.sync().set(key, fits, Duration.ZERO);
      assertThat(server.get(key)).isEqualTo(fits);

      byte[] previous = random(10);
      client.sync().set(key, previous, Duration.ZERO);
      long setsBefore = redisSets(server);
      assertThat(setsBefore).as("the client's writes are SET commands").isPositive();
      assertThatThrownBy(() -> client.set(key, random((1 << 20) + 1), Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage(
              "Redis accepts values of at most 1048576 bytes (proto-max-bulk-len of "
                  + server.address()
                  + "); got 1048577 for bulk");
      assertThat(redisSets(server)).as("SETs that reached the server").isEqualTo(setsBefore);
      assertThat(server.get(key)).isEqualTo(previous);
    }
  }
}
