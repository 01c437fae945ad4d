package io.shardwise.it.failure;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.redis.RedisBackend;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client process for {@link SlowStartIT}: a Shardwise client with default settings, built when
 * the test says so on standard input (with a fourth argument {@code warm}, after a first client
 * built, used once and closed, so that the classes are loaded) (so that the test can starve it while it builds), then used
 * at once by {@value #THREADS} threads of gets and sets for a given time. Prints {@code WAITING}
 * before it reads that line, {@code BUILDING} right before {@code build()}, {@code BUILT <ms>
 * stalls=<n>} when {@code build()} has returned (n: the times a thread that wakes every {@value
 * #WATCH_MILLIS} ms found itself more than {@value #STALL_MILLIS} ms late meanwhile: stops of the
 * process), then waits for a second line before the load, and at the end one line: {@code RESULT
 * ejections=.. kept-in=.. errors=.. ops=.. build-ms=..}, errors being the requests that failed
 * after {@code build()} returned. The first few failures are printed as {@code FAILED ...}, every
 * node event as {@code EVENT ...}.
 */
public final class SlowStartClientMain {

  static final int THREADS = 8;
  static final long WATCH_MILLIS = 10;
  static final long STALL_MILLIS = 500;
  private static final int FAILURES_PRINTED = 5;

  private SlowStartClientMain() {}

  private static Backend newBackend(String name) {
    return name.equals("redis") ? RedisBackend.create() : MemcachedBackend.create();
  }

  public static void main(String[] args) throws Exception {
    String backendName = args[0];
    String servers = args[1];
    long loadMillis = Long.parseLong(args[2]);
    boolean warm = args.length > 3 && args[3].equals("warm");
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    if (warm) {
      // Load the classes of a connection and a request first, on a backend of their own, so that
      // the starved build() is about connecting, not about class loading.
      try (Backend first = newBackend(backendName);
          AsyncCacheClient<String> once =
              ShardwiseClient.builder().backend(first).servers(servers).codec(Codecs.utf8()).build()) {
        once.sync().get("start:0");
      }
    }
    Backend backend = newBackend(backendName);
    AtomicLong ejections = new AtomicLong();
    AtomicLong keptIn = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong ops = new AtomicLong();
    System.out.println("WAITING");
    commands.readLine();
    AtomicLong stalls = new AtomicLong();
    AtomicBoolean building = new AtomicBoolean(true);
    Thread watch = new Thread(() -> {
      long last = System.nanoTime();
      while (building.get()) {
        try {
          Thread.sleep(WATCH_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
        long now = System.nanoTime();
        if (now - last > (WATCH_MILLIS + STALL_MILLIS) * 1_000_000) {
          stalls.incrementAndGet();
        }
        last = now;
      }
    }, "stall-watch");
    watch.setDaemon(true);
    watch.start();
    System.out.println("BUILDING");
    long start = System.nanoTime();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers(servers)
            .listener(e -> {
              if (e.isEjection()) {
                ejections.incrementAndGet();
              }
              System.out.println("EVENT " + e);
            })
            .metrics(
                new ClientMetrics() {
                  @Override
                  public void ejectionAvoided(Node node, String reason) {
                    if (reason.equals("cap")) {
                      keptIn.incrementAndGet();
                    }
                  }
                })
            .codec(Codecs.utf8())
            .build();
    long buildMillis = (System.nanoTime() - start) / 1_000_000;
    building.set(false);
    System.out.println("BUILT " + buildMillis + " stalls=" + stalls.get());
    commands.readLine();
    CacheClient<String> sync = client.sync();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      Thread worker = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(thread);
        while (running.get()) {
          String key = "start:" + random.nextInt(5000);
          try {
            if (random.nextBoolean()) {
              sync.set(key, "v" + random.nextInt(), Duration.ZERO);
            } else {
              sync.get(key);
            }
            ops.incrementAndGet();
          } catch (RuntimeException e) {
            if (errors.incrementAndGet() <= FAILURES_PRINTED) {
              System.out.println("FAILED " + e);
            }
          }
        }
      });
      worker.setDaemon(true);
      threads.add(worker);
      worker.start();
    }
    Thread.sleep(loadMillis);
    running.set(false);
    for (Thread t : threads) {
      t.join(5000);
    }
    client.close();
    System.out.printf(
        "RESULT ejections=%d kept-in=%d errors=%d ops=%d build-ms=%d%n",
        ejections.get(), keptIn.get(), errors.get(), ops.get(), buildMillis);
  }
}
