package io.shardwise.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What a cache counts ({@code cache.gets} and the others), over an in-memory fleet: one get per
 * call, whichever form of the call and however many callers share one load.
 */
@Timeout(60)
class ShardwiseCacheCountsTest {

  private static final int CALLERS = 8;

  private final FakeFleet fleet = new FakeFleet(3);
  private final ShardwiseCache cache =
      new ShardwiseCache(
          "books", fleet, CacheSettings.defaults().forCache("books"), Duration.ofMinutes(1));
  private final ExecutorService callers = Executors.newFixedThreadPool(CALLERS);

  @AfterEach
  void stopCallers() {
    callers.shutdownNow();
  }

  @Test
  void callersThatJoinALoadInFlightCountAsHitsAsTheBlockingFormCountsThem() throws Exception {
    AtomicInteger loads = new AtomicInteger();
    CompletableFuture<String> load = new CompletableFuture<>();
    // 8 at once while the first caller's load is held open: 1 loads, 7 join its load.
    List<CompletableFuture<String>> first =
        together(
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
        together(() -> cache.retrieve("isbn-1", () -> CompletableFuture.completedFuture("other")));
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
      for (String title : together(() -> cache.get("isbn-1", loader))) {
        assertThat(title).isEqualTo("Dune");
      }
    }

    assertThat(loads).hasValue(1);
    assertThat(cache.missCount()).isEqualTo(1);
    assertThat(cache.hitCount()).isEqualTo(2 * CALLERS - 1);
  }

  /** {@link #CALLERS} calls of {@code call}, released at once on their own threads. */
  private <T> List<T> together(Callable<T> call) throws Exception {
    CountDownLatch start = new CountDownLatch(1);
    List<Future<T>> calls = new ArrayList<>();
    for (int i = 0; i < CALLERS; i++) {
      calls.add(
          callers.submit(
              () -> {
                start.await();
                return call.call();
              }));
    }
    start.countDown();
    List<T> results = new ArrayList<>();
    for (Future<T> f : calls) {
      results.add(f.get());
    }
    return results;
  }
}
