package io.shardwise.core.internal.exec;

import java.util.Map;

/**
 * What one node answered to a batch of keys, which may have been sent in parts ({@link
 * Requests#inParts}): the replies of the parts that succeeded, merged into one map, and the failure
 * of each key whose part failed or was not sent.
 *
 * @param replies what the node answered for the keys of the parts that succeeded
 * @param failed the failure of each key of a part that failed or was not sent; empty if none
 * @param all the failure of every key (the batch was one part and it failed), else null
 */
record NodeReply<X>(Map<String, X> replies, Map<String, Throwable> failed, Throwable all) {

  static <X> NodeReply<X> of(Map<String, X> replies) {
    return new NodeReply<>(replies, Map.of(), null);
  }

  static <X> NodeReply<X> failed(Throwable failure) {
    return new NodeReply<>(Map.of(), Map.of(), failure);
  }

  /** Why {@code key} has no reply, or null if its part succeeded. */
  Throwable failure(String key) {
    return all != null ? all : failed.isEmpty() ? null : failed.get(key);
  }

  /** How many keys got no reply because their part failed or was not sent. */
  int failedCount(int keys) {
    return all != null ? keys : failed.size();
  }
}
