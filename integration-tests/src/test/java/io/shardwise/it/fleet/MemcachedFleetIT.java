package io.shardwise.it.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client over 100 real memcached servers costs a fixed number of threads, about one file
 * descriptor per server, answers every key of a 10,000-key {@code getMulti}, and leaves no thread
 * behind once closed. Counts are exact; nothing here is timed.
 */
@Timeout(180)
class MemcachedFleetIT {

  static final int SERVERS = 100;

  /** Threads a memcached client may start, whatever the fleet size. */
  static final int MAX_CLIENT_THREADS = 20;

  /** File descriptors a client may open besides one per server (selector, jars, probes). */
  static final int FD_ALLOWANCE = 20;

  private static final int KEYS = 10_000;

  @RegisterExtension
  static final ServerFleet<MemcachedServer> FLEET =
      ServerFleet.memcachedBuilder().servers(SERVERS).memoryMegabytes(16).build();

  static AsyncCacheClient<String> client(int servers) {
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(
                MemcachedBackend.create(
                    MemcachedOptions.builder().operationTimeout(Duration.ofSeconds(2)).build()))
            .servers(String.join(",", FLEET.addresses().subList(0, servers)))
            .timeout(Duration.ofSeconds(3))
            .codec(Codecs.utf8())
            .build();
    awaitEveryNode(client);
    return client;
  }

  /** Every node answers a ping (the build already waited for the first connection attempts). */
  static void awaitEveryNode(AsyncCacheClient<?> client) {
    for (CompletableFuture<Duration> ping : client.pingAll().values()) {
      result(ping);
    }
  }

  static <T> T result(CompletableFuture<T> future) {
    try {
      return future.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void threadsStayFixedWhateverTheFleetSizeAndFdsGrowByOnePerServer() {
    ClientFootprint before = ClientFootprint.now();
    int smallFleetThreads;
    try (AsyncCacheClient<String> client = client(10)) {
      smallFleetThreads = before.newThreads().size();
      assertThat(client.nodes()).hasSize(10);
    }
    awaitNoThreadLeft(before);

    ClientFootprint start = ClientFootprint.now();
    try (AsyncCacheClient<String> client = client(SERVERS)) {
      assertThat(client.nodes()).hasSize(SERVERS);
      List<Thread> threads = start.newThreads();
      int fds = start.newFds();
      System.out.printf(
          "memcached client over %d servers: %d new threads (%d over 10 servers), %d new fds%n",
          SERVERS, threads.size(), smallFleetThreads, fds);
      assertThat(threads)
          .as("threads of a client over %d servers: %s", SERVERS, ClientFootprint.names(threads))
          .hasSizeLessThanOrEqualTo(MAX_CLIENT_THREADS);
      assertThat(threads.size())
          .as("threads over 100 servers against over 10: %s", ClientFootprint.names(threads))
          .isLessThanOrEqualTo(smallFleetThreads + 2);
      assertThat(fds).isBetween(SERVERS, SERVERS + FD_ALLOWANCE);
    }
    awaitNoThreadLeft(start);
    assertThat(start.newFds()).as("fds left open after close").isLessThanOrEqualTo(2);
  }

  @Test
  void everyKeyOfATenThousandKeyGetMultiIsCorrect() {
    FLEET.flushAll();
    try (AsyncCacheClient<String> client = client(SERVERS)) {
      Map<String, String> values = new LinkedHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        values.put("fleet:" + i, "value-" + i + "-" + Integer.toHexString(i * 31));
      }
      assertThat(result(client.setMulti(values, Duration.ZERO)).errors()).isEmpty();
      List<String> keys = new ArrayList<>(values.keySet());
      keys.add("fleet:absent");

      MultiResult<String> read = result(client.getMulti(keys));

      assertThat(read.errors()).isEmpty();
      assertThat(read.values()).isEqualTo(values);
      assertThat(read.misses()).containsExactly("fleet:absent");
    }
  }

  static void awaitNoThreadLeft(ClientFootprint before) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    List<Thread> left = before.newThreads();
    while (!left.isEmpty() && System.nanoTime() < deadline) {
      sleep(20);
      left = before.newThreads();
    }
    assertThat(left).as("threads left after close: %s", ClientFootprint.names(left)).isEmpty();
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
