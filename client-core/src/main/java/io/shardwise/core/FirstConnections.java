package io.shardwise.core;

import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The connections a client starts with: one per server, each given up to the connect wait for its
 * first attempt and for reading the server's limits, so that a client being built does not count
 * "still connecting" as a failure of a healthy server.
 */
final class FirstConnections {

  private FirstConnections() {}

  /**
   * Opens a connection to each of {@code nodes} and waits up to {@code connectWait} for their first
   * attempts. A server that is down does not fail it: its connection is retried in the background.
   *
   * @throws IllegalArgumentException a server answered but refused the client's settings at its
   *     first attempt ({@link NodeConnection#ready()}); every connection is closed, and the backend
   * @throws RuntimeException the backend could not open a connection; the same
   */
  static NodeConnection[] open(Backend backend, List<Node> nodes, Duration requestTimeout, Duration connectWait) {
    NodeConnection[] connections = new NodeConnection[nodes.size()];
    try {
      for (int i = 0; i < connections.length; i++) {
        connections[i] = backend.connect(nodes.get(i), requestTimeout);
      }
    } catch (RuntimeException e) {
      closeAll(backend, connections);
      throw e;
    }
    List<IllegalArgumentException> refused = awaitFirstAttempts(backend, connections, connectWait);
    if (!refused.isEmpty()) {
      closeAll(backend, connections);
      IllegalArgumentException first = refused.get(0);
      String more = refused.size() == 1 ? "" : " (" + (refused.size() - 1) + " more servers refused it too)";
      throw new IllegalArgumentException(first.getMessage() + more, first.getCause());
    }
    return connections;
  }

  /** Waits for each connection's first attempt, then its server's limits; returns the refusals. */
  private static List<IllegalArgumentException> awaitFirstAttempts(Backend backend, NodeConnection[] connections, Duration connectWait) {
    CompletableFuture<?>[] ready = new CompletableFuture<?>[connections.length];
    List<IllegalArgumentException> refused = Collections.synchronizedList(new ArrayList<>());
    for (int i = 0; i < connections.length; i++) {
      NodeConnection connection = connections[i];
      // Then the server's own limits (memcached's item size, Redis' bulk length), so that the
      // first values are checked against them.
      ready[i] =
          connection
              .ready()
              .handle(
                  (ignored, failure) -> {
                    Throwable cause = failure instanceof CompletionException ? failure.getCause() : failure;
                    if (cause instanceof IllegalArgumentException refusal) {
                      refused.add(refusal);
                    }
                    return null;
                  })
              .thenCompose(x -> backend.limitsRead(connection));
    }
    try {
      CompletableFuture.allOf(ready).get(connectWait.toNanos(), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Still connecting: start anyway; those nodes fail requests until they answer.
    }
    synchronized (refused) {
      return List.copyOf(refused);
    }
  }

  private static void closeAll(Backend backend, NodeConnection[] connections) {
    for (NodeConnection c : connections) {
      if (c != null) {
        c.close();
      }
    }
    backend.close();
  }
}
