package io.shardwise.it;

import java.util.concurrent.TimeUnit;
import net.spy.memcached.MemcachedClient;

/** Bare spymemcached clients as the tests use them: another application writing on the fleet. */
public final class SpymemcachedClients {

  private SpymemcachedClients() {}

  /**
   * Waits until {@code client} is connected to all {@code servers}, and returns it. A new
   * spymemcached client connects in the background, and under its default failure mode
   * (redistribute) an operation whose server is not connected yet goes to the next server of the
   * key instead: a write made at once can land where no later read looks (a CI run lost the first
   * key of 20,000 that way).
   */
  public static MemcachedClient connected(MemcachedClient client, int servers) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (client.getAvailableServers().size() < servers) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "spymemcached connected to " + client.getAvailableServers().size() + " of " + servers
                + " servers within 10 s");
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    return client;
  }
}
