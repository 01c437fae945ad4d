package io.shardwise.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.shardwise.spring.metrics.ShardwiseCacheMetrics;
import io.shardwise.testing.Concurrently;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a cache counts, and the meters that show it ({@link ShardwiseCacheMetrics}), over an
 * in-memory fleet: one get per call, whichever form of the call and however many callers share one
 * load.
 */
@Timeout(60)
class ShardwiseCacheCountsTest {

  private static final int CALLERS = 8;

  private final FakeFleet fleet = new FakeFleet(3);
  private final ShardwiseCache cache =
      new ShardwiseCache(
          "books", fleet, CacheSettings.defaults().forCache("books"), Duration.ofMinutes(1));
  private final ExecutorService threads = Executors.newFixedThreadPool(2);

  @AfterEach
  void stopThreads() {
    threads.shutdownNow();
  }

  @Test
  void callersThatJoinALoadInFlightCountAsHitsAsTheBlockingFormCountsThem() throws Exception {
    AtomicInteger loads = new AtomicInteger();
    CompletableFuture<String> load = new CompletableFuture<>();
    // 8 at once while the first caller's load is held open: 1 loads, 7 join its load.
    List<CompletableFuture<String>> first =
        Concurrently.call(
            CALLERS,
            () ->
                cache.retrieve(
                    "isbn-1",
                    () -> {
                      loads.incrementAndGet();
                      return load;
                    }));
    load.complete("Dune");
    for (CompletableFuture<String> f : first) {
      assertThat(f.get()).isEqualTo("Dune");
    }
    // 8 more once it is stored: each reads it, or joins a read under way.
    List<CompletableFuture<String>> second =
        Concurrently.call(
            CALLERS,
            () -> cache.retrieve("isbn-1", () -> CompletableFuture.completedFuture("other")));
    for (CompletableFuture<String> f : second) {
      assertThat(f.get()).isEqualTo("Dune");
    }

    assertThat(loads).hasValue(1);
    assertThat(cache.missCount()).isEqualTo(1);
    assertThat(cache.hitCount()).isEqualTo(2 * CALLERS - 1);
  }

  @Test
  void theBlockingFormCountsOneMissAndAHitForEachCallerThatWaitedForTheLoad() throws Exception {
    AtomicInteger loads = new AtomicInteger();
    Callable<String> loader =
        () -> {
          loads.incrementAndGet();
          return "Dune";
        };
    for (int round = 0; round < 2; round++) {
      for (String title : Concurrently.call(CALLERS, () -> cache.get("isbn-1", loader))) {
        assertThat(title).isEqualTo("Dune");
      }
    }

    assertThat(loads).hasValue(1);
    assertThat(cache.missCount()).isEqualTo(1);
    assertThat(cache.hitCount()).isEqualTo(2 * CALLERS - 1);
  }

  @Test
  void theMetersAreThoseBootBindsForARedisCache() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    new ShardwiseCacheMetrics(cache, Tags.of("cache.manager", "cacheManager")).bindTo(registry);
    cache.put("isbn-1", "Dune");
    cache.get("isbn-1");
    cache.get("isbn-2");
    cache.evict("isbn-1");
    cache.evict("isbn-3"); // no value: still one removal, as Boot's Redis cache counts it
    cache.clear(); // removes no key

    assertThat(registry.getMeters())
        .extracting(m -> m.getId().getName())
        .containsOnly("cache.gets", "cache.puts", "cache.removals", "cache.lock.duration");
    assertThat(gets(registry, "hit")).isEqualTo(1);
    assertThat(gets(registry, "miss")).isEqualTo(1);
    assertThat(gets(registry, "pending")).isZero();
    assertThat(registry.get("cache.puts").functionCounter().count()).isEqualTo(1);
    assertThat(registry.get("cache.removals").functionCounter().count()).isEqualTo(2);
    assertThat(registry.get("cache.lock.duration").timeGauge().value(TimeUnit.NANOSECONDS))
        .isZero();
    for (Meter meter : registry.getMeters()) {
      assertThat(meter.getId().getTag("cache")).isEqualTo("books");
      assertThat(meter.getId().getTag("cache.manager")).isEqualTo("cacheManager");
    }
    assertThat(registry.get("cache.removals").meter()).isInstanceOf(FunctionCounter.class);
    assertThat(registry.get("cache.lock.duration").meter()).isInstanceOf(TimeGauge.class);
  }

  @Test
  void pendingGetsAreTheCallsWaitingForALoadUnderWay() {
    ShardwiseCache direct = direct();
    CompletableFuture<String> load = new CompletableFuture<>();
    List<CompletableFuture<String>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      calls.add(direct.retrieve("isbn-1", () -> load));
    }
    assertThat(direct.missCount()).as("the first call read nothing and loads").isEqualTo(1);
    assertThat(direct.pendingCount()).as("the others wait for its load").isEqualTo(CALLERS - 1);
    assertThat(direct.hitCount()).isZero();

    load.complete("Dune");
    assertThat(calls).allSatisfy(c -> assertThat(c.join()).isEqualTo("Dune"));
    assertThat(direct.pendingCount()).isZero();
    assertThat(direct.hitCount()).isEqualTo(CALLERS - 1);
  }

  @Test
  void aFailedLoadAnswersTheCallsThatJoinedItWithoutCountingThem() {
    ShardwiseCache direct = direct();
    CompletableFuture<String> load = new CompletableFuture<>();
    CompletableFuture<String> loading = direct.retrieve("isbn-1", () -> load);
    CompletableFuture<String> joined = direct.retrieve("isbn-1", () -> load);
    load.completeExceptionally(new IllegalStateException("the database is down"));

    assertThat(loading).isCompletedExceptionally();
    assertThat(joined).isCompletedExceptionally();
    assertThat(direct.pendingCount()).isZero();
    assertThat(direct.missCount()).isEqualTo(1);
    assertThat(direct.hitCount()).isZero();
  }

  @Test
  void aFailedReadIsNeitherAHitNorAMissAndNoLongerPending() {
    fleet.fail(fleet.indexOf(fleet.nodeFor(cache.storageKey("isbn-1"))), false);
    for (Runnable call :
        List.<Runnable>of(
            () -> cache.get("isbn-1"),
            () -> cache.get("isbn-1", () -> "Dune"),
            () -> cache.retrieve("isbn-1").join(),
            () -> cache.retrieve("isbn-1", () -> CompletableFuture.completedFuture("Dune")).join())) {
      assertThatThrownBy(call::run)
          .hasStackTraceContaining("down (test)");
    }
    assertThat(cache.pendingCount()).isZero();
    assertThat(cache.hitCount() + cache.missCount()).isZero();
  }

  @Test
  void lockDurationIsTheTimeBlockingCallsWaitedForTheKeysLoad() throws Exception {
    CountDownLatch loading = new CountDownLatch(1);
    AtomicReference<Thread> waiter = new AtomicReference<>();
    Future<String> loader =
        threads.submit(
            () ->
                cache.get(
                    "isbn-1",
                    () -> {
                      loading.countDown();
                      // Holds the key's lock until the second call waits for it.
                      while (waiter.get() == null || waiter.get().getState() != Thread.State.WAITING) {
                        Thread.onSpinWait();
                      }
                      return "Dune";
                    }));
    loading.await();
    Future<String> second =
        threads.submit(
            () -> {
              waiter.set(Thread.currentThread());
              return cache.get("isbn-1", () -> "other");
            });
    assertThat(loader.get()).isEqualTo("Dune");
    assertThat(second.get()).isEqualTo("Dune");

    assertThat(cache.lockWaitTime()).isPositive();
    assertThat(cache.missCount()).isEqualTo(1);
    assertThat(cache.hitCount()).isEqualTo(1);
  }

  /** The cache with replies and callbacks on the calling thread: a call has read when it returns. */
  private ShardwiseCache direct() {
    return new ShardwiseCache(
        "books",
        fleet,
        CacheSettings.defaults().forCache("books"),
        Duration.ofMinutes(1),
        Runnable::run);
  }

  private double gets(SimpleMeterRegistry registry, String result) {
    return registry.get("cache.gets").tag("result", result).functionCounter().count();
  }
}
