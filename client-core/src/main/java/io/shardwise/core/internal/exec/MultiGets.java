package io.shardwise.core.internal.exec;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * getMulti of keys read on one node each: a key's only replica, or, for a key whose replicas are all
 * out, where the failure mode sends it ({@link Routes#readNode}). The keys are grouped by node, one
 * request per node. {@link ReplicaMultiGets} hands over a getMulti of keys stored on one replica
 * whole, with no change or bounded loads to take into account, and the keys whose replicas are all
 * out. Every key's outcome is what happened to that key.
 */
public final class MultiGets<V> {

  private final Requests requests;
  private final Routes routes;
  private final ClientMetrics metrics;
  private final ValueCodec<V> codec;

  public MultiGets(Requests requests, Routes routes, ClientMetrics metrics, ValueCodec<V> codec) {
    this.requests = requests;
    this.routes = routes;
    this.metrics = metrics;
    this.codec = codec;
  }

  /**
   * Sends the requests of a getMulti of {@code distinct} on {@code t}, which the caller counted
   * itself on and which is released when the getMulti is done, and returns at once.
   */
  public PendingGetMulti<V> start(Topology t, Set<String> distinct) {
    PendingGetMulti<V> pending;
    try {
      pending = plain(t, distinct);
    } catch (RuntimeException | Error e) {
      t.exit();
      throw e;
    }
    pending.done.whenComplete((x, y) -> t.exit());
    return pending;
  }

  /**
   * The keys of one getMulti on one topology, grouped by the node each is read on ({@link
   * Routes#readNode}); keys with no node are already errors.
   */
  private final class ReadPlan {
    final Topology t;
    final List<List<String>> byNode = new ArrayList<>();
    /**
     * The node of each key, in the order the keys were given; {@link Routes#NONE} if none, {@link
     * Routes#OLD_COPY} for a read answered as a miss because the only copy left may be old.
     */
    final int[] nodeOf;
    final Map<String, ShardwiseException> unavailable = new LinkedHashMap<>();

    ReadPlan(Topology t, Collection<String> keys) {
      this.t = t;
      int n = t.nodes.size();
      for (int i = 0; i < n; i++) {
        byNode.add(null);
      }
      nodeOf = new int[keys.size()];
      int index = 0;
      for (String key : keys) {
        long hash = t.hash(key);
        nodeOf[index++] = route(key, hash, t.router.primary(hash));
      }
    }

    private int route(String key, long hash, int primary) {
      int node = routes.readNode(t, hash, primary, key);
      if (node == Routes.NONE) {
        unavailable.put(key, routes.unavailable(t, primary, key));
        return node;
      }
      if (node == Routes.OLD_COPY) {
        metrics.oldCopySkipped(t.nodes.get(routes.select(t, hash, primary)));
        return node;
      }
      if (node != primary) {
        metrics.redirected(t.nodes.get(primary), t.nodes.get(node), "failover");
      }
      return add(node, key);
    }

    private int add(int node, String key) {
      List<String> list = byNode.get(node);
      if (list == null) {
        // Twice a node's fair share: one growth at most for most batches.
        list = new ArrayList<>(Math.max(10, 2 * nodeOf.length / byNode.size()));
        byNode.set(node, list);
      }
      list.add(key);
      return node;
    }
  }

  /**
   * Sends one getMulti request per node of {@code t} (in parts, for a node with more keys than the
   * batch size: {@link Requests#inParts}), and returns at once.
   */
  private PendingGetMulti<V> plain(Topology t, Set<String> distinct) {
    ReadPlan plan = new ReadPlan(t, distinct);
    // Per node, its reply; read once all parts are done.
    @SuppressWarnings({"unchecked", "rawtypes"})
    NodeReply<CachedValue>[] replies = new NodeReply[plan.byNode.size()];
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (int i = 0; i < plan.byNode.size(); i++) {
      List<String> nodeKeys = plan.byNode.get(i);
      if (nodeKeys == null) {
        continue;
      }
      int node = i;
      parts.add(
          requests.inParts(t.members[node], nodeKeys, null, true, keys -> requests.send(t, node, "getMulti", c -> c.getMulti(keys)))
              .thenAccept(
                  reply -> {
                    int answered = nodeKeys.size() - reply.failedCount(nodeKeys.size());
                    if (answered > 0) {
                      int hits = reply.replies().size();
                      metrics.reads(t.nodes.get(node), hits, answered - hits);
                    }
                    replies[node] = reply;
                  }));
    }
    return new PendingGetMulti<>(Requests.allOf(parts), () -> assemble(distinct, plan, replies));
  }

  /**
   * The result of a getMulti in the caller's key order, built in one pass: each key's outcome is
   * in the reply of its node.
   */
  private MultiResult<V> assemble(Set<String> distinct, ReadPlan plan, NodeReply<CachedValue>[] replies) {
    MultiResult.Builder<V> result = MultiResult.builder(distinct.size());
    int index = 0;
    for (String key : distinct) {
      int node = plan.nodeOf[index++];
      if (node == Routes.NONE) {
        result.error(key, plan.unavailable.get(key));
        continue;
      }
      if (node == Routes.OLD_COPY) {
        result.miss(key);
        continue;
      }
      NodeReply<CachedValue> reply = replies[node];
      Throwable failure = reply.failure(key);
      if (failure != null) {
        result.error(key, requests.asShardwise(plan.t.members[node], failure));
        continue;
      }
      CachedValue cv = reply.replies().get(key);
      if (cv == null) {
        result.miss(key);
        continue;
      }
      V value;
      try {
        value = codec.decode(cv);
      } catch (RuntimeException e) {
        // A value that cannot be decoded is that key's error.
        result.error(key, requests.asShardwise(plan.t.members[node], e));
        continue;
      }
      result.hit(key, value);
    }
    return result.build();
  }
}
