package io.shardwise.spring.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeEventListener;
import io.shardwise.client.NodeState;
import io.shardwise.routing.Node;
import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer meters for a Shardwise client, tagged by server ({@code node}: the server's name, its
 * address unless named), never by key. Pass it to the client as both its {@link ClientMetrics} and
 * a {@link NodeEventListener}; the Spring Boot starter does.
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>name</th><th>type</th><th>tags</th><th>what</th></tr>
 *   <tr><td>{@code shardwise.requests}</td><td>timer</td><td>node, operation, outcome
 *       (success, error)</td><td>requests sent to a server and their latency</td></tr>
 *   <tr><td>{@code shardwise.errors}</td><td>counter</td><td>node, operation, error (exception
 *       class)</td><td>failed requests</td></tr>
 *   <tr><td>{@code shardwise.reads}</td><td>counter</td><td>node, result (hit, miss)</td><td>keys
 *       read: hits and misses</td></tr>
 *   <tr><td>{@code shardwise.redirects}</td><td>counter</td><td>node (the key's server), to,
 *       reason (failover, spill)</td><td>requests sent to another server than the key's: failover
 *       past an ejected server, or a bounded-load spill</td></tr>
 *   <tr><td>{@code shardwise.ejections}</td><td>counter</td><td>node</td><td>times a server was
 *       ejected</td></tr>
 *   <tr><td>{@code shardwise.readmissions}</td><td>counter</td><td>node</td><td>times a server was
 *       readmitted</td></tr>
 *   <tr><td>{@code shardwise.node.up}</td><td>gauge</td><td>node</td><td>1 while the client routes
 *       to the server, else 0</td></tr>
 * </table>
 */
public final class ShardwiseMetrics implements ClientMetrics, NodeEventListener {

  private final MeterRegistry registry;
  private final Tags commonTags;
  private final ConcurrentMap<Node, NodeMeters> nodes = new ConcurrentHashMap<>();

  public ShardwiseMetrics(MeterRegistry registry) {
    this(registry, Tags.empty());
  }

  /** With {@code commonTags} on every meter (e.g. {@code client=orders} for several clients). */
  public ShardwiseMetrics(MeterRegistry registry, Tags commonTags) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.commonTags = Objects.requireNonNull(commonTags, "commonTags");
  }

  /** Registers every server's meters now rather than at its first request. */
  public void watch(AsyncCacheClient<?> client) {
    client.nodes().forEach(this::meters);
  }

  @Override
  public void request(Node node, String operation, long latencyNanos, Throwable failure) {
    NodeMeters m = meters(node);
    if (failure == null) {
      timer(m.successes, node, operation, "success").record(latencyNanos, TimeUnit.NANOSECONDS);
    } else {
      timer(m.failures, node, operation, "error").record(latencyNanos, TimeUnit.NANOSECONDS);
      String error = rootCause(failure).getClass().getSimpleName();
      m.errors
          .computeIfAbsent(
              operation + '\0' + error,
              k ->
                  Counter.builder("shardwise.errors")
                      .description("Failed requests")
                      .tags(commonTags)
                      .tags("node", node.name(), "operation", operation, "error", error)
                      .register(registry))
          .increment();
    }
  }

  @Override
  public void reads(Node node, int hits, int misses) {
    NodeMeters m = meters(node);
    if (hits > 0) {
      m.hits.increment(hits);
    }
    if (misses > 0) {
      m.misses.increment(misses);
    }
  }

  @Override
  public void redirected(Node primary, Node to, String reason) {
    meters(primary)
        .redirects
        .computeIfAbsent(
            to.name() + '\0' + reason,
            k ->
                Counter.builder("shardwise.redirects")
                    .description("Requests sent to another server than their key's")
                    .tags(commonTags)
                    .tags("node", primary.name(), "to", to.name(), "reason", reason)
                    .register(registry))
        .increment();
  }

  @Override
  public void onEvent(NodeEvent event) {
    NodeMeters m = meters(event.node());
    m.state = event.to();
    if (event.isEjection()) {
      m.ejections.increment();
    } else if (event.isReadmission()) {
      m.readmissions.increment();
    }
  }

  private NodeMeters meters(Node node) {
    NodeMeters m = nodes.get(node);
    return m != null ? m : nodes.computeIfAbsent(node, NodeMeters::new);
  }

  private Timer timer(
      ConcurrentMap<String, Timer> timers, Node node, String operation, String outcome) {
    Timer t = timers.get(operation);
    return t != null ? t : timers.computeIfAbsent(operation, op -> timer(node, op, outcome));
  }

  private Timer timer(Node node, String operation, String outcome) {
    return Timer.builder("shardwise.requests")
        .description("Requests sent to a server, and their latency")
        .tags(commonTags)
        .tags("node", node.name(), "operation", operation, "outcome", outcome)
        .register(registry);
  }

  private static Throwable rootCause(Throwable t) {
    Throwable c = t;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }

  private final class NodeMeters {
    final ConcurrentMap<String, Timer> successes = new ConcurrentHashMap<>();
    final ConcurrentMap<String, Timer> failures = new ConcurrentHashMap<>();
    final ConcurrentMap<String, Counter> errors = new ConcurrentHashMap<>();
    final ConcurrentMap<String, Counter> redirects = new ConcurrentHashMap<>();
    final Counter hits;
    final Counter misses;
    final Counter ejections;
    final Counter readmissions;
    volatile NodeState state = NodeState.HEALTHY;

    NodeMeters(Node node) {
      String name = node.name();
      hits = reads(name, "hit");
      misses = reads(name, "miss");
      ejections =
          Counter.builder("shardwise.ejections")
              .description("Times a server was ejected")
              .tags(commonTags)
              .tag("node", name)
              .register(registry);
      readmissions =
          Counter.builder("shardwise.readmissions")
              .description("Times a server was readmitted")
              .tags(commonTags)
              .tag("node", name)
              .register(registry);
      Gauge.builder("shardwise.node.up", this, m -> m.state == NodeState.HEALTHY ? 1 : 0)
          .description("1 while the client routes to the server, else 0")
          .tags(commonTags)
          .tag("node", name)
          .register(registry);
    }

    private Counter reads(String node, String result) {
      return Counter.builder("shardwise.reads")
          .description("Keys read: hits and misses")
          .tags(commonTags)
          .tags("node", node, "result", result)
          .register(registry);
    }
  }
}
