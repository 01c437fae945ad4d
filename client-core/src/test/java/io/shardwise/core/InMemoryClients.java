package io.shardwise.core;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NodeState;
import io.shardwise.routing.Node;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;

/** What the tests of a client over {@link InMemoryBackend} do alike: wait, and make a node fail until it is ejected. */
final class InMemoryClients {

  private InMemoryClients() {}

  /** Waits until {@code condition} holds, at most 5 s. */
  static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 5 s");
      }
      Thread.sleep(5);
    }
  }

  /** Makes {@code victim} refuse connections and waits until {@code client} ejected it. */
  static void eject(AsyncCacheClient<?> client, InMemoryBackend backend, Node victim) throws InterruptedException {
    backend.store(victim).failWith = new IOException("connection refused");
    for (int i = 0; i < FailoverOptions.DEFAULT_FAILURE_THRESHOLD; i++) {
      try {
        client.ping(victim).get();
      } catch (ExecutionException expected) {
        // counted towards its ejection
      }
    }
    await(() -> client.nodeStates().get(victim) != NodeState.HEALTHY);
  }
}
