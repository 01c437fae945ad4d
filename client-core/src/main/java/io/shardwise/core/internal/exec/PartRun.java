package io.shardwise.core.internal.exec;

import io.shardwise.client.NodeUnavailableException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.DeadlineScanner;
import io.shardwise.core.internal.health.Member;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

/**
 * The parts of one batch to one node, sent one after another. Only one request (a part, or the
 * ping that checks the node after a failed part) is in flight, so the fields are used by one
 * thread at a time, each completion happening before the next send.
 */
final class PartRun<X> {
  private final Requests requests;
  private final Member m;
  private final List<List<String>> parts;
  private final boolean repeatable;
  private final Function<List<String>, CompletableFuture<BatchReply<X>>> send;
  private final Map<String, X> replies = new HashMap<>();
  private final Map<String, Throwable> failed = new HashMap<>();
  private final CompletableFuture<NodeReply<X>> done = new CompletableFuture<>();
  private int next;
  /** Parts before this index (from {@link #next} on) are keys sent again, in smaller pieces. */
  private int againTo;

  PartRun(
      Requests requests,
      Member m,
      List<List<String>> parts,
      boolean repeatable,
      Function<List<String>, CompletableFuture<BatchReply<X>>> send) {
    this.requests = requests;
    this.m = m;
    this.parts = new ArrayList<>(parts);
    this.repeatable = repeatable;
    this.send = send;
  }

  CompletableFuture<NodeReply<X>> start() {
    advance();
    return done;
  }

  /**
   * Sends the next parts; a part that completes at once is taken in this loop rather than in a
   * nested call, so that a batch of many parts does not grow the stack.
   */
  private void advance() {
    while (next < parts.size()) {
      boolean again = next < againTo;
      if (!sendPart(parts.get(next++), again)) {
        return;
      }
    }
    finish();
  }

  /**
   * Sends {@code keys} ({@code again}: the second time); true when its outcome was taken at once
   * and the caller goes on with the next part, false when the run goes on in a callback.
   */
  private boolean sendPart(List<String> keys, boolean again) {
    CompletableFuture<BatchReply<X>> sent;
    try {
      sent = send.apply(keys);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    if (sent.isDone()) {
      BatchReply<X> reply = null;
      Throwable failure = null;
      try {
        reply = sent.join();
      } catch (CompletionException | java.util.concurrent.CancellationException e) {
        failure = e;
      }
      return take(keys, reply, failure, again);
    }
    sent.whenComplete(
        (reply, failure) -> {
          if (take(keys, reply, failure, again)) {
            advance();
          }
        });
    return false;
  }

  /**
   * Records a part's outcome, each key's own failure in a reply that succeeded included; true
   * when the next part may follow at once, false when the node is checked first (the run goes on
   * in a callback, or has ended).
   */
  private boolean take(List<String> keys, BatchReply<X> reply, Throwable failure, boolean again) {
    if (failure == null) {
      replies.putAll(reply.values());
      if (again) {
        // Answered this time: a key the reply does not name failed is stored, deleted or a miss.
        for (String key : keys) {
          failed.remove(key);
        }
      }
      failed.putAll(reply.failures());
      if (repeatable && !again && !reply.failures().isEmpty()) {
        // Keys of an answered part whose own request failed on the node (memcached answers each
        // key on its own; some may time out): sent again as a part of their own.
        List<String> onNode = new ArrayList<>();
        Throwable first = null;
        for (Map.Entry<String, Throwable> f : reply.failures().entrySet()) {
          if (requests.health().failures().isNodeFailure(f.getValue())) {
            onNode.add(f.getKey());
            first = first == null ? f.getValue() : first;
          }
        }
        if (first != null) {
          afterNodeFailure(onNode, first, false);
          return false;
        }
      }
      return true;
    }
    for (String key : keys) {
      failed.put(key, failure);
    }
    if (!requests.health().failures().isNodeFailure(failure)) {
      return true;
    }
    afterNodeFailure(keys, failure, again);
    return false;
  }

  /**
   * After {@code keys} failed on the node with {@code failure} (their failures recorded): checks
   * the node, then sends them once more (if repeatable and not sent again already) and the next
   * parts while it answers, or ends the batch.
   */
  private void afterNodeFailure(List<String> keys, Throwable failure, boolean again) {
    boolean sendAgain = repeatable && !again;
    if (again && next < againTo) {
      // A piece sent again failed too: its keys keep the failure, and the next piece follows,
      // each piece costing at most its own timeout; the node is checked after the last one.
      advance();
      return;
    }
    if (!sendAgain && next == parts.size()) {
      finish();
      return;
    }
    if (!m.available()) {
      notSent(failure, "the node is out");
      return;
    }
    check(0, 0)
        .whenComplete(
            (took, down) -> {
              if (down != null) {
                notSent(failure, "the node did not answer a ping after it either");
                return;
              }
              if (sendAgain) {
                // Sent again before the next parts, in pieces of a tenth of the part: a part
                // that outlived the timeout on a busy machine is then ten smaller requests, each
                // with its own timeout.
                int piece = Math.max(1, (keys.size() + Requests.AGAIN_PIECES - 1) / Requests.AGAIN_PIECES);
                List<List<String>> pieces = new ArrayList<>();
                for (int from = 0; from < keys.size(); from += piece) {
                  pieces.add(keys.subList(from, Math.min(keys.size(), from + piece)));
                }
                parts.addAll(next, pieces);
                againTo = next + pieces.size();
              }
              advance();
            });
  }

  /**
   * Pings the node until it answers, or until {@link Requests#CHECK_PINGS} pings in a row have
   * failed on it while its circuit keeps it in: a ping sent right after a timed-out part may wait
   * behind that part's late replies on the connection (a Redis pipeline of 1,000 commands on a
   * starved machine). A ping that timed out while this process lagged for half the timeout or more
   * (its threads waiting for a CPU, see {@link DeadlineScanner#laggedHalfATimeoutSince}) is no
   * evidence against the node, and is not counted; {@link Requests#MOST_PINGS} pings in all end
   * the check, so a stopped server on a starved machine still costs bounded time.
   *
   * @param counted the failed pings counted against the node so far
   * @param sent the pings sent so far
   */
  private CompletableFuture<Duration> check(int counted, int sent) {
    DeadlineScanner process = requests.deadlines();
    long lagAtStart = process.lagNanos();
    return requests.call(m, "ping", NodeConnection::ping, false, Function.identity(), null)
        .exceptionallyCompose(
            down -> {
              if (!requests.health().failures().isNodeFailure(down) || !m.available()) {
                return CompletableFuture.failedFuture(down);
              }
              boolean excused = requests.health().failures().isTimeout(down) && process.laggedHalfATimeoutSince(lagAtStart);
              int against = excused ? counted : counted + 1;
              return against < Requests.CHECK_PINGS && sent + 1 < Requests.MOST_PINGS
                  ? check(against, sent + 1)
                  : CompletableFuture.failedFuture(down);
            });
  }

  /** Fails the keys of the parts not sent yet, after {@code failure}, and ends the run. */
  private void notSent(Throwable failure, String why) {
    ShardwiseException cause = requests.asShardwise(m, failure);
    NodeUnavailableException notSent =
        new NodeUnavailableException(
            m.node,
            "not sent: an earlier part of this batch failed on this node (" + cause.getMessage() + ") and " + why,
            cause);
    for (int i = next; i < parts.size(); i++) {
      for (String key : parts.get(i)) {
        failed.put(key, notSent);
      }
    }
    next = parts.size();
    finish();
  }

  private void finish() {
    done.complete(new NodeReply<>(replies, failed, null));
  }
}
