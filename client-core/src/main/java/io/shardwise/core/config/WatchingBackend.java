package io.shardwise.core.config;

import io.shardwise.core.sources.ServerListWatcher;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;

/**
 * A backend that also stops a client's {@link ServerListWatcher} when it is closed. The routing
 * client closes its backend last in {@code close()}, whichever view ({@code AsyncCacheClient} or
 * its {@code sync()}) is closed, so the watcher ends with the client; everything else goes to the
 * backend unchanged.
 */
final class WatchingBackend implements Backend {

  private final Backend backend;
  private ServerListWatcher watcher;
  private boolean closed;

  WatchingBackend(Backend backend) {
    this.backend = backend;
  }

  /** Stops {@code w} with this backend, or now if it is already closed. */
  void stopWithThis(ServerListWatcher w) {
    boolean stopNow;
    synchronized (this) {
      watcher = w;
      stopNow = closed;
    }
    if (stopNow) {
      w.close();
    }
  }

  @Override
  public String name() {
    return backend.name();
  }

  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    return backend.connect(node, requestTimeout);
  }

  @Override
  public NodeConnection connect(Node node) {
    return backend.connect(node);
  }

  @Override
  public Duration defaultRequestTimeout() {
    return backend.defaultRequestTimeout();
  }

  @Override
  public KeyRules keyRules() {
    return backend.keyRules();
  }

  @Override
  public int defaultMaxValueBytes() {
    return backend.defaultMaxValueBytes();
  }

  @Override
  public void checkValue(String key, io.shardwise.client.CachedValue value) {
    backend.checkValue(key, value);
  }

  @Override
  public java.util.concurrent.CompletableFuture<Void> limitsRead(NodeConnection connection) {
    return backend.limitsRead(connection);
  }

  @Override
  public boolean storesFlags() {
    return backend.storesFlags();
  }

  @Override
  public boolean resolvesHosts() {
    return backend.resolvesHosts();
  }

  @Override
  public boolean isNodeFailure(Throwable failure) {
    return backend.isNodeFailure(failure);
  }

  @Override
  public boolean isTimeout(Throwable failure) {
    return backend.isTimeout(failure);
  }

  @Override
  public boolean isClientQueueFull(Throwable failure) {
    return backend.isClientQueueFull(failure);
  }

  @Override
  public boolean tracksReads() {
    return backend.tracksReads();
  }

  @Override
  public void trackReads(io.shardwise.spi.Invalidations invalidations) {
    backend.trackReads(invalidations);
  }

  @Override
  public void reportLostConnections(io.shardwise.spi.Invalidations invalidations) {
    backend.reportLostConnections(invalidations);
  }

  @Override
  public void close() {
    ServerListWatcher w;
    synchronized (this) {
      closed = true;
      w = watcher;
    }
    try {
      if (w != null) {
        w.close();
      }
    } finally {
      backend.close();
    }
  }

  @Override
  public String toString() {
    return backend.toString();
  }
}
