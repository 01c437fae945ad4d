package io.shardwise.core.internal.exec;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.DeadlineScanner;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.health.Sender;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.routing.Node;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.ToIntFunction;

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
  private final int batchKeys;

  /**
   * Most bytes of values in one part of a batch ({@link #inParts}), unless one value alone is
   * larger: 1 MiB, memcached's default item size limit, which a loopback or LAN link moves in a
   * few milliseconds, far within any sensible timeout.
   */
  public static final int PART_BYTES = 1 << 20;

  /**
   * How many pings in a row, each with the timeout, a node that failed a part of a batch may miss
   * before the rest of its share is not sent; a ping that timed out while this process itself
   * lagged for half the timeout is not counted ({@link PartRun}).
   */
  static final int CHECK_PINGS = 3;

  /** Most pings of one check of a node, counted or not: a check costs at most this many timeouts. */
  static final int MOST_PINGS = 2 * CHECK_PINGS;

  /** Into how many pieces a part that failed on a node that still answers is cut to be sent again. */
  static final int AGAIN_PIECES = 10;

  /**
   * @param retries extra attempts on the same node after a node failure (0 for none)
   * @param batchKeys most keys in one request to one node ({@link #inParts})
   */
  public Requests(
      FleetHealth health, ClientMetrics metrics, DeadlineScanner deadlines, Duration timeout, int retries, int batchKeys) {
    if (batchKeys < 1) {
      throw new IllegalArgumentException("batchKeys must be >= 1 but was " + batchKeys);
    }
    this.health = health;
    this.metrics = metrics;
    this.deadlines = deadlines;
    this.timeout = timeout;
    this.retries = retries;
    this.batchKeys = batchKeys;
  }

  /**
   * A bound, in parts, for how long one node's share of a batch of {@code keys} keys with {@code
   * valueBytes} bytes of values in all may take ({@link #inParts}), counting one timeout per part:
   * six times the parts it is cut in, since a part that fails on a node that still answers costs
   * up to 23 timeouts (itself, a check of up to {@link #MOST_PINGS} pings, its pieces sent again,
   * another check), and a caller allows 4 timeouts per part of this bound.
   */
  public long partsBound(int keys, long valueBytes) {
    long byCount = Math.max(1, (keys + (long) batchKeys - 1) / batchKeys);
    // A part closed by size holds, with the next part, more than PART_BYTES: at most two such
    // parts per PART_BYTES of values, plus one.
    long bySize = valueBytes <= PART_BYTES ? 0 : 2 * ((valueBytes + PART_BYTES - 1) / PART_BYTES) + 1;
    return 6 * (byCount + bySize);
  }

  /** The fleet's health, which judges what a failure says of its node. */
  FleetHealth health() {
    return health;
  }

  /** The scanner that fails overdue requests and sees this process's stalls. */
  DeadlineScanner deadlines() {
    return deadlines;
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
            health.failures().isNodeFailure(failure) && node.available()
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
    CompletableFuture<T> sent = watched(m, op);
    return sent.handle(
        (value, failure) -> {
          try {
            ShardwiseException e = recorded(m, operation, start, failure);
            if (e != null) {
              throw e;
            }
            if (countRead) {
              metrics.reads(m.node, value == null ? 0 : 1, value == null ? 1 : 0);
            }
            return finish.apply(value);
          } finally {
            if (release != null) {
              release.exit();
            }
          }
        });
  }

  /** {@code op} applied to {@code m}'s connection (a throw is a failed request), under its deadline. */
  private <T> CompletableFuture<T> watched(Member m, Function<NodeConnection, CompletableFuture<T>> op) {
    CompletableFuture<T> sent;
    try {
      sent = op.apply(m.connection);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    deadlines.watch(sent);
    return sent;
  }

  /**
   * Records the outcome of a request to {@code m} sent at {@code start} on its circuit and in the
   * meters; returns the failure as the caller gets it, or null.
   */
  private ShardwiseException recorded(Member m, String operation, long start, Throwable failure) {
    long took = health.record(m, start, failure);
    ShardwiseException e = failure == null ? null : asShardwise(m, failure);
    metrics.request(m.node, operation, took, e);
    return e;
  }

  /** The outcome of one request, handed over in the stage that records it. */
  @FunctionalInterface
  public interface Outcome<T> {
    /** {@code failure} is null on success. */
    void accept(T value, ShardwiseException failure);
  }

  /**
   * {@link #call} whose outcome, a value or the failure, goes to {@code done} in the stage that
   * records it, with no future of its own for the caller: for a write fanned out to several
   * replicas, which gathers the outcomes itself. Not counted in a load window and not retried.
   */
  <T> void callThen(Member m, String operation, Function<NodeConnection, CompletableFuture<T>> op, Outcome<T> done) {
    long start = System.nanoTime();
    CompletableFuture<T> sent = watched(m, op);
    sent.handle(
        (value, failure) -> {
          ShardwiseException e = recorded(m, operation, start, failure);
          done.accept(e == null ? value : null, e);
          return null;
        });
  }

  /**
   * {@link #inParts(Member, List, ToIntFunction, boolean, Function)} of a request that is not
   * repeated: a part that timed out is not sent again.
   */
  public <X> CompletableFuture<NodeReply<X>> inParts(
      Member m,
      List<String> keys,
      ToIntFunction<String> bytes,
      Function<List<String>, CompletableFuture<BatchReply<X>>> part) {
    return inParts(m, keys, bytes, false, part);
  }

  /**
   * Sends a batch of {@code keys} to {@code m} as parts of at most the batch size in keys and
   * {@link #PART_BYTES} of values, one part after another, each a request of its own (sent by
   * {@code part}, which records it and watches its deadline): a batch of any size is never judged
   * by one timeout, and every key's outcome is that of its own part.
   *
   * <p>A part that fails on the node (a timeout, a lost connection) is followed by a check of the
   * node: a ping, with the same timeout, unless the node's circuit has already taken it out. If
   * the node answers, the part was slow, not the node (a busy machine delays one part now and
   * then): the next parts are sent, and with {@code repeatable} (a request that leaves the same
   * state when done twice: a get, a set of the same values) the failed part, or the keys of an
   * answered part whose own requests failed on the node, are first sent once more, in 10
   * pieces; a piece that fails again fails alone, and the node is checked again
   * after the last piece. If the node does not answer, or is out, the batch ends there: the keys of the parts not
   * sent yet fail with a {@link NodeUnavailableException} saying so, instead of each part waiting
   * out its own timeout on a node that has stopped answering. A key whose own request failed
   * inside a part that was answered fails alone, with the reason the node's reply names. The
   * future never fails.
   *
   * @param bytes the size of each key's value (for stores), or null
   * @param repeatable whether a part that failed on an answering node is sent once more
   * @param part sends one part and returns the node's reply for its keys
   */
  public <X> CompletableFuture<NodeReply<X>> inParts(
      Member m,
      List<String> keys,
      ToIntFunction<String> bytes,
      boolean repeatable,
      Function<List<String>, CompletableFuture<BatchReply<X>>> part) {
    List<List<String>> parts = split(keys, bytes);
    if (parts == null) {
      CompletableFuture<BatchReply<X>> sent;
      try {
        sent = part.apply(keys);
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
      return sent.handle((reply, failure) -> failure == null ? NodeReply.of(reply) : NodeReply.failed(failure));
    }
    return new PartRun<>(this, m, parts, repeatable, part).start();
  }

  /** {@code keys} cut into parts, or null when they fit in one. */
  private List<List<String>> split(List<String> keys, ToIntFunction<String> bytes) {
    if (bytes == null && keys.size() <= batchKeys) {
      return null;
    }
    List<List<String>> parts = new ArrayList<>();
    int from = 0;
    long size = 0;
    for (int i = 0; i < keys.size(); i++) {
      int b = bytes == null ? 0 : bytes.applyAsInt(keys.get(i));
      if (i > from && (i - from == batchKeys || size + b > PART_BYTES)) {
        parts.add(keys.subList(from, i));
        from = i;
        size = 0;
      }
      size += b;
    }
    if (parts.isEmpty()) {
      return null;
    }
    parts.add(keys.subList(from, keys.size()));
    return parts;
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

  /** {@code failure} without its completion wrappers, as the client's own exception. */
  static ShardwiseException unwrap(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof ShardwiseException e ? e : new ShardwiseException(String.valueOf(cause.getMessage()), cause);
  }

  /**
   * The error of a write of a key that moves whose copy on {@code stale}, where reads may look,
   * could neither be deleted nor marked old (the node holds as many marks as the journal's capacity).
   */
  public ShardwiseException movedCopyKept(Member stale, Throwable failure) {
    ShardwiseException cause = asShardwise(stale, failure);
    return new NodeException(
        stale.node,
        "the key was written, but its copy here, where reads may look during the change, could not be deleted ("
            + cause.getMessage() + ") nor marked old (the node holds as many marks as the journal's capacity); write it again",
        cause);
  }

  /** Completes when all of {@code parts} have. */
  public static CompletableFuture<Void> allOf(List<? extends CompletableFuture<?>> parts) {
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  /** The value of {@code f}, which is done, or its failure as an error of {@code m}'s. */
  Object outcomeOf(CompletableFuture<?> f, Member m) {
    Throwable failure = failureOf(f);
    return failure == null ? f.join() : asShardwise(m, failure);
  }

  /** The failure {@code f} completed with, or null; {@code f} is done. */
  static Throwable failureOf(CompletableFuture<?> f) {
    return f.handle((v, x) -> x).join();
  }
}
