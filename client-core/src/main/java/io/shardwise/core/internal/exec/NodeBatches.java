package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ShardwiseException;
import io.shardwise.core.internal.health.DirtyCopies;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.ToIntFunction;

/**
 * One node's batch of a multi-key write ({@link MultiWrites}): a setMulti or deleteMulti of the
 * keys that go there, in parts, handed over in the order of the node's old-copy deletes when some
 * of them are marked old there.
 */
final class NodeBatches {

  private final Requests requests;

  NodeBatches(Requests requests) {
    this.requests = requests;
  }

  /** A setMulti of {@code nodeKeys}' values to one node, in parts; what its reply says of each key. */
  CompletableFuture<NodeReply<Boolean>> storeOn(
      Topology t, int node, List<String> nodeKeys, Map<String, CachedValue> encoded, Duration ttl) {
    return sendBatch(
        t,
        node,
        nodeKeys,
        "setMulti",
        true,
        key -> encoded.get(key).length(),
        part -> {
          Map<String, CachedValue> batch = new LinkedHashMap<>();
          for (String key : part) {
            batch.put(key, encoded.get(key));
          }
          return c -> c.setMulti(batch, ttl);
        });
  }

  /** A deleteMulti of {@code nodeKeys} on one node, in parts; what its reply says of each key. */
  CompletableFuture<NodeReply<Boolean>> deleteOn(Topology t, int node, List<String> nodeKeys) {
    return sendBatch(t, node, nodeKeys, "deleteMulti", false, null, part -> c -> c.deleteMulti(part));
  }

  /** Why the write of {@code key} on {@code m} is not confirmed by {@code reply} ({@link NodeReply#unconfirmed}). */
  ShardwiseException notWritten(Member m, NodeReply<?> reply, String key) {
    return requests.asShardwise(m, reply.unconfirmed(key, m.node));
  }

  /**
   * Sends a batch write (set or delete: each leaves no older value of its key) to {@code node}, in
   * parts ({@link Requests#inParts}). If some of its keys are marked old there, each part is handed
   * over as {@link Writes} hands over a write of one such key: in the order of the node's old-copy
   * deletes; the marks of the keys it wrote are cleared once all parts are done.
   *
   * @param repeatable whether a part that timed out on a node that still answers is sent again
   *     ({@link Requests#inParts}): true for a set, which done twice leaves the same value; false
   *     for a delete, whose second reply would call a key it deleted absent
   * @param bytes the size of each key's value, or null
   * @param opFor the request of one part
   */
  private <X> CompletableFuture<NodeReply<X>> sendBatch(
      Topology t,
      int node,
      List<String> keys,
      String operation,
      boolean repeatable,
      ToIntFunction<String> bytes,
      Function<List<String>, Function<NodeConnection, CompletableFuture<BatchReply<X>>>> opFor) {
    Member member = t.members[node];
    DirtyCopies dirty = member.oldCopies();
    Map<String, Long> marked = null; // only when the node has old copies: most batches need none
    if (!dirty.isEmpty()) {
      for (String key : keys) {
        Long stamp = dirty.stamp(key);
        if (stamp != null) {
          if (marked == null) {
            marked = new HashMap<>();
          }
          marked.put(key, stamp);
        }
      }
    }
    if (marked == null) {
      return requests.inParts(member, keys, bytes, repeatable, part -> requests.send(t, node, operation, opFor.apply(part)));
    }
    Map<String, Long> cleared = marked;
    return requests
        .inParts(member, keys, bytes, repeatable, part -> dirty.handOff(() -> requests.send(t, node, operation, opFor.apply(part))))
        .whenComplete(
            (reply, x) ->
                cleared.forEach(
                    (key, stamp) -> {
                      if (reply.confirmed(key)) {
                        dirty.cleared(key, stamp);
                      }
                    }));
  }
}
