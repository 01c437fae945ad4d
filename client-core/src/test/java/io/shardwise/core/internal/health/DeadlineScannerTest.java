package io.shardwise.core.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Timeouts, and the client stalls the scanner notices, on a clock that moves one scan interval each
 * time it is read, so that the scanner's own scheduling on a busy machine cannot look like a stall;
 * the test adds the stalls.
 */
class DeadlineScannerTest {

  private static final long MS = 1_000_000L;

  private final AtomicLong now = new AtomicLong();
  private final List<Long> stalls = new CopyOnWriteArrayList<>();

  private long tick() {
    return now.addAndGet(DeadlineScanner.SCAN_NANOS);
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.sleep(1);
    }
  }

  private static void assertTimedOut(CompletableFuture<?> request) throws InterruptedException {
    assertThat(request).isCompletedExceptionally();
    try {
      request.get();
    } catch (ExecutionException e) {
      assertThat(e.getCause()).isInstanceOf(TimeoutException.class);
    }
  }

  @Test
  void failsARequestOnceItsTimeoutHasPassed() throws Exception {
    try (DeadlineScanner scanner = new DeadlineScanner(100 * MS, stalls::add, this::tick)) {
      CompletableFuture<String> request = new CompletableFuture<>();
      long sent = now.get();
      scanner.watch(request);
      await(request::isDone);
      assertTimedOut(request);
      assertThat(now.get() - sent).as("clock when it timed out").isBetween(100 * MS, 120 * MS);
      assertThat(stalls).isEmpty();
      assertThat(scanner.stalledSince(0)).isFalse();
    }
  }

  @Test
  void timeSpentStalledDoesNotCountAgainstARequestAndIsReported() throws Exception {
    try (DeadlineScanner scanner = new DeadlineScanner(100 * MS, stalls::add, this::tick)) {
      CompletableFuture<String> request = new CompletableFuture<>();
      long sent = now.get();
      scanner.watch(request);
      await(() -> now.get() - sent > 30 * MS);
      now.addAndGet(400 * MS); // the process stops for 400 ms: a garbage-collection pause
      await(() -> !stalls.isEmpty());
      long stallEnd = now.get();
      assertThat(stalls).containsExactly(400 * MS);
      assertThat(scanner.stalledSince(sent)).as("a request sent before the stall saw it").isTrue();
      assertThat(scanner.stalledSince(stallEnd + MS)).as("one sent after it did not").isFalse();
      await(request::isDone);
      assertTimedOut(request);
      assertThat(now.get() - sent)
          .as("clock when it timed out: the timeout plus the stall")
          .isBetween(500 * MS, 520 * MS);
      assertThat(scanner.stalls()).isEqualTo(1);
    }
  }

  @Test
  void aLateWakeUpUnderTheStallThresholdIsNotAStall() throws Exception {
    try (DeadlineScanner scanner = new DeadlineScanner(100 * MS, stalls::add, this::tick)) {
      Thread.sleep(20);
      now.addAndGet(DeadlineScanner.STALL_NANOS - MS);
      Thread.sleep(30);
      assertThat(stalls).isEmpty();
      assertThat(scanner.stalls()).isZero();
    }
  }

  @Test
  void lateWakeUpsUnderTheStallThresholdAddUpToALagThatExcusesATimeout() throws Exception {
    AtomicLong late = new AtomicLong();
    try (DeadlineScanner scanner =
        new DeadlineScanner(100 * MS, stalls::add, () -> now.addAndGet(DeadlineScanner.SCAN_NANOS + late.get()))) {
      long start = scanner.lagNanos();
      Thread.sleep(30);
      assertThat(scanner.laggedHalfATimeoutSince(start)).as("on time: no lag").isFalse();
      late.set(10 * MS); // every wake-up 10 ms late: a starved CPU, never a stall
      await(() -> scanner.lagNanos() - start >= 50 * MS);
      assertThat(stalls).isEmpty();
      assertThat(scanner.laggedHalfATimeoutSince(start)).as("lagged half the timeout").isTrue();
      late.set(0);
      long after = scanner.lagNanos();
      Thread.sleep(30);
      assertThat(scanner.laggedHalfATimeoutSince(after)).as("on time again, from then on").isFalse();
    }
  }
}
