package io.shardwise.it;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.memcached.MemcachedOptions;
import io.shardwise.spi.Backend;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The writer process of {@link NearCacheStalenessIT}: a Shardwise client without a near cache
 * that writes {@code key|version} to keys {@code 0..keys-1} in turn, at a given rate, and records
 * each confirmed write (the {@code set} returned) with its time in {@link ConfirmedVersions}.
 * Writes version 1 of every key first and prints {@code READY}; writes until a line or the end of
 * standard input, then prints {@code RESULT writes=.. retries=..}. A write that fails (its outcome
 * is unknown) is sent again until it is confirmed, so that every version is confirmed in order.
 *
 * <p>Arguments: backend ({@code redis} or {@code memcached}), server list, keys, the file of
 * {@link ConfirmedVersions}, writes per second.
 */
public final class NearCacheWriterMain {

  private NearCacheWriterMain() {}

  static String key(int i) {
    return "nc:" + i;
  }

  static String value(int i, long version) {
    return key(i) + "|" + version;
  }

  public static void main(String[] args) throws Exception {
    String backendName = args[0];
    String servers = args[1];
    int keys = Integer.parseInt(args[2]);
    Path file = Path.of(args[3]);
    int perSecond = Integer.parseInt(args[4]);
    Backend backend =
        backendName.equals("redis")
            ? CacheFleet.plainRedisBackend()
            : MemcachedBackend.create(
                MemcachedOptions.builder()
                    .operationTimeout(CacheFleet.BACKEND_TIMEOUT)
                    .maxReconnectDelay(Duration.ofSeconds(1))
                    .build());
    try (ConfirmedVersions confirmed = ConfirmedVersions.map(file, keys);
        AsyncCacheClient<String> client =
            ShardwiseClient.builder()
                .backend(backend)
                .servers(servers)
                .timeout(CacheFleet.CLIENT_TIMEOUT)
                .codec(Codecs.utf8())
                .build()) {
      CacheFleet.ready(client);
      CacheClient<String> sync = client.sync();
      long retries = 0;
      for (int i = 0; i < keys; i++) {
        retries += write(sync, confirmed, i, 1);
      }
      Thread stop = new Thread(NearCacheWriterMain::awaitStop, "stop-on-input");
      stop.setDaemon(true);
      stop.start();
      System.out.println("READY");
      long writes = 0;
      long start = System.nanoTime();
      long gapNanos = TimeUnit.SECONDS.toNanos(1) / perSecond;
      while (stop.isAlive()) {
        long ahead = start + writes * gapNanos - System.nanoTime();
        if (ahead > 0) {
          TimeUnit.NANOSECONDS.sleep(ahead);
        }
        int i = (int) (writes % keys);
        retries += write(sync, confirmed, i, writes / keys + 2);
        writes++;
      }
      System.out.printf("RESULT writes=%d retries=%d%n", writes, retries);
    }
  }

  /** Writes version {@code version} of key {@code i} until confirmed; returns the tries that failed. */
  private static int write(CacheClient<String> sync, ConfirmedVersions confirmed, int i, long version) {
    int failed = 0;
    while (true) {
      try {
        sync.set(key(i), value(i, version), Duration.ZERO);
        confirmed.confirmed(i, version, ConfirmedVersions.wallMicros());
        return failed;
      } catch (RuntimeException e) {
        if (++failed <= 3) {
          System.out.println("FAILED " + key(i) + " version " + version + ": " + e);
        }
      }
    }
  }

  private static void awaitStop() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      in.readLine();
    } catch (IOException e) {
      // standard input closed: stop as well
    }
  }
}
