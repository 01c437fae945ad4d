package io.shardwise.core;

import io.shardwise.client.TopologyChange;
import io.shardwise.core.config.NearCacheSettings;
import io.shardwise.core.internal.near.NearCache;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The near-cache keys of a change made while the client serves ({@code updatePlacement}): checked
 * with the rest of the change, put in force in place once the rest is ({@link NearCache#apply}),
 * without a new topology when they are all the change names (a new topology drops every entry).
 */
final class NearCacheChanges {

  /** Null when the client has no near cache. */
  private final NearCache near;
  private final Supplier<List<Node>> servers;
  /** The placement in force, as the client names it. */
  private final Supplier<String> placement;

  NearCacheChanges(NearCache near, Supplier<List<Node>> servers, Supplier<String> placement) {
    this.near = near;
    this.servers = servers;
    this.placement = placement;
  }

  /** {@code settings}' near-cache keys applied here, the others handed to {@code placements}. */
  CompletableFuture<TopologyChange> update(
      Map<String, String> settings, Function<Map<String, String>, CompletableFuture<TopologyChange>> placements) {
    Map<String, String> own = new LinkedHashMap<>();
    Map<String, String> rest = new LinkedHashMap<>();
    settings.forEach((k, v) -> (NearCacheSettings.isNearCacheKey(String.valueOf(k)) ? own : rest).put(k, v));
    if (own.isEmpty()) {
      return placements.apply(settings);
    }
    NearCacheOptions next;
    try {
      if (near == null) {
        throw new IllegalArgumentException(
            own.keySet().iterator().next() + ": the near cache is off, and shardwise.near-cache.enabled is read at start-up"
                + " only; restart the client to turn it on");
      }
      next = NearCacheSettings.change(own, near.options(), near.tracked());
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException("placement change refused, the placement in force stays: " + e.getMessage(), e));
    }
    if (rest.isEmpty()) {
      near.apply(next);
      List<Node> nodes = servers.get();
      String p = placement.get();
      return CompletableFuture.completedFuture(new TopologyChange(nodes, nodes, List.of(), List.of(), 0, Instant.now(), Duration.ZERO, p, p));
    }
    return placements.apply(rest).thenApply(change -> {
      near.apply(next);
      return change;
    });
  }
}
