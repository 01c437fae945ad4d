package io.shardwise.core.internal.exec;

import io.shardwise.client.NodeException;
import io.shardwise.routing.Node;
import io.shardwise.spi.BatchReply;
import java.util.Map;

/**
 * What one node answered to a batch of keys, which may have been sent in parts ({@link
 * Requests#inParts}): the values of the keys answered, merged into one map, and the failure of
 * each key that was not: its part failed or was not sent, or its own request failed inside a part
 * that was answered ({@link BatchReply#failures()}).
 *
 * @param replies the values of the keys answered
 * @param failed the failure of each key not answered; empty if none
 * @param all the failure of every key (the batch was one part and it failed), else null
 */
record NodeReply<X>(Map<String, X> replies, Map<String, Throwable> failed, Throwable all) {

  /** A batch that was one part and got {@code reply}. */
  static <X> NodeReply<X> of(BatchReply<X> reply) {
    return new NodeReply<>(reply.values(), reply.failures(), null);
  }

  static <X> NodeReply<X> failed(Throwable failure) {
    return new NodeReply<>(Map.of(), Map.of(), failure);
  }

  /** Why {@code key} has no reply, or null if it was answered. */
  Throwable failure(String key) {
    return all != null ? all : failed.isEmpty() ? null : failed.get(key);
  }

  /**
   * Whether the node confirmed the write of {@code key} (a set or a delete): it was answered, with a
   * value. A key the reply says nothing of is not confirmed.
   */
  boolean confirmed(String key) {
    return failure(key) == null && replies.get(key) != null;
  }

  /**
   * Why the write of {@code key} on {@code node} is not {@link #confirmed}: its failure, or the
   * reply's silence on it.
   */
  Throwable unconfirmed(String key, Node node) {
    Throwable failure = failure(key);
    return failure != null
        ? failure
        : new NodeException(node, "the node's reply to the batch named no outcome for this key", null);
  }

  /** How many keys got no reply because their part, or their own request, failed or was not sent. */
  int failedCount(int keys) {
    return all != null ? keys : failed.size();
  }
}
