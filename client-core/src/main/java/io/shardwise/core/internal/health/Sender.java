package io.shardwise.core.internal.health;

import io.shardwise.spi.NodeConnection;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Sends one request to one member, as the routing client sends all of its requests: with the
 * deadline, recording the outcome on the member's health and in the metrics. The copy protocols
 * (warm-up, spill) send through it.
 */
@FunctionalInterface
public interface Sender {

  <T> CompletableFuture<T> send(Member m, String operation, Function<NodeConnection, CompletableFuture<T>> op);
}
