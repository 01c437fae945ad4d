package io.shardwise.it;

import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;

/** A backend that forwards everything to another one; decorators override what they change. */
abstract class ForwardingBackend implements Backend {

  private final Backend delegate;

  ForwardingBackend(Backend delegate) {
    this.delegate = delegate;
  }

  final Backend delegate() {
    return delegate;
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    return delegate.connect(node, requestTimeout);
  }

  @Override
  public Duration defaultRequestTimeout() {
    return delegate.defaultRequestTimeout();
  }

  @Override
  public KeyRules keyRules() {
    return delegate.keyRules();
  }

  @Override
  public boolean tracksReads() {
    return delegate.tracksReads();
  }

  @Override
  public void trackReads(io.shardwise.spi.Invalidations invalidations) {
    delegate.trackReads(invalidations);
  }

  @Override
  public void reportLostConnections(io.shardwise.spi.Invalidations invalidations) {
    delegate.reportLostConnections(invalidations);
  }

  @Override
  public int defaultMaxValueBytes() {
    return delegate.defaultMaxValueBytes();
  }

  @Override
  public void checkValue(String key, io.shardwise.client.CachedValue value) {
    delegate.checkValue(key, value);
  }

  @Override
  public java.util.concurrent.CompletableFuture<Void> limitsRead(NodeConnection connection) {
    return delegate.limitsRead(connection);
  }

  @Override
  public boolean storesFlags() {
    return delegate.storesFlags();
  }

  @Override
  public boolean resolvesHosts() {
    return delegate.resolvesHosts();
  }

  @Override
  public boolean isNodeFailure(Throwable failure) {
    return delegate.isNodeFailure(failure);
  }

  @Override
  public boolean isTimeout(Throwable failure) {
    return delegate.isTimeout(failure);
  }

  @Override
  public boolean isClientQueueFull(Throwable failure) {
    return delegate.isClientQueueFull(failure);
  }

  @Override
  public void close() {
    delegate.close();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "[" + delegate + "]";
  }
}
