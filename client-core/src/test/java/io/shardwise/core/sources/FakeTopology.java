package io.shardwise.core.sources;

import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * The server-list side of a client, for {@link ServerListUpdater}: records every {@code
 * updateServers} call and answers it as told (apply, refuse with an IllegalArgumentException, fail
 * otherwise, or answer later).
 */
final class FakeTopology {

  enum Answer {
    APPLY,
    REFUSE,
    FAIL,
    LATER
  }

  private List<Node> current;
  private final List<List<Node>> calls = new ArrayList<>();
  private final List<CompletableFuture<TopologyChange>> later = new ArrayList<>();
  volatile Answer answer = Answer.APPLY;

  FakeTopology(List<Node> initial) {
    current = List.copyOf(initial);
  }

  synchronized List<Node> current() {
    return current;
  }

  synchronized List<List<Node>> calls() {
    return List.copyOf(calls);
  }

  /** Applies every change answered {@link Answer#LATER} so far. */
  void completeLater() {
    List<CompletableFuture<TopologyChange>> pending;
    synchronized (this) {
      pending = List.copyOf(later);
      later.clear();
    }
    pending.forEach(f -> f.complete(null));
  }

  ServerListUpdater updater() {
    return new ServerListUpdater(this::current, this::update);
  }

  synchronized CompletableFuture<TopologyChange> update(List<Node> servers) {
    calls.add(servers);
    switch (answer) {
      case REFUSE:
        return CompletableFuture.failedFuture(
            new IllegalArgumentException("jump cannot route weighted servers"));
      case FAIL:
        return CompletableFuture.failedFuture(new IllegalStateException("no connection"));
      case LATER:
        CompletableFuture<TopologyChange> f = new CompletableFuture<>();
        later.add(f);
        return f.thenApply(ignored -> apply(servers));
      default:
        return CompletableFuture.completedFuture(apply(servers));
    }
  }

  private synchronized TopologyChange apply(List<Node> servers) {
    List<Node> before = current;
    current = List.copyOf(servers);
    Function<List<Node>, List<Node>> minus =
        other -> servers.stream().filter(n -> !other.contains(n)).toList();
    return new TopologyChange(
        before,
        servers,
        minus.apply(before),
        before.stream().filter(n -> !servers.contains(n)).toList(),
        0.0,
        Instant.now(),
        Duration.ZERO);
  }
}
