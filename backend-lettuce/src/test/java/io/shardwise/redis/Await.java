package io.shardwise.redis;

import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Polling waits for tests. */
final class Await {

  private Await() {}

  /** Waits until the connection is up (at most 5 s). */
  static void connected(NodeConnection connection) {
    RedisNodeConnection redis = (RedisNodeConnection) connection;
    until(redis::isConnected, Duration.ofSeconds(5));
  }

  /** Polls {@code condition} every 10 ms until it holds; fails after {@code limit}. */
  static void until(BooleanSupplier condition, Duration limit) {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within " + limit);
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError("interrupted", e);
      }
    }
  }

  /** The failure of {@code future} (waited for at most 10 s); fails if it succeeds. */
  static Throwable failureOf(CompletableFuture<?> future) {
    try {
      future.get(10, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (Exception e) {
      throw new AssertionError("expected the request to fail, got " + e, e);
    }
    throw new AssertionError("expected the request to fail, but it succeeded");
  }
}
