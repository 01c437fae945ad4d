package io.shardwise.core.internal.health;

import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;

/** A backend that classifies failures as the default backend does and connects nothing: for health tests. */
public final class NoBackend implements Backend {
  private final Duration timeout;

  public NoBackend(Duration timeout) {
    this.timeout = timeout;
  }

  @Override
  public String name() {
    return "none";
  }

  @Override
  public NodeConnection connect(Node node, Duration requestTimeout) {
    throw new UnsupportedOperationException();
  }

  @Override
  public Duration defaultRequestTimeout() {
    return timeout;
  }

  @Override
  public KeyRules keyRules() {
    return KeyRules.MEMCACHED;
  }

  @Override
  public int defaultMaxValueBytes() {
    return 1024;
  }

  @Override
  public boolean storesFlags() {
    return true;
  }

  @Override
  public void close() {}
}
