package io.shardwise.memcached;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waiting on futures in tests, with a bound so that a hang fails the test instead of the build. */
final class Futures {

  static final long WAIT_SECONDS = 5;

  private Futures() {}

  /** The value of {@code future}; fails the test if it failed or did not complete in 5 s. */
  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get(WAIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw new AssertionError("expected success but failed with " + e.getCause(), e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("no completion within " + WAIT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The failure of {@code future}; fails the test if it succeeded or did not complete in 5 s. */
  static Throwable failure(CompletableFuture<?> future) {
    try {
      Object value = future.get(WAIT_SECONDS, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure but got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("no completion within " + WAIT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
