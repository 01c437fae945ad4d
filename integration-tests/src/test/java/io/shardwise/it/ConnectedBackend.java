package io.shardwise.it;

import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Waits in {@code connect} until the new connection answers a ping of its own, so that a test's
 * client starts with every Redis server answering. Both backends connect in the background, and
 * the client's {@code build()} already waits for each server's first connection attempt ({@code
 * ClientStartupIT} checks, without this wrapper, that a new client's first requests are answered);
 * this adds a wait for the server's answer, and for the read of its limits. The ping goes to the
 * connection directly, so the client's node health never sees it.
 */
final class ConnectedBackend extends ForwardingBackend {

  private final Duration limit;

  ConnectedBackend(Backend delegate, Duration limit) {
    super(delegate);
    this.limit = limit;
  }

  @Override
  public NodeConnection connect(Node node, java.time.Duration requestTimeout) {
    NodeConnection connection = delegate().connect(node, requestTimeout);
    long deadline = System.nanoTime() + limit.toNanos();
    while (true) {
      try {
        connection.ping().get(limit.toMillis(), TimeUnit.MILLISECONDS);
        break;
      } catch (Exception e) {
        if (System.nanoTime() > deadline) {
          return connection; // the server is down: the client must cope, as with any backend
        }
        CacheFleet.sleep(20);
      }
    }
    try {
      // The server's limits are read on a connection of their own (a CONFIG GET): done before the
      // test starts, so that a test comparing the servers' command counts never sees it.
      delegate().limitsRead(connection).get(limit.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      // not read in time: the client checks values against the default until it is
    }
    return connection;
  }
}
