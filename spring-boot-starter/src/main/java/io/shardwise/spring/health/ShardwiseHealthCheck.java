package io.shardwise.spring.health;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.TopologyChange;
import io.shardwise.client.TopologyStatus;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

/**
 * Health of the fleet, free of any Spring Boot type so that the indicators of Boot 4 ({@link
 * ShardwiseHealthIndicator}) and Boot 3.5 ({@link Boot3HealthIndicator}) show the same: pings
 * every server the client routes to, through the client, and shows each server's ping and its
 * state in the client's view.
 *
 * <pre>
 * "shardwise": {
 *   "status": "UP",
 *   "details": {
 *     "backend": "memcached", "up": 1, "servers": 3,
 *     "serverList": "10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211",
 *     "lastTopologyChange": {"at": "...", "summary": "2 -> 3 nodes (+1 -0), 33.1% of keys move",
 *                            "before": "10.0.0.1:11211,10.0.0.2:11211",
 *                            "added": "10.0.0.3:11211", "removed": "", "warmUpUntil": "..."},
 *     "topology": {"phase": "warming", "phaseEnds": "...", "warmUpReads": 5120,
 *                  "warmUpHits": 5093, "warmUpCopies": 5093},
 *     "nodes": {
 *       "10.0.0.1:11211": {"status": "UP", "state": "HEALTHY", "ping": "ok", "since": "...",
 *                          "latency": "0.41ms"},
 *       "10.0.0.2:11211": {"status": "DOWN", "state": "PROBING",
 *                          "ping": "not sent: the client has taken it out and probes it itself",
 *                          "since": "...",
 *                          "reason": "answers, but stays out: its rejoin step ... failed: ...",
 *                          "journaledKeys": 1874},
 *       "10.0.0.3:11211": {"status": "DOWN", "state": "HEALTHY", "ping": "failed", "since": "...",
 *                          "reason": "did not answer this check's ping, but the client still
 *                                     routes its keys to it: it is ejected after ...",
 *                          "error": "..."},
 *       ...
 * </pre>
 *
 * <p>A server is UP when it answers the ping and the client routes to it ({@code HEALTHY}); DOWN
 * otherwise. The fleet is UP while at least one server is: requests for a down server's keys go to
 * other servers (failure mode {@code redistribute}) or fail fast, and neither makes the application
 * unhealthy; it is DOWN when no server is.
 *
 * <p>A ping is a request like any other: a failed one counts towards ejecting its server, and in
 * {@code shardwise.errors{operation=ping}}. So a dead server the application sends nothing to is
 * ejected after {@code failure-threshold} checks, and reads {@code DOWN} with state {@code HEALTHY}
 * and {@code ping} failed until then. A server the client has taken out ({@code EJECTED}, {@code
 * PROBING}) is not pinged: the client probes it on its own schedule and readmits it, and the check
 * shows its state and the client's reason.
 *
 * <p>{@code serverList} is the list in force, in the server-list syntax; {@code lastTopologyChange}
 * the last time it changed at runtime (a watched file, a DNS name, a refreshed property, a call of
 * {@code updateServers}), absent until then; {@code topology} where the keys it moved stand
 * (settling, warming) and the warm-up's reads on previous servers, hits there and copies made,
 * absent when nothing is moving and nothing was warmed.
 *
 * <p>{@code reason} says why a server is out, why a failing one was kept in (see {@link
 * io.shardwise.client.NodeStatus#detail()}), or that a server the client routes to failed the
 * ping; {@code journaledKeys} counts the keys written elsewhere while it is out, which are deleted
 * on it before it serves again. With a near cache, {@code nearCache} says how the server keeps it
 * fresh: {@code tracked} (Redis tracks the reads of the connection in use), {@code not tracked (no
 * connection)} (Redis, while no connection is up: what was read from it was dropped), or {@code not
 * tracked (bounded staleness)} (memcached: entries live at most {@code max-staleness}); it does not
 * change the server's status.
 */
public final class ShardwiseHealthCheck {

  /** {@code ping} of a server the client has taken out: its own probes check it. */
  static final String NOT_PINGED = "not sent: the client has taken it out and probes it itself";

  /** {@code reason} of a server the client routes to that did not answer the ping. */
  static final String STILL_ROUTED =
      "did not answer this check's ping, but the client still routes its keys to it: it is ejected"
          + " after shardwise.failure-threshold node failures in a row, requests and these pings"
          + " alike";

  private final AsyncCacheClient<?> client;
  private final String backend;
  private final Duration wait;
  private final LastTopologyChange lastChange;

  /**
   * @param wait longest wait for the pings; each also fails by itself after the client's timeout
   */
  public ShardwiseHealthCheck(AsyncCacheClient<?> client, String backend, Duration wait) {
    this(client, backend, wait, null);
  }

  /**
   * @param lastChange the client's last server-list change, shown as {@code lastTopologyChange};
   *     {@code null} when the client does not report it
   */
  public ShardwiseHealthCheck(
      AsyncCacheClient<?> client, String backend, Duration wait, LastTopologyChange lastChange) {
    this.client = Objects.requireNonNull(client, "client");
    this.backend = Objects.requireNonNull(backend, "backend");
    this.wait = Objects.requireNonNull(wait, "wait");
    this.lastChange = lastChange;
  }

  /** Whether the fleet is up, and the details to show. */
  public record Result(boolean up, Map<String, Object> details) {}

  /**
   * Pings every server the client routes to, waiting at most the time given at construction, and
   * reports every server of the list in force.
   */
  public Result check() {
    List<Node> servers = client.nodes();
    Map<Node, NodeStatus> before = client.nodeStatus();
    Map<Node, CompletableFuture<Duration>> pings = new LinkedHashMap<>();
    for (Node server : servers) {
      if (state(before.get(server)) == NodeState.HEALTHY) {
        pings.put(server, ping(server));
      }
    }
    long deadline = System.nanoTime() + wait.toNanos();
    Map<Node, Object> results = new LinkedHashMap<>();
    for (Map.Entry<Node, CompletableFuture<Duration>> ping : pings.entrySet()) {
      try {
        long left = Math.max(0, deadline - System.nanoTime());
        results.put(ping.getKey(), ping.getValue().get(left, TimeUnit.NANOSECONDS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        results.put(ping.getKey(), e);
      } catch (ExecutionException | CompletionException e) {
        results.put(ping.getKey(), e.getCause() != null ? e.getCause() : e);
      } catch (TimeoutException e) {
        results.put(
            ping.getKey(), new TimeoutException("no answer within " + wait.toMillis() + "ms"));
      }
    }
    // The states after the pings: a ping may have been the failure that ejected its server.
    Map<Node, NodeStatus> states = client.nodeStatus();
    Map<String, Object> nodes = new LinkedHashMap<>();
    int up = 0;
    for (Node server : servers) {
      NodeStatus status = states.get(server);
      NodeState state = state(status);
      Object result = results.get(server);
      boolean answered = result instanceof Duration;
      boolean nodeUp = answered && state == NodeState.HEALTHY;
      up += nodeUp ? 1 : 0;
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("status", nodeUp ? "UP" : "DOWN");
      node.put("state", state.name());
      node.put("ping", result == null ? NOT_PINGED : answered ? "ok" : "failed");
      node.put("address", server.address());
      if (status != null) {
        node.put("since", status.since().toString());
      }
      String reason = status == null ? "" : status.detail();
      if (reason.isEmpty() && result != null && !answered && state == NodeState.HEALTHY) {
        reason = STILL_ROUTED;
      }
      if (!reason.isEmpty()) {
        node.put("reason", reason);
      }
      if (status != null && status.journaledKeys() > 0) {
        node.put("journaledKeys", status.journaledKeys());
      }
      if (status != null && status.copiesToRepair() > 0) {
        node.put("copiesToRepair", status.copiesToRepair());
      }
      if (status != null && status.missingCopies() > 0) {
        node.put("missingCopies", status.missingCopies());
      }
      if (status != null && status.nearCache() != NearCacheTracking.OFF) {
        node.put("nearCache", status.nearCache().toString());
      }
      if (answered) {
        node.put(
            "latency",
            String.format(
                java.util.Locale.ROOT, "%.2fms", ((Duration) result).toNanos() / 1e6));
      } else if (result != null) {
        node.put("error", String.valueOf(((Throwable) result).getMessage()));
      }
      nodes.put(server.name(), node);
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("backend", backend);
    details.put("up", up);
    details.put("servers", servers.size());
    details.put("serverList", serverList(client.nodes()));
    details.put("nodes", nodes);
    if (lastChange != null) {
      lastChange.get().ifPresent(c -> details.put("lastTopologyChange", describe(c)));
    }
    TopologyStatus topology = client.topologyStatus();
    if (topology != null
        && (topology.phase() != TopologyStatus.Phase.STABLE || topology.warmUpReads() > 0)) {
      details.put("topology", describe(topology));
    }
    return new Result(up > 0, details);
  }

  private CompletableFuture<Duration> ping(Node server) {
    try {
      return client.ping(server);
    } catch (RuntimeException e) {
      // E.g. removed from the list between the two reads of it.
      return CompletableFuture.failedFuture(e);
    }
  }

  /** A server's state in the client's view; one the view does not list yet is routed to. */
  private static NodeState state(NodeStatus status) {
    return status == null ? NodeState.HEALTHY : status.state();
  }

  private static String serverList(List<Node> servers) {
    return servers.stream().map(Node::toString).collect(Collectors.joining(","));
  }

  /** Where the last change's moved keys stand, and the warm-up's progress. */
  private static Map<String, Object> describe(TopologyStatus status) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("phase", status.phase().name().toLowerCase(java.util.Locale.ROOT));
    if (status.phaseEnds() != null) {
      out.put("phaseEnds", status.phaseEnds().toString());
    }
    out.put("warmUpReads", status.warmUpReads());
    out.put("warmUpHits", status.warmUpHits());
    out.put("warmUpCopies", status.warmUpCopies());
    return out;
  }

  private static Map<String, Object> describe(TopologyChange change) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("at", change.appliedAt().toString());
    out.put("summary", change.toString());
    out.put("before", serverList(change.before()));
    out.put("added", serverList(change.added()));
    out.put("removed", serverList(change.removed()));
    if (!change.warmUp().isZero()) {
      out.put("warmUpUntil", change.appliedAt().plus(change.warmUp()).toString());
    }
    return out;
  }
}
