package io.shardwise.core.internal.exec;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.DeadlineScanner;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.health.Sender;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * Sends the requests the routes decide: one request to one member with the deadline watched,
 * its outcome recorded on the member's circuit ({@link FleetHealth}) and in the metrics, and every
 * failure turned into a {@link ShardwiseException} that names the node. With the retry failure
 * mode a request that failed on its node is sent there again while the node stays available.
 */
public final class Requests implements Sender {

  private final FleetHealth health;
  private final ClientMetrics metrics;
  private final DeadlineScanner deadlines;
  private final Duration timeout;
  private final int retries;

  /** {@code retries}: extra attempts on the same node after a node failure (0 for none). */
  public Requests(FleetHealth health, ClientMetrics metrics, DeadlineScanner deadlines, Duration timeout, int retries) {
    this.health = health;
    this.metrics = metrics;
    this.deadlines = deadlines;
    this.timeout = timeout;
    this.retries = retries;
  }

  /** Whether requests are retried on their node (the retry failure mode). */
  public boolean retrying() {
    return retries > 0;
  }

  /** A request to node {@code node} of {@code t}, counted in its load window, retried as configured. */
  public <T> CompletableFuture<T> send(
      Topology t, int node, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
    return send(t, node, operation, op, false);
  }

  /**
   * {@link #send(Topology, int, String, Function)}; with {@code countRead} the reply (a value or
   * null) is also reported to {@link ClientMetrics#reads} as one hit or one miss.
   */
  public <T> CompletableFuture<T> send(
      Topology t, int node, String operation, Function<NodeConnection, CompletableFuture<T>> op, boolean countRead) {
    if (t.bounded != null) {
      t.bounded.loads.record(node);
    }
    CompletableFuture<T> first = call(t.members[node], operation, op, countRead, Function.identity(), null);
    return retries > 0 ? retry(first, t.members[node], operation, op, countRead, retries) : first;
  }

  /** A request to a member outside routing (copies, warm-up, moved keys): no load is counted, no retry. */
  @Override
  public <T> CompletableFuture<T> send(Member m, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
    return call(m, operation, op, false, Function.identity(), null);
  }

  private <T> CompletableFuture<T> retry(
      CompletableFuture<T> attempt,
      Member node,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead,
      int left) {
    if (left == 0) {
      return attempt;
    }
    return attempt.exceptionallyCompose(
        failure ->
            health.isNodeFailure(failure) && node.available()
                ? retry(call(node, operation, op, countRead, Function.identity(), null), node, operation, op, countRead, left - 1)
                : CompletableFuture.failedFuture(failure));
  }

  /**
   * Sends one request to {@code m}, records the outcome on its circuit, then applies {@code finish}
   * to the reply in the same stage; an exception from {@code finish} fails the returned future but
   * is not a node failure. With {@code release}, that topology stops being counted in use in the
   * same stage: an operation of one request needs no stage of its own for it.
   */
  public <T, R> CompletableFuture<R> call(
      Member m,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead,
      Function<? super T, ? extends R> finish,
      Topology release) {
    long start = System.nanoTime();
    CompletableFuture<T> sent;
    try {
      sent = op.apply(m.connection);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    deadlines.watch(sent);
    return sent.handle(
        (value, failure) -> {
          try {
            long took = health.record(m, start, failure);
            Node n = m.node;
            if (failure != null) {
              ShardwiseException e = asShardwise(m, failure);
              metrics.request(n, operation, took, e);
              throw e;
            }
            metrics.request(n, operation, took, null);
            if (countRead) {
              metrics.reads(n, value == null ? 0 : 1, value == null ? 1 : 0);
            }
            return finish.apply(value);
          } finally {
            if (release != null) {
              release.exit();
            }
          }
        });
  }

  /** {@code failure} as the exception a caller gets: a {@link ShardwiseException} naming {@code m}. */
  public ShardwiseException asShardwise(Member m, Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof ShardwiseException) {
      return (ShardwiseException) cause;
    }
    Node n = m.node;
    if (cause instanceof TimeoutException) {
      return new NodeTimeoutException(n, timeout, cause);
    }
    String message = cause.getMessage();
    return new NodeException(
        n, message == null || message.isBlank() ? cause.getClass().getSimpleName() : message, cause);
  }

  /** The error of a write whose key's copy on the node it moved from could not be deleted. */
  public ShardwiseException movedCopyKept(Member stale, Throwable failure) {
    ShardwiseException cause = asShardwise(stale, failure);
    return new NodeException(
        stale.node,
        "the key was written, but its copy on the node it moved from could not be deleted ("
            + cause.getMessage() + "); write it again",
        cause);
  }

  /** Completes when all of {@code parts} have. */
  public static CompletableFuture<Void> allOf(List<? extends CompletableFuture<?>> parts) {
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }
}
