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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client process for {@link FailbackScenarios}: a Shardwise client with default settings under a
 * load of {@value #THREADS} threads (enough requests in flight that, when the process resumes, every
 * server has more timeouts pending than the failure threshold) for a given time, which the test stops (SIGSTOP) and continues from outside, as
 * a long garbage-collection pause or a starved CPU would. Prints one line at the end: {@code
 * RESULT ejections=.. kept-in=.. stall-discounts=.. stalls=.. errors=.. incomplete=.. ops=..}
 * (incomplete: blocking calls that gave up on a request that was still running).
 */
public final class StalledClientMain {

  static final int THREADS = 40;

  private StalledClientMain() {}

  public static void main(String[] args) throws Exception {
    String backendName = args[0];
    String servers = args[1];
    long seconds = Long.parseLong(args[2]);
    Backend backend = backendName.equals("redis") ? RedisBackend.create() : MemcachedBackend.create();
    AtomicLong ejections = new AtomicLong();
    AtomicLong keptIn = new AtomicLong();
    AtomicLong discounted = new AtomicLong();
    AtomicLong stalls = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong incomplete = new AtomicLong();
    AtomicLong ops = new AtomicLong();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(backend)
            .servers(servers)
            .listener(e -> {
              if (e.isEjection()) {
                ejections.incrementAndGet();
                System.out.println("EVENT " + e);
              }
            })
            .metrics(
                new ClientMetrics() {
                  @Override
                  public void ejectionAvoided(Node node, String reason) {
                    (reason.equals("cap") ? keptIn : discounted).incrementAndGet();
                  }

                  @Override
                  public void clientStalled(long nanos) {
                    stalls.incrementAndGet();
                    System.out.println("STALL " + nanos / 1_000_000 + " ms");
                  }
                })
            .codec(Codecs.utf8())
            .build();
    CacheClient<String> sync = client.sync();
    AtomicBoolean running = new AtomicBoolean(true);
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      Thread worker = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(thread);
        while (running.get()) {
          String key = "stall:" + random.nextInt(5000);
          try {
            if (random.nextBoolean()) {
              sync.set(key, "v" + random.nextInt(), Duration.ZERO);
            } else {
              sync.get(key);
            }
            ops.incrementAndGet();
          } catch (RuntimeException e) {
            errors.incrementAndGet();
            if (String.valueOf(e.getMessage()).contains("left a request incomplete")) {
              incomplete.incrementAndGet(); // the blocking view's safety net, not a request's outcome
            }
          }
        }
      });
      worker.setDaemon(true);
      threads.add(worker);
      worker.start();
    }
    System.out.println("READY");
    Thread.sleep(seconds * 1000);
    running.set(false);
    for (Thread t : threads) {
      t.join(5000);
    }
    client.close();
    System.out.printf(
        "RESULT ejections=%d kept-in=%d stall-discounts=%d stalls=%d errors=%d incomplete=%d ops=%d%n",
        ejections.get(), keptIn.get(), discounted.get(), stalls.get(), errors.get(), incomplete.get(), ops.get());
  }
}
