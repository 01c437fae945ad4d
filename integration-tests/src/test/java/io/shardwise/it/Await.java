package io.shardwise.it;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for futures with a bound, so that a broken client fails a test instead of hanging it. */
final class Await {

  /** Far above any expected wait; only there to end a hung test. */
  private static final long LIMIT_SECONDS = 60;

  private Await() {}

  /** The future's value; its failure rethrown unwrapped as in {@code CacheClient}. */
  static <T> T result(CompletableFuture<T> future) {
    try {
      return future.get(LIMIT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new CompletionException(cause);
    } catch (TimeoutException e) {
      throw new AssertionError("no result within " + LIMIT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /** The failure the future completes with (unwrapped); fails if it completes normally. */
  static Throwable failure(CompletableFuture<?> future) {
    try {
      Object value = future.get(LIMIT_SECONDS, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure but the future completed with " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("no result within " + LIMIT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
