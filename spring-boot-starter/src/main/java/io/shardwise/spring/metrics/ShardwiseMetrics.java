package io.shardwise.spring.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NearCacheStats;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.client.NodeEvent;
import io.shardwise.client.NodeEventListener;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.TopologyChange;
import io.shardwise.client.NodeState;
import io.shardwise.routing.Node;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
 *   <tr><td>{@code shardwise.node.journaled}</td><td>gauge</td><td>node</td><td>keys written
 *       elsewhere while the server is out, to be deleted on it before it serves again (with {@link
 *       #watch})</td></tr>
 *   <tr><td>{@code shardwise.ejections.avoided}</td><td>counter</td><td>node, reason (cap,
 *       stall)</td><td>failures of a server not held against it: timeouts may keep no more of the
 *       fleet out, or this process had stalled</td></tr>
 *   <tr><td>{@code shardwise.rejoin.failures}</td><td>counter</td><td>node, error</td><td>a server
 *       answered its probe but its rejoin step failed, so it stays out</td></tr>
 *   <tr><td>{@code shardwise.journal.full}</td><td>counter</td><td>node</td><td>writes refused
 *       because the journal of the server they would skip is full</td></tr>
 *   <tr><td>{@code shardwise.old.copies.skipped}</td><td>counter</td><td>node (the server read
 *       instead)</td><td>failover reads answered as a miss because the copy there may be
 *       old</td></tr>
 *   <tr><td>{@code shardwise.client.stalls}</td><td>timer</td><td></td><td>times this process
 *       stopped running (a pause, a starved CPU), and for how long</td></tr>
 *   <tr><td>{@code shardwise.topology.changes}</td><td>counter</td><td></td><td>server lists that
 *       replaced another at runtime</td></tr>
 *   <tr><td>{@code shardwise.servers}</td><td>gauge</td><td></td><td>servers in the list in
 *       force (with {@link #watch})</td></tr>
 *   <tr><td>{@code shardwise.warmup.reads}</td><td>counter</td><td>node (the key's new server),
 *       result (hit, miss)</td><td>after a change, reads that missed on a moved key's new server
 *       and were read again from its previous server</td></tr>
 *   <tr><td>{@code shardwise.warmup.copies}</td><td>counter</td><td>node (the new
 *       server)</td><td>values read from a previous server and copied to the new one</td></tr>
 *   <tr><td>{@code shardwise.repairs}</td><td>counter</td><td>node (the replica repaired), cause
 *       (read, handoff, refill), result (copied, dropped)</td><td>with replicas, copies a replica
 *       lost written back from another replica, or due beyond the repair rate</td></tr>
 *   <tr><td>{@code shardwise.node.copies.to.repair}</td><td>gauge</td><td>node</td><td>copies
 *       the server lacks that the client is handing over from the other replicas</td></tr>
 *   <tr><td>{@code shardwise.node.emptied}</td><td>counter</td><td>node</td><td>with replicas,
 *       times the server was seen to have restarted or been flushed</td></tr>
 *   <tr><td>{@code shardwise.near.cache.*}, {@code shardwise.node.near.cache.tracked}</td><td>
 *       </td><td></td><td>the near cache's gets, evictions, invalidations by cause and size, with
 *       {@link #watch}: see {@link NearCacheMeters}</td></tr>
 *   <tr><td>{@code shardwise.node.missing.copies}</td><td>gauge</td><td>node</td><td>while a
 *       server that came back empty is refilled, the keys it held before less those it holds now
 *       </td></tr>
 * </table>
 *
 * <p>When a server leaves the list, its meters are removed, so that its gauges stop reporting and
 * a fleet whose addresses change (a DNS source) does not pile up series; a request that finishes
 * while the server drains counts again, without the gauge.
 */
public final class ShardwiseMetrics implements ClientMetrics, NodeEventListener {

  private final MeterRegistry registry;
  private final Tags commonTags;
  private final ConcurrentMap<Node, NodeMeters> nodes = new ConcurrentHashMap<>();
  private final List<AsyncCacheClient<?>> watched = new CopyOnWriteArrayList<>();
  private final Set<Node> removed = ConcurrentHashMap.newKeySet();

  public ShardwiseMetrics(MeterRegistry registry) {
    this(registry, Tags.empty());
  }

  /** With {@code commonTags} on every meter (e.g. {@code client=orders} for several clients). */
  public ShardwiseMetrics(MeterRegistry registry, Tags commonTags) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.commonTags = Objects.requireNonNull(commonTags, "commonTags");
  }

  /**
   * Registers every server's meters now rather than at its first request, and the gauge of each
   * server's journal.
   */
  public void watch(AsyncCacheClient<?> client) {
    watched.add(client);
    Gauge.builder("shardwise.servers", client, c -> c.nodes().size())
        .description("Servers in the list in force")
        .tags(commonTags)
        .register(registry);
    NearCacheMeters.register(registry, commonTags, client);
    client.nodes().forEach(node -> watchNode(client, node));
  }

  private void watchNode(AsyncCacheClient<?> client, Node node) {
    meters(node);
    statusGauge(client, node, "shardwise.node.journaled", "Keys written elsewhere while the server is out", NodeStatus::journaledKeys);
    statusGauge(
        client,
        node,
        "shardwise.node.copies.to.repair",
        "Copies the server lacks that the client is handing over from the other replicas",
        NodeStatus::copiesToRepair);
    statusGauge(
        client,
        node,
        "shardwise.node.missing.copies",
        "Keys a server that came back empty held before and lacks now, while it is refilled",
        NodeStatus::missingCopies);
    NearCacheStats near = client.nearCacheStats();
    if (near != null && near.enabled()) {
      statusGauge(
          client,
          node,
          "shardwise.node.near.cache.tracked",
          "1 while the server tracks the near cache's reads, else 0",
          s -> s.nearCache() == NearCacheTracking.TRACKED ? 1 : 0);
    }
  }

  /** A gauge of one number of {@code node}'s {@link NodeStatus}, 0 while the client has none. */
  private void statusGauge(
      AsyncCacheClient<?> client,
      Node node,
      String name,
      String description,
      java.util.function.ToDoubleFunction<NodeStatus> value) {
    Gauge.builder(
            name,
            client,
            c -> {
              NodeStatus status = c.nodeStatus().get(node);
              return status == null ? 0 : value.applyAsDouble(status);
            })
        .description(description)
        .tags(commonTags)
        .tag("node", node.name())
        .register(registry);
  }

  @Override
  public void topologyChanged(TopologyChange change) {
    Counter.builder("shardwise.topology.changes")
        .description("Server lists that replaced another at runtime")
        .tags(commonTags)
        .register(registry)
        .increment();
    removed.removeAll(change.added());
    removed.addAll(change.removed());
    for (Node node : change.removed()) {
      nodes.remove(node);
      for (Meter meter : registry.getMeters()) {
        Meter.Id id = meter.getId();
        if (node.name().equals(id.getTag("node"))
            && id.getName().startsWith("shardwise.")
            && commonTags.stream().allMatch(t -> t.getValue().equals(id.getTag(t.getKey())))) {
          registry.remove(meter);
        }
      }
    }
    for (Node node : change.added()) {
      watched.forEach(client -> watchNode(client, node));
    }
  }

  @Override
  public void warmUpRead(Node previousOwner, Node newOwner, boolean hit) {
    warmUp(newOwner, hit ? "hit" : "miss").increment();
  }

  @Override
  public void warmUpCopied(Node newOwner) {
    warmUp(newOwner, "copy").increment();
  }

  private Counter warmUp(Node node, String what) {
    return meters(node)
        .warmUp
        .computeIfAbsent(
            what,
            k ->
                "copy".equals(k)
                    ? counter(
                        "shardwise.warmup.copies",
                        "Values copied from a moved key's previous server to its new one",
                        node)
                    : Counter.builder("shardwise.warmup.reads")
                        .description(
                            "Reads of a moved key's previous server after a miss on its new one")
                        .tags(commonTags)
                        .tags("node", node.name(), "result", k)
                        .register(registry));
  }

  @Override
  public void repaired(Node node, String cause) {
    repairs(node, cause, "copied").increment();
  }

  @Override
  public void repairDropped(Node node, String cause) {
    repairs(node, cause, "dropped").increment();
  }

  private Counter repairs(Node node, String cause, String result) {
    return meters(node)
        .repairs
        .computeIfAbsent(
            cause + '/' + result,
            k ->
                Counter.builder("shardwise.repairs")
                    .description("Copies a replica lost, written back from another replica (copied), or due beyond the repair rate (dropped)")
                    .tags(commonTags)
                    .tags("node", node.name(), "cause", cause, "result", result)
                    .register(registry));
  }

  @Override
  public void cameBackEmpty(Node node, long missing) {
    counter("shardwise.node.emptied", "Times the server was seen to have restarted or been flushed", node)
        .increment();
  }

  @Override
  public void oldCopySkipped(Node node) {
    counter(
            "shardwise.old.copies.skipped",
            "Failover reads answered as a miss: the copy there may be old",
            node)
        .increment();
  }

  @Override
  public void journalFull(Node node) {
    counter(
            "shardwise.journal.full",
            "Writes refused: the journal of the server they skip is full",
            node)
        .increment();
  }

  @Override
  public void ejectionAvoided(Node node, String reason) {
    Counter.builder("shardwise.ejections.avoided")
        .description("Failures of a server not held against it")
        .tags(commonTags)
        .tags("node", node.name(), "reason", reason)
        .register(registry)
        .increment();
  }

  @Override
  public void rejoinFailed(Node node, Throwable cause) {
    Counter.builder("shardwise.rejoin.failures")
        .description("Rejoin steps that failed, keeping a server out")
        .tags(commonTags)
        .tags("node", node.name(), "error", rootCause(cause).getClass().getSimpleName())
        .register(registry)
        .increment();
  }

  @Override
  public void clientStalled(long nanos) {
    Timer.builder("shardwise.client.stalls")
        .description("Times this process stopped running, and for how long")
        .tags(commonTags)
        .register(registry)
        .record(nanos, TimeUnit.NANOSECONDS);
  }

  private Counter counter(String name, String description, Node node) {
    return Counter.builder(name)
        .description(description)
        .tags(commonTags)
        .tag("node", node.name())
        .register(registry);
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
  public void replicaRead(Node node, int rank) {
    meters(node)
        .replicaReads
        .computeIfAbsent(
            rank,
            r ->
                Counter.builder("shardwise.replica.reads")
                    .description("Reads of keys stored on several replicas, per server and replica rank (0: the primary)")
                    .tags(commonTags)
                    .tags("node", node.name(), "rank", Integer.toString(r))
                    .register(registry))
        .increment();
  }

  @Override
  public void replicaFailover(Node from, Node to, String reason) {
    meters(from)
        .replicaFailovers
        .computeIfAbsent(
            to.name() + '\0' + reason,
            k ->
                Counter.builder("shardwise.replica.failovers")
                    .description("Reads that went on to a key's next replica after a miss or an error")
                    .tags(commonTags)
                    .tags("node", from.name(), "to", to.name(), "reason", reason)
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
    final ConcurrentMap<Integer, Counter> replicaReads = new ConcurrentHashMap<>();
    final ConcurrentMap<String, Counter> replicaFailovers = new ConcurrentHashMap<>();
    final ConcurrentMap<String, Counter> warmUp = new ConcurrentHashMap<>();
    final ConcurrentMap<String, Counter> repairs = new ConcurrentHashMap<>();
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
      if (!removed.contains(node)) { // else a request that finished while the server drained
        Gauge.builder("shardwise.node.up", this, m -> m.state == NodeState.HEALTHY ? 1 : 0)
            .description("1 while the client routes to the server, else 0")
            .tags(commonTags)
            .tag("node", name)
            .register(registry);
      }
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
