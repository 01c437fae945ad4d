package io.shardwise.core.sources;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** For tests of watchers: their threads, and waiting for what they do. */
public final class WatcherThreads {

  private WatcherThreads() {}

  /** Live watcher threads ({@code shardwise-servers ...}) in this JVM. */
  public static long count() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.isAlive() && t.getName().startsWith("shardwise-servers "))
        .count();
  }

  /** Waits up to 10 s for {@code condition}, polling every 5 ms; fails naming {@code what}. */
  public static void await(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 10 s: " + what);
      }
      Thread.sleep(5);
    }
  }
}
