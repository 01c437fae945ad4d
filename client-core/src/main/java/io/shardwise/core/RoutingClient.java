package io.shardwise.core;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.LoadReport;
import io.shardwise.client.MultiResult;
import io.shardwise.client.NodeException;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import io.shardwise.client.NodeTimeoutException;
import io.shardwise.client.ShardwiseException;
import io.shardwise.client.TopologyChange;
import io.shardwise.client.TopologyStatus;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.change.LongestTtl;
import io.shardwise.core.internal.change.Topologies;
import io.shardwise.core.internal.change.WarmUp;
import io.shardwise.core.internal.health.DeadlineScanner;
import io.shardwise.core.internal.health.DirtyCopies;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.route.FailoverOrder;
import io.shardwise.core.internal.route.MovedKeys;
import io.shardwise.core.internal.route.Routes;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.core.internal.route.Transition;
import io.shardwise.core.internal.spill.BoundedReads;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The routing client: validates keys and values, hashes the routing key (the hash tag if
 * configured), picks the node (the key's primary, or with the primary ejected what the {@link
 * FailureMode} says), and sends the command on that node's connection with the configured
 * timeout. Multi-key operations send one batched request per node, all nodes at once, and
 * account for every key. Every outcome is recorded on the node's circuit ({@link FleetHealth}).
 */
final class RoutingClient<V> implements AsyncCacheClient<V> {

  private final Backend backend;
  /** The current topology; replaced whole by {@link #updateServers}. */
  private volatile Topology topology;
  private final Topologies topologies;
  private final FleetHealth health;
  private final ValueCodec<V> codec;
  /** {@link #decodeOrNull(CachedValue)}, made once: a method reference would be made per read. */
  private final Function<CachedValue, V> decodeOrNull = this::decodeOrNull;
  private final KeyRules keyRules;
  private final Duration timeout;
  private final int maxValueBytes;
  private final Failback failback;
  private final Routes routes;
  private final boolean redistributing;
  private final boolean retrying;
  private final ClientMetrics metrics;
  private final DeadlineScanner deadlines;
  private final WarmUp warmUp;
  /** The longest TTL written, for how long a changed placement is remembered. */
  private final LongestTtl ttls;
  /** {@code shardwise(<backend>, <router>}: {@link #toString()} adds the current fleet size. */
  private final String description;
  private final CacheClient<V> sync;
  private volatile boolean closed;

  RoutingClient(
      Backend backend,
      Topology topology,
      FleetHealth health,
      ValueCodec<V> codec,
      Duration timeout,
      int maxValueBytes,
      String routerDescription,
      ClientMetrics metrics,
      Topologies.Settings settings) {
    this.backend = backend;
    this.metrics = metrics;
    this.deadlines = new DeadlineScanner(timeout.toNanos(), metrics::clientStalled);
    health.watchStalls(deadlines);
    this.failback = health.failback();
    this.topology = topology;
    this.health = health;
    health.watchMembers(
        () -> {
          Set<Member> members = new LinkedHashSet<>();
          this.topology.collectMembers(members, System.nanoTime());
          return members;
        });
    this.warmUp = new WarmUp(settings.options().copyTtl(), metrics);
    this.ttls = settings.ttls();
    this.topologies = new Topologies(settings, backend, health, metrics, () -> this.topology, t -> this.topology = t);
    this.codec = codec;
    this.keyRules = backend.keyRules();
    this.timeout = timeout;
    this.maxValueBytes = maxValueBytes;
    FailoverOptions failover = health.options();
    this.routes = new Routes(failover.failureMode());
    this.redistributing = routes.redistributes();
    this.retrying = failover.failureMode() == FailureMode.RETRY && failover.retryAttempts() > 0;
    this.description = "shardwise(" + backend.name() + ", " + routerDescription;
    this.sync = new SyncCacheClient<>(this, timeout);
  }

  // ---- topology snapshots ------------------------------------------------------------------

  /**
   * The current topology, counted as in use until {@link #exit}: re-read after counting, so that a
   * topology replaced meanwhile is never used (see {@link Topologies} for why that matters).
   */
  private Topology enter() {
    while (true) {
      Topology t = topology;
      t.active.increment();
      if (topology == t) {
        return t;
      }
      t.active.decrement();
    }
  }

  private static void exit(Topology t) {
    t.active.decrement();
  }

  /** Runs {@code body} on the current topology, which stays in use until its future completes. */
  private <R> CompletableFuture<R> inTopology(Function<Topology, CompletableFuture<R>> body) {
    Topology t = enter();
    CompletableFuture<R> f;
    try {
      f = body.apply(t);
    } catch (RuntimeException | Error e) {
      exit(t);
      throw e;
    }
    f.whenComplete((r, x) -> exit(t));
    return f;
  }

  // ---- single-key operations -----------------------------------------------------------------

  @Override
  public CompletableFuture<V> get(String key) {
    validate(key);
    Topology t = enter();
    try {
      if (t.bounded == null && !retrying && !t.readsHistory()) {
        // The common case, one request: the topology is released in the stage of its reply.
        long hash = t.hash(key);
        return get(t, key, hash, t.router.primary(hash), t);
      }
      CompletableFuture<V> f = get(t, key);
      f.whenComplete((v, x) -> exit(t));
      return f;
    } catch (RuntimeException | Error e) {
      exit(t);
      throw e;
    }
  }

  private CompletableFuture<V> get(Topology t, String key) {
    long now = System.nanoTime();
    MovedKeys.Move move = t.readsHistory(now) ? MovedKeys.route(t, key, now) : null;
    if (move == null || (move.serving == t && move.sources.length == 0)) {
      long hash = t.hash(key);
      return get(t, key, hash, t.router.primary(hash), null);
    }
    return movedGet(t, move, key).thenApply(this::decodeOrNull);
  }

  /**
   * A read routed on {@code t} (the primary, a spill or a failover node), decoded. With {@code
   * release} (only for one request: no bounded loads, no retries) that topology is released when
   * the read is done.
   */
  private CompletableFuture<V> get(Topology t, String key, long hash, int primary, Topology release) {
    BoundedReads bounded = t.bounded;
    if (bounded != null) {
      int chosen = bounded.selectRead(key, hash);
      if (chosen >= 0 && chosen != primary && t.members[primary].available()) {
        return spilledGet(t, key, primary, chosen).thenApply(this::decodeOrNull);
      }
    }
    int node = select(t, hash, primary);
    if (node == Routes.NONE) {
      release(release);
      return CompletableFuture.failedFuture(routes.unavailable(t, primary, key));
    }
    if (failback.isOldCopy(t.members[node], key)) {
      release(release);
      metrics.oldCopySkipped(t.nodes.get(node));
      return CompletableFuture.completedFuture(null);
    }
    if (retrying) {
      return send(t, node, "get", c -> c.get(key), true).thenApply(this::decodeOrNull);
    }
    if (bounded != null) {
      bounded.loads.record(node);
    }
    // The value is decoded in the stage that handles the reply: no stage of its own.
    return call(t.members[node], "get", c -> c.get(key), true, decodeOrNull, release);
  }

  private static void release(Topology t) {
    if (t != null) {
      exit(t);
    }
  }

  /**
   * A read of a key that moved in a change still being taken over ({@link MovedKeys}): on its
   * serving node (the previous owner while the change settles, else its new node, or where the
   * failure mode sends it), then after a miss on each source in turn. A hit on a source is copied
   * to the new node if that node was read and copies are due (see {@link WarmUp}).
   */
  private CompletableFuture<CachedValue> movedGet(Topology t, MovedKeys.Move move, String key) {
    long generation = warmUp.generation(key);
    Topology serving = move.serving;
    int primary = move.servingPrimary;
    boolean copyToOwner = move.copies && serving == t && t.members[primary].available();
    CompletableFuture<CachedValue> first =
        copyToOwner && !failback.isOldCopy(t.members[primary], key)
            ? send(t, primary, "get", c -> c.get(key), true)
            : rawGet(serving, key, serving.hash(key), primary);
    return first.thenCompose(found -> found != null ? CompletableFuture.completedFuture(found)
        : fromSources(move, key, 0, copyToOwner, generation));
  }

  /** Reads {@code key} on the sources of {@code move} from {@code index}, until one has it. */
  private CompletableFuture<CachedValue> fromSources(
      MovedKeys.Move move, String key, int index, boolean copyToOwner, long generation) {
    for (int i = index; i < move.sources.length; i++) {
      Member before = move.sources[i];
      if (!before.available() || before.retired || failback.isOldCopy(before, key)) {
        continue;
      }
      int next = i + 1;
      return call(before, "warmUpGet", c -> c.get(key), false, Function.identity())
          .handle(
              (old, failure) -> {
                if (failure == null) {
                  warmUp.read(before, move.owner, old != null);
                }
                if (old != null && copyToOwner) {
                  warmUp.copy(key, old, generation, before, move.owner, this::sendTo);
                }
                return old;
              })
          .thenCompose(
              old -> old != null ? CompletableFuture.completedFuture(old)
                  : fromSources(move, key, next, copyToOwner, generation));
    }
    return CompletableFuture.completedFuture(null);
  }

  /**
   * {@link #get(Topology, String, long, int, Topology)} undecoded: the primary, a spill or a
   * failover node, or null for a copy that may be old.
   */
  private CompletableFuture<CachedValue> rawGet(Topology t, String key, long hash, int primary) {
    BoundedReads bounded = t.bounded;
    if (bounded != null) {
      int chosen = bounded.selectRead(key, hash);
      if (chosen >= 0 && chosen != primary && t.members[primary].available()) {
        return spilledGet(t, key, primary, chosen);
      }
    }
    int node = select(t, hash, primary);
    if (node == Routes.NONE) {
      return CompletableFuture.failedFuture(routes.unavailable(t, primary, key));
    }
    if (failback.isOldCopy(t.members[node], key)) {
      metrics.oldCopySkipped(t.nodes.get(node));
      return CompletableFuture.completedFuture(null);
    }
    return send(t, node, "get", c -> c.get(key), true);
  }

  /**
   * A read that spilled from its over-cap primary to {@code node}: the copy there if it has one,
   * else the primary's value, which is then left there as a copy (see {@link BoundedReads}).
   */
  private CompletableFuture<CachedValue> spilledGet(Topology t, String key, int primary, int node) {
    metrics.redirected(t.nodes.get(primary), t.nodes.get(node), "spill");
    BoundedReads bounded = t.bounded;
    return send(t, node, "get", c -> c.get(key))
        .exceptionally(failure -> null) // the spill node failed: read the primary instead
        .thenCompose(
            copy -> {
              if (copy != null) {
                return CompletableFuture.completedFuture(copy);
              }
              BoundedReads.Spill spill = bounded.spillFor(key);
              long generation = spill == null ? 0 : spill.generation.get();
              return send(t, primary, "getFallback", c -> c.get(key))
                  .thenApply(
                      value -> {
                        if (value != null && spill != null) {
                          leaveCopy(bounded, spill, generation, key, t.members[node], value);
                        }
                        return value;
                      });
            });
  }

  /** Writes a copy for a spilled read, unless a write of the key came in between. */
  private void leaveCopy(
      BoundedReads bounded, BoundedReads.Spill spill, long generation, String key, Member node, CachedValue value) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    spill.creating.add(done); // before the check: a writer that bumps after it waits for us
    if (spill.generation.get() != generation) {
      finish(spill, done);
      return;
    }
    spill.copies.add(node);
    spill.lastCopyNanos = bounded.now();
    sendTo(node, "addCopy", c -> c.add(key, value, bounded.options.spillTtl()))
        .whenComplete(
            (stored, failure) -> {
              if (spill.generation.get() != generation) {
                sendTo(node, "deleteCopy", c -> c.delete(key)).whenComplete((x, y) -> finish(spill, done));
              } else {
                finish(spill, done);
              }
            });
  }

  private static void finish(BoundedReads.Spill spill, CompletableFuture<Void> done) {
    spill.creating.remove(done);
    done.complete(null);
  }

  /**
   * Completes {@code write} only after the copies of its key, if reads of it spilled, are gone:
   * the generation moves on, the copy creations under way finish, the copies are deleted.
   */
  private <T> CompletableFuture<T> afterWrite(Topology t, String key, CompletableFuture<T> write) {
    if (t.bounded == null) {
      return write;
    }
    return write.handle((v, x) -> (Void) null).thenCompose(x -> dropCopies(t.bounded, key)).thenCompose(x -> write);
  }

  private CompletableFuture<Void> dropCopies(BoundedReads bounded, String key) {
    BoundedReads.Spill spill = bounded.spilled(key);
    if (spill == null) {
      return CompletableFuture.completedFuture(null);
    }
    spill.generation.incrementAndGet();
    List<CompletableFuture<?>> steps = new ArrayList<>(spill.creating);
    return CompletableFuture.allOf(steps.toArray(new CompletableFuture<?>[0]))
        .thenCompose(
            x -> {
              List<CompletableFuture<?>> deletes = new ArrayList<>();
              for (Member node : spill.copies) {
                deletes.add(sendTo(node, "deleteCopy", c -> c.delete(key)).handle((r, y) -> null));
              }
              return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]));
            });
  }

  @Override
  public CompletableFuture<Void> set(String key, V value, Duration ttl) {
    validate(key);
    CachedValue encoded = encode(key, value);
    checkTtl(ttl);
    return write(key, "set", ttl, (c, d) -> c.set(key, encoded, d), true, true);
  }

  @Override
  public CompletableFuture<Boolean> add(String key, V value, Duration ttl) {
    validate(key);
    CachedValue encoded = encode(key, value);
    checkTtl(ttl);
    return write(key, "add", ttl, (c, d) -> c.add(key, encoded, d), true, false);
  }

  @Override
  public CompletableFuture<Boolean> delete(String key) {
    validate(key);
    return write(key, "delete", null, (c, d) -> c.delete(key), true, true);
  }

  @Override
  public CompletableFuture<Boolean> touch(String key, Duration ttl) {
    validate(key);
    checkTtl(ttl);
    return write(key, "touch", ttl, (c, d) -> c.touch(key, d), false, false);
  }

  /**
   * A write of one key on the current topology; {@code dropsCopies}: it also removes the copies
   * bounded-load reads left (see {@link #afterWrite}); {@code replaces}: it leaves no older value
   * of the key on the node it goes to (set, delete), so an old copy marked there needs no delete
   * first (see {@link #sendWrite}).
   */
  private <T> CompletableFuture<T> write(
      String key, String operation, Duration ttl, WriteOp<T> op, boolean dropsCopies, boolean replaces) {
    if (ttl != null) {
      ttls.record(ttl);
    }
    Topology t = enter();
    try {
      CompletableFuture<T> written;
      if (t.history.length == 0 && t.bounded == null && !retrying && !warmUp.copying()) {
        long hash = t.hash(key);
        int primary = t.router.primary(hash);
        Member m = t.members[primary];
        if (m.available() && !failback.isOldCopy(m, key)) {
          // The common case, one request: the topology is released in the stage of its reply.
          return call(m, operation, c -> op.send(c, ttl), false, Function.identity(), t);
        }
        written = write(t, key, hash, primary, operation, ttl, op, replaces).reply(); // no change to apply
      } else {
        written = write(t, key, operation, ttl, op, replaces);
      }
      CompletableFuture<T> f = dropsCopies ? afterWrite(t, key, written) : written;
      f.whenComplete((v, x) -> exit(t));
      return f;
    } catch (RuntimeException | Error e) {
      exit(t);
      throw e;
    }
  }

  @Override
  public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
    return counter(key, checkDelta(delta), initial, ttl);
  }

  @Override
  public CompletableFuture<Long> decr(String key, long delta, long initial, Duration ttl) {
    return counter(key, -checkDelta(delta), initial, ttl);
  }

  private CompletableFuture<Long> counter(String key, long signedDelta, long initial, Duration ttl) {
    validate(key);
    checkTtl(ttl);
    return write(key, "incr", ttl, (c, d) -> c.incr(key, signedDelta, initial, d), true, false);
  }

  @Override
  public CompletableFuture<Duration> ping(Node node) {
    checkOpen();
    return inTopology(t -> call(t, t.indexOf(node), "ping", NodeConnection::ping));
  }

  @Override
  public Map<Node, CompletableFuture<Duration>> pingAll() {
    checkOpen();
    Topology t = topology;
    Map<Node, CompletableFuture<Duration>> out = new LinkedHashMap<>();
    for (int i = 0; i < t.nodes.size(); i++) {
      out.put(t.nodes.get(i), sendTo(t.members[i], "ping", NodeConnection::ping));
    }
    return out;
  }

  /**
   * The node for a key with this hash and primary under the failure mode: the primary, or the
   * next available node of the key's preference order (counted as a redirect), or {@link
   * FleetHealth#NONE}.
   */
  private int select(Topology t, long hash, int primary) {
    int node = routes.select(t, hash, primary);
    if (node != Routes.NONE && node != primary) {
      metrics.redirected(t.nodes.get(primary), t.nodes.get(node), "failover");
    }
    return node;
  }

  /** A write to one connection, with the TTL to give it (null for writes without one). */
  @FunctionalInterface
  private interface WriteOp<T> {
    CompletableFuture<T> send(NodeConnection connection, Duration ttl);
  }

  /**
   * A write of one key on topology {@code t}. A key that moved in a server-list change is written
   * where its reads go ({@link MovedKeys}), deleted at once where reads may still look (never on
   * the node that takes the write), and marked as old on the nodes that owned it before changes
   * only remembered.
   */
  private <T> CompletableFuture<T> write(
      Topology t, String key, String operation, Duration ttl, WriteOp<T> op, boolean replaces) {
    MovedKeys.Move move = MovedKeys.route(t, key, System.nanoTime());
    if (move == null || !move.touchesOthers()) {
      long hash = t.hash(key);
      int primary = t.router.primary(hash);
      CompletableFuture<T> written = write(t, key, hash, primary, operation, ttl, op, replaces).reply();
      if (!warmUp.copying()) {
        return written;
      }
      return written.handle((r, f) -> (Void) null).thenCompose(x -> afterWarmUpWrite(key)).thenCompose(x -> written);
    }
    // Before anything is sent: a copy made from an older read is not kept.
    long generation = move.sources.length != 0 || move.settling(t) ? warmUp.bump(key) : Long.MAX_VALUE;
    Topology serving = move.serving;
    Sent<T> sent = write(serving, key, serving.hash(key), move.servingPrimary, operation, ttl, op, replaces);
    CompletableFuture<T> written = sent.reply();
    for (Member former : sent.target() == null ? move.formerOwners : move.formerOwnersBesides(sent.target())) {
      failback.markOldCopy(former, key, sent.target());
    }
    List<CompletableFuture<Boolean>> clears = new ArrayList<>();
    List<Member> cleared = new ArrayList<>();
    for (Member stale : sent.target() == null ? move.clears : move.clearsBesides(sent.target())) {
      if (stale.retired || !stale.available()) {
        failback.markOldCopy(stale, key, sent.target()); // read only once available, and not before its delete
        continue;
      }
      clears.add(sendTo(stale, "moveDelete", c -> c.delete(key)));
      cleared.add(stale);
    }
    List<CompletableFuture<?>> all = new ArrayList<>(clears);
    all.add(written);
    boolean removes = operation.equals("delete");
    return CompletableFuture.allOf(all.toArray(new CompletableFuture<?>[0]))
        .handle((x, y) -> (Void) null)
        .thenCompose(x -> afterWarmUpWrite(key))
        .thenCompose(x -> removes ? deleteLateCopy(move.owner, key, generation) : CompletableFuture.completedFuture(null))
        .thenCompose(
            x -> {
              for (int i = 0; i < clears.size(); i++) {
                Throwable kept = clears.get(i).handle((r, f) -> f).join();
                if (kept != null && !written.isCompletedExceptionally()) {
                  return CompletableFuture.<T>failedFuture(movedCopyKept(cleared.get(i), kept));
                }
              }
              return written;
            });
  }

  /**
   * The end of a write of a key that warm-up may be copying: its generation moves again, now that
   * the write's requests are done, so that a copy read while they were under way (the old value,
   * read just before the write's delete reached the previous node) is not kept; then the write
   * waits for the copies of the key under way, which delete themselves (see {@link WarmUp}).
   */
  private CompletableFuture<Void> afterWarmUpWrite(String key) {
    warmUp.bump(key);
    return warmUp.awaitCopies(key);
  }

  /** See {@link WarmUp#copiedSince}: deletes a copy that a read during a delete may have added. */
  private CompletableFuture<Void> deleteLateCopy(Member owner, String key, long generation) {
    if (!warmUp.copiedSince(key, generation) || owner.retired || !owner.available()) {
      return CompletableFuture.completedFuture(null);
    }
    return sendTo(owner, "moveDelete", c -> c.delete(key)).handle((r, f) -> null);
  }

  /** A write handed to a node: the node that takes it (null if none was found) and its reply. */
  private record Sent<T>(Member target, CompletableFuture<T> reply) {}

  /**
   * Routes a write of one key on {@code t} and sends it. While the key's node is out the write goes
   * to the next available node of its order, through the {@link Failback} fence: journaled against
   * the nodes it skips and with its TTL capped at the failover TTL.
   */
  private <T> Sent<T> write(
      Topology t, String key, long hash, int primary, String operation, Duration ttl, WriteOp<T> op, boolean replaces) {
    if (t.members[primary].available()) {
      return new Sent<>(t.members[primary], sendWrite(t, primary, key, operation, ttl, op, replaces));
    }
    if (!redistributing) {
      return new Sent<>(null, CompletableFuture.failedFuture(routes.unavailable(t, primary, key)));
    }
    try (Failback.Fence fence = failback.fence()) {
      int target;
      try {
        target = redirect(t, key, hash, primary, fence);
      } catch (ShardwiseException e) {
        return new Sent<>(null, CompletableFuture.failedFuture(e));
      }
      // Sent inside the fence: a readmission sees this write journaled and queued, or not at all.
      Duration capped = ttl == null || target == primary ? ttl : failback.cap(ttl);
      return new Sent<>(t.members[target], sendWrite(t, target, key, operation, capped, op, replaces));
    }
  }

  /**
   * Sends a write of {@code key} to {@code node} of {@code t}. If the node's copy of the key is
   * marked old ({@link DirtyCopies}), the write is handed over in the order of the node's old-copy
   * deletes, after a delete of the key when the write alone would leave the old value (add, touch,
   * incr), and the mark is cleared once the write is confirmed.
   */
  private <T> CompletableFuture<T> sendWrite(
      Topology t, int node, String key, String operation, Duration ttl, WriteOp<T> op, boolean replaces) {
    Member m = t.members[node];
    Long stamp = m.oldCopies().stamp(key);
    if (stamp == null) {
      return send(t, node, operation, c -> op.send(c, ttl));
    }
    CompletableFuture<?>[] delete = new CompletableFuture<?>[1];
    CompletableFuture<T> sent =
        m.oldCopies().handOff(
            () -> {
              delete[0] =
                  replaces ? CompletableFuture.completedFuture(null) : sendTo(m, "deleteOldCopy", c -> c.delete(key));
              return send(t, node, operation, c -> op.send(c, ttl));
            });
    return sent.whenComplete(
        (r, failure) -> {
          if (failure == null && delete[0].isDone() && !delete[0].isCompletedExceptionally()) {
            m.oldCopies().cleared(key, stamp); // the old copy is gone: replaced or deleted before
          }
        });
  }

  /**
   * Where a write of {@code key}, whose primary is out, goes under {@link
   * FailureMode#REDISTRIBUTE}: the next available node of its order, journaled through {@code
   * fence} against the nodes it skips (and counted as a redirect), or the primary if it is back.
   *
   * @throws ShardwiseException no node is available, or the journal of a skipped node is full
   */
  private int redirect(Topology t, String key, long hash, int primary, Failback.Fence fence) {
    for (int attempt = 0; attempt <= t.nodes.size(); attempt++) {
      FailoverOrder.Route route = t.order.route(hash, t.available);
      int target = route.target;
      if (target == Routes.NONE) {
        throw routes.unavailable(t, primary, key);
      }
      if (route.skippedCount == 0) {
        return target;
      }
      if (!fence.enter(t.members, route.skipped, route.skippedCount)) {
        continue; // a skipped node came back meanwhile: route again
      }
      ShardwiseException full = fence.record(t.members, key, t.members[target], route.skipped, route.skippedCount);
      if (full != null) {
        throw full;
      }
      metrics.redirected(t.nodes.get(primary), t.nodes.get(target), "failover");
      return target;
    }
    throw new IllegalStateException(
        "nodes of " + KeyRules.shorten(key) + " kept coming back while it was routed");
  }

  // ---- multi-key operations ------------------------------------------------------------------

  /** Keys grouped by the node chosen for them; keys with no available node are already errors. */
  private final class Plan {
    final Topology t;
    final List<List<String>> byNode = new ArrayList<>();
    /**
     * Writes sent elsewhere because their node is out, per node they go to: they are sent as
     * batches of their own, with the failover TTL. Null for reads.
     */
    final List<List<String>> redirectedByNode;
    /**
     * The node of each key, in the order the keys were given; {@link FleetHealth#NONE} if none,
     * {@link #OLD_COPY} for a read answered as a miss because the only copy left may be old.
     */
    final int[] nodeOf;
    final Map<String, ShardwiseException> unavailable = new LinkedHashMap<>();
    /** Reads spilled away from their over-cap primary: key -> primary. */
    final Map<String, Integer> spilledReads = new HashMap<>();

    /** A read plan. */
    Plan(Topology t, Collection<String> keys) {
      this(t, keys, null);
    }

    /**
     * A write plan when {@code fence} is given: keys of nodes that are out are journaled through
     * it, which the caller holds until the batches are sent.
     */
    Plan(Topology t, Collection<String> keys, Failback.Fence fence) {
      this.t = t;
      int n = t.nodes.size();
      for (int i = 0; i < n; i++) {
        byNode.add(null);
      }
      redirectedByNode = fence == null ? null : new ArrayList<>(Collections.nCopies(n, null));
      nodeOf = new int[keys.size()];
      int index = 0;
      for (String key : keys) {
        int at = index++;
        long hash = t.hash(key);
        int primary = t.router.primary(hash);
        nodeOf[at] = fence == null ? routeRead(key, hash, primary) : routeWrite(key, hash, primary, fence);
      }
    }

    private int routeRead(String key, long hash, int primary) {
      if (t.bounded != null) {
        int chosen = t.bounded.selectRead(key, hash);
        if (chosen >= 0 && chosen != primary && t.members[primary].available()) {
          metrics.redirected(t.nodes.get(primary), t.nodes.get(chosen), "spill");
          spilledReads.put(key, primary);
          return add(byNode, chosen, key);
        }
      }
      int node = select(t, hash, primary);
      if (node == Routes.NONE) {
        unavailable.put(key, routes.unavailable(t, primary, key));
        return node;
      }
      if (failback.isOldCopy(t.members[node], key)) {
        metrics.oldCopySkipped(t.nodes.get(node));
        return OLD_COPY;
      }
      return add(byNode, node, key);
    }

    /** {@link RoutingClient#write}'s routing, for one key of a batch. */
    private int routeWrite(String key, long hash, int primary, Failback.Fence fence) {
      if (t.members[primary].available()) {
        return add(byNode, primary, key);
      }
      if (!redistributing) {
        unavailable.put(key, routes.unavailable(t, primary, key));
        return Routes.NONE;
      }
      int target;
      try {
        target = redirect(t, key, hash, primary, fence);
      } catch (ShardwiseException e) {
        unavailable.put(key, e);
        return Routes.NONE;
      }
      return add(target == primary ? byNode : redirectedByNode, target, key);
    }

    /** Records in {@code into} (if not null) the node each of {@code keys}, in plan order, goes to. */
    void targets(Collection<String> keys, Map<String, Member> into) {
      if (into == null) {
        return;
      }
      int index = 0;
      for (String key : keys) {
        int node = nodeOf[index++];
        if (node >= 0) {
          into.put(key, t.members[node]);
        }
      }
    }

    private int add(List<List<String>> lists, int node, String key) {
      List<String> list = lists.get(node);
      if (list == null) {
        // Twice a node's fair share: one growth at most for most batches.
        list = new ArrayList<>(Math.max(10, 2 * nodeOf.length / lists.size()));
        lists.set(node, list);
      }
      list.add(key);
      return node;
    }
  }

  /** {@link Plan#nodeOf} of a read answered as a miss: its only copy may be old. */
  private static final int OLD_COPY = -2;

  @Override
  public CompletableFuture<MultiResult<V>> getMulti(Collection<String> keys) {
    PendingGetMulti pending = startGetMulti(keys);
    return pending.done.thenApply(x -> pending.result());
  }

  /** Validates the keys, sends one request per node, and returns at once. */
  PendingGetMulti startGetMulti(Collection<String> keys) {
    Set<String> distinct = validated(keys);
    Topology t = enter();
    PendingGetMulti pending;
    try {
      pending = t.readsHistory() ? startMovingGetMulti(t, distinct, System.nanoTime()) : startGetMulti(t, distinct);
    } catch (RuntimeException | Error e) {
      exit(t);
      throw e;
    }
    pending.done.whenComplete((x, y) -> exit(t));
    return pending;
  }

  /**
   * A getMulti during a server-list change: each key is read on its serving placement (keys still
   * settling on the placement before the change), then the keys that missed are read on their
   * sources ({@link MovedKeys}), one batch per source node and round, until each is found or has
   * no source left; hits read on a source are copied over as single reads do.
   */
  private PendingGetMulti startMovingGetMulti(Topology t, Set<String> distinct, long now) {
    Map<String, MovedKeys.Move> moves = new HashMap<>();
    Set<String> settling = new LinkedHashSet<>();
    for (String key : distinct) {
      MovedKeys.Move move = MovedKeys.route(t, key, now);
      if (move == null || (move.serving == t && move.sources.length == 0)) {
        continue;
      }
      moves.put(key, move);
      if (move.serving != t) {
        settling.add(key);
      }
    }
    if (moves.isEmpty()) {
      return startGetMulti(t, distinct);
    }
    Map<String, Long> generations = new HashMap<>();
    Set<String> copyToOwner = new HashSet<>();
    moves.forEach(
        (key, move) -> {
          generations.put(key, warmUp.generation(key));
          if (move.copies && move.serving == t && t.members[move.servingPrimary].available()) {
            copyToOwner.add(key);
          }
        });
    PendingGetMulti first;
    if (settling.isEmpty()) {
      first = startGetMulti(t, distinct);
    } else {
      Set<String> stay = new LinkedHashSet<>(distinct);
      stay.removeAll(settling);
      PendingGetMulti here = startGetMulti(t, stay);
      PendingGetMulti before = startGetMulti(t.latest().previous, settling);
      first =
          new PendingGetMulti(
              CompletableFuture.allOf(here.done, before.done), () -> merge(distinct, here.result(), before.result()));
    }
    Map<String, Object> warmed = new ConcurrentHashMap<>();
    CompletableFuture<Void> done =
        first.done.thenCompose(
            x -> {
              List<String> missed = new ArrayList<>();
              for (String key : first.result().misses()) {
                if (moves.containsKey(key)) {
                  missed.add(key);
                }
              }
              return fromSources(moves, missed, 0, warmed, generations, copyToOwner);
            });
    return new PendingGetMulti(done, () -> merge(distinct, first.result(), warmed));
  }

  /**
   * One round of a moving getMulti: each of {@code keys} (all missed so far) is read on its source
   * {@code round}, one batch per source node; the keys still missing go on to the next round.
   */
  private CompletableFuture<Void> fromSources(
      Map<String, MovedKeys.Move> moves,
      List<String> keys,
      int round,
      Map<String, Object> warmed,
      Map<String, Long> generations,
      Set<String> copyToOwner) {
    Map<Member, List<String>> bySource = new LinkedHashMap<>();
    List<String> later = new ArrayList<>();
    for (String key : keys) {
      MovedKeys.Move move = moves.get(key);
      if (round >= move.sources.length) {
        continue;
      }
      Member source = move.sources[round];
      if (!source.available() || source.retired || failback.isOldCopy(source, key)) {
        later.add(key);
      } else {
        bySource.computeIfAbsent(source, m -> new ArrayList<>()).add(key);
      }
    }
    if (bySource.isEmpty() && later.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<String> stillMissing = java.util.Collections.synchronizedList(new ArrayList<>(later));
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    bySource.forEach(
        (source, batch) ->
            parts.add(
                call(source, "warmUpGetMulti", c -> c.getMulti(batch), false, Function.identity())
                    .handle(
                        (found, failure) -> {
                          if (failure != null) {
                            stillMissing.addAll(batch); // the source could not say: try the next one
                            return null;
                          }
                          for (String key : batch) {
                            CachedValue cv = found.get(key);
                            MovedKeys.Move move = moves.get(key);
                            warmUp.read(source, move.owner, cv != null);
                            if (cv == null) {
                              stillMissing.add(key);
                              continue;
                            }
                            try {
                              warmed.put(key, new SecondRoundHit<>(codec.decode(cv)));
                            } catch (RuntimeException e) {
                              warmed.put(key, asShardwise(source, e));
                              continue;
                            }
                            if (copyToOwner.contains(key)) {
                              warmUp.copy(key, cv, generations.get(key), source, move.owner, this::sendTo);
                            }
                          }
                          return null;
                        })));
    return allOf(parts)
        .thenCompose(x -> fromSources(moves, new ArrayList<>(stillMissing), round + 1, warmed, generations, copyToOwner));
  }

  /** The outcome of each key of {@code keys}, in order, from the first part that has it. */
  @SafeVarargs
  private MultiResult<V> merge(Set<String> keys, MultiResult<V>... parts) {
    MultiResult.Builder<V> out = MultiResult.builder(keys.size());
    for (String key : keys) {
      for (MultiResult<V> part : parts) {
        if (part.values().containsKey(key)) {
          out.hit(key, part.values().get(key));
          break;
        }
        if (part.errors().containsKey(key)) {
          out.error(key, part.errors().get(key));
          break;
        }
        if (part.misses().contains(key)) {
          out.miss(key);
          break;
        }
      }
    }
    return out.build();
  }

  /** {@code first}, with the outcomes of the keys read again while warming up in place of its misses. */
  private MultiResult<V> merge(Set<String> keys, MultiResult<V> first, Map<String, Object> warmed) {
    if (warmed.isEmpty()) {
      return first;
    }
    MultiResult.Builder<V> out = MultiResult.builder(keys.size());
    for (String key : keys) {
      Object again = warmed.get(key);
      if (again instanceof SecondRoundHit<?> hit) {
        @SuppressWarnings("unchecked")
        V value = (V) hit.value();
        out.hit(key, value);
      } else if (again instanceof ShardwiseException e) {
        out.error(key, e);
      } else if (first.values().containsKey(key)) {
        out.hit(key, first.values().get(key));
      } else if (first.errors().containsKey(key)) {
        out.error(key, first.errors().get(key));
      } else {
        out.miss(key);
      }
    }
    return out.build();
  }

  /**
   * A getMulti in flight: {@link #done} completes (never exceptionally: a node's failure is its
   * keys' error) when every node has answered, and {@link #result()} then builds the result.
   * The sync client builds it on the calling thread, so that the I/O thread that delivers the
   * last reply goes back to its socket at once.
   */
  final class PendingGetMulti {
    final CompletableFuture<Void> done;
    private final java.util.function.Supplier<MultiResult<V>> result;

    PendingGetMulti(CompletableFuture<Void> done, java.util.function.Supplier<MultiResult<V>> result) {
      this.done = done;
      this.result = result;
    }

    /** The result, in the caller's key order; only once {@link #done} has completed. */
    MultiResult<V> result() {
      return result.get();
    }
  }

  /** Sends one getMulti request per node of {@code t}, and returns at once. */
  private PendingGetMulti startGetMulti(Topology t, Set<String> distinct) {
    Plan plan = new Plan(t, distinct);
    // Per node, its reply (the map of hits) or its failure; read once all parts are done.
    Object[] replies = new Object[plan.byNode.size()];
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (int i = 0; i < plan.byNode.size(); i++) {
      List<String> nodeKeys = plan.byNode.get(i);
      if (nodeKeys == null) {
        continue;
      }
      int node = i;
      parts.add(
          send(t, node, "getMulti", c -> c.getMulti(nodeKeys))
              .handle(
                  (found, failure) -> {
                    if (failure == null) {
                      metrics.reads(t.nodes.get(node), found.size(), nodeKeys.size() - found.size());
                    }
                    replies[node] = failure != null ? failure : found;
                    return null;
                  }));
    }
    if (plan.spilledReads.isEmpty()) {
      return new PendingGetMulti(allOf(parts), () -> assemble(distinct, plan, replies, Map.of()));
    }
    Map<String, Object> secondRound = new ConcurrentHashMap<>();
    return new PendingGetMulti(
        allOf(parts).thenCompose(x -> readSpilledMisses(plan, replies, secondRound)),
        () -> assemble(distinct, plan, replies, secondRound));
  }

  /** A hit of the second round of a bounded getMulti (its value may be null). */
  private record SecondRoundHit<T>(T value) {}

  /** A miss of the second round of a bounded getMulti. */
  private static final Object SECOND_ROUND_MISS = new Object();

  /**
   * The result of a getMulti in the caller's key order, built in one pass: each key's outcome is
   * in the reply of its node, unless the second round of a bounded getMulti read it again.
   */
  private MultiResult<V> assemble(
      Set<String> distinct, Plan plan, Object[] replies, Map<String, Object> secondRound) {
    MultiResult.Builder<V> result = MultiResult.builder(distinct.size());
    int index = 0;
    for (String key : distinct) {
      int node = plan.nodeOf[index++];
      Object again = secondRound.isEmpty() ? null : secondRound.get(key);
      if (again != null) {
        if (again instanceof SecondRoundHit<?> hit) {
          @SuppressWarnings("unchecked")
          V value = (V) hit.value();
          result.hit(key, value);
        } else if (again == SECOND_ROUND_MISS) {
          result.miss(key);
        } else {
          result.error(key, (ShardwiseException) again);
        }
        continue;
      }
      if (node == Routes.NONE) {
        result.error(key, plan.unavailable.get(key));
        continue;
      }
      if (node == OLD_COPY) {
        result.miss(key);
        continue;
      }
      Object reply = replies[node];
      if (reply instanceof Throwable failure) {
        result.error(key, asShardwise(plan.t.members[node], failure));
        continue;
      }
      @SuppressWarnings("unchecked")
      CachedValue cv = ((Map<String, CachedValue>) reply).get(key);
      if (cv == null) {
        result.miss(key);
        continue;
      }
      V value;
      try {
        value = codec.decode(cv);
      } catch (RuntimeException e) {
        // A value that cannot be decoded is that key's error.
        result.error(key, asShardwise(plan.t.members[node], e));
        continue;
      }
      result.hit(key, value);
    }
    return result.build();
  }

  /**
   * The second round of a bounded getMulti: the spilled keys that found no copy (a miss or an
   * error where they spilled) are read from their primaries, one batch per primary, and a copy
   * of each hit is left where it spilled. Each such key's new outcome goes to {@code secondRound}.
   */
  private CompletableFuture<Void> readSpilledMisses(
      Plan plan, Object[] replies, Map<String, Object> secondRound) {
    Map<Integer, List<String>> byPrimary = new LinkedHashMap<>();
    Map<String, Integer> spillNode = new HashMap<>();
    for (int node = 0; node < plan.byNode.size(); node++) {
      List<String> nodeKeys = plan.byNode.get(node);
      if (nodeKeys == null) {
        continue;
      }
      Object reply = replies[node];
      for (String key : nodeKeys) {
        Integer primary = plan.spilledReads.get(key);
        if (primary != null && (reply instanceof Throwable || !((Map<?, ?>) reply).containsKey(key))) {
          byPrimary.computeIfAbsent(primary, p -> new ArrayList<>()).add(key);
          spillNode.put(key, node);
        }
      }
    }
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    byPrimary.forEach(
        (primary, keys) -> {
          Map<String, BoundedReads.Spill> spills = new HashMap<>();
          Map<String, Long> generations = new HashMap<>();
          for (String key : keys) {
            BoundedReads.Spill spill = plan.t.bounded.spillFor(key);
            if (spill != null) {
              spills.put(key, spill);
              generations.put(key, spill.generation.get());
            }
          }
          parts.add(
              send(plan.t, primary, "getMultiFallback", c -> c.getMulti(keys))
                  .handle(
                      (found, failure) -> {
                        for (String key : keys) {
                          if (failure != null) {
                            secondRound.put(key, asShardwise(plan.t.members[primary], failure));
                            continue;
                          }
                          CachedValue cv = found.get(key);
                          if (cv == null) {
                            secondRound.put(key, SECOND_ROUND_MISS);
                            continue;
                          }
                          try {
                            secondRound.put(key, new SecondRoundHit<>(codec.decode(cv)));
                          } catch (RuntimeException e) {
                            secondRound.put(key, asShardwise(plan.t.members[primary], e));
                            continue;
                          }
                          BoundedReads.Spill spill = spills.get(key);
                          if (spill != null) {
                            leaveCopy(
                                plan.t.bounded, spill, generations.get(key), key, plan.t.members[spillNode.get(key)], cv);
                          }
                        }
                        return null;
                      }));
        });
    return allOf(parts);
  }

  /** Runs {@link #dropCopies} for every key of a finished multi-key write. */
  private <T> CompletableFuture<T> afterWrites(Topology t, Collection<String> keys, CompletableFuture<T> writes) {
    BoundedReads bounded = t.bounded;
    if (bounded == null) {
      return writes;
    }
    return writes
        .handle((v, x) -> (Void) null)
        .thenCompose(
            x -> {
              List<CompletableFuture<?>> drops = new ArrayList<>();
              for (String key : keys) {
                if (bounded.spilled(key) != null) {
                  drops.add(dropCopies(bounded, key));
                }
              }
              return CompletableFuture.allOf(drops.toArray(new CompletableFuture<?>[0]));
            })
        .thenCompose(x -> writes);
  }

  /**
   * The keys of a multi-key write on a topology with a history, split by where they are written
   * ({@link MovedKeys}): keys still settling are written on the previous placement. Once they are
   * routed ({@link #routed}), every moved key is marked old on its former owners and deleted where
   * reads may still look, never on the node that took its write.
   */
  private final class MovingWrite {
    final Set<String> onPrevious = new LinkedHashSet<>();
    final Set<String> onCurrent = new LinkedHashSet<>();
    /** The node each routed key went to. */
    final Map<String, Member> targets = new ConcurrentHashMap<>();
    private final Map<String, MovedKeys.Move> moves = new HashMap<>();
    private final Map<Member, List<String>> staleCopies = new LinkedHashMap<>();
    /** The keys whose warm-up copies under way the write waits for. */
    final List<String> awaited = new ArrayList<>();
    /** For a delete: the generation each moved key was bumped to, for {@link #deleteLateCopy}. */
    private final Map<String, Long> bumped = new HashMap<>();
    private final boolean removes;

    MovingWrite(Topology t, Collection<String> keys, boolean removes) {
      this.removes = removes;
      long now = System.nanoTime();
      boolean copying = warmUp.copying();
      for (String key : keys) {
        MovedKeys.Move move = MovedKeys.route(t, key, now);
        if (move == null || !move.touchesOthers()) {
          onCurrent.add(key);
          if (copying) {
            awaited.add(key);
          }
          continue;
        }
        moves.put(key, move);
        if (copying || move.sources.length != 0 || move.settling(t)) {
          bumped.put(key, warmUp.bump(key));
          awaited.add(key);
        }
        (move.settling(t) ? onPrevious : onCurrent).add(key);
      }
    }

    /** After the keys were routed and sent: marks and groups the deletes of their other copies. */
    void routed() {
      moves.forEach(
          (key, move) -> {
            Member target = targets.get(key);
            for (Member former : target == null ? move.formerOwners : move.formerOwnersBesides(target)) {
              failback.markOldCopy(former, key, target);
            }
            for (Member stale : target == null ? move.clears : move.clearsBesides(target)) {
              if (stale.retired || !stale.available()) {
                failback.markOldCopy(stale, key, target);
              } else {
                staleCopies.computeIfAbsent(stale, m -> new ArrayList<>()).add(key);
              }
            }
          });
    }

    /**
     * Deletes the stale copies; completes when they and the copies under way are gone. A key whose
     * stale copy could not be deleted has its result in {@code results} (the lock of both maps)
     * replaced by an error in {@code errors}.
     */
    CompletableFuture<Void> clear(Map<String, ?> results, Map<String, ShardwiseException> errors) {
      List<CompletableFuture<Void>> parts = new ArrayList<>();
      staleCopies.forEach(
          (stale, keys) ->
              parts.add(
                  sendTo(stale, "moveDelete", c -> c.deleteMulti(keys))
                      .handle(
                          (r, failure) -> {
                            if (failure != null) {
                              ShardwiseException e = movedCopyKept(stale, failure);
                              synchronized (results) {
                                for (String k : keys) {
                                  if (results.remove(k) != null) {
                                    errors.put(k, e);
                                  }
                                }
                              }
                            }
                            return null;
                          })));
      return allOf(parts)
          .thenCompose(
              x -> {
                List<CompletableFuture<Void>> waits = new ArrayList<>();
                awaited.forEach(k -> waits.add(afterWarmUpWrite(k)));
                return allOf(waits);
              })
          .thenCompose(
              x -> {
                if (!removes) {
                  return CompletableFuture.completedFuture(null);
                }
                List<CompletableFuture<Void>> late = new ArrayList<>();
                bumped.forEach((k, generation) -> late.add(deleteLateCopy(moves.get(k).owner, k, generation)));
                return allOf(late);
              });
    }
  }

  /** The error of a write whose key's copy on the node it moved from could not be deleted. */
  private ShardwiseException movedCopyKept(Member stale, Throwable failure) {
    ShardwiseException cause = asShardwise(stale, failure);
    return new NodeException(
        stale.node,
        "the key was written, but its copy on the node it moved from could not be deleted ("
            + cause.getMessage() + "); write it again",
        cause);
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> setMulti(Map<String, ? extends V> entries, Duration ttl) {
    checkOpen();
    if (entries == null) {
      throw new IllegalArgumentException("the map of values must not be null; pass an empty map for none");
    }
    checkTtl(ttl);
    ttls.record(ttl);
    // Validate and encode everything before the first byte is sent.
    Map<String, CachedValue> encoded = new LinkedHashMap<>();
    for (Map.Entry<String, ? extends V> e : entries.entrySet()) {
      if (e.getKey() == null) {
        throw new IllegalArgumentException("the map of values must not hold a null key");
      }
      keyRules.validate(e.getKey());
      encoded.put(e.getKey(), encode(e.getKey(), e.getValue()));
    }
    return inTopology(
        t -> {
          Map<String, Boolean> stored = new HashMap<>();
          Map<String, ShardwiseException> errors = new LinkedHashMap<>();
          if (t.history.length == 0 && !warmUp.copying()) {
            return afterWrites(
                t,
                encoded.keySet(),
                storeAll(t, encoded.keySet(), encoded, ttl, stored, errors, null)
                    .thenApply(x -> ordered(encoded.keySet(), stored, Set.of(), errors)));
          }
          MovingWrite moving = new MovingWrite(t, encoded.keySet(), false);
          CompletableFuture<Void> written =
              CompletableFuture.allOf(
                  storeAll(t, moving.onCurrent, encoded, ttl, stored, errors, moving.targets),
                  moving.onPrevious.isEmpty()
                      ? CompletableFuture.completedFuture(null)
                      : storeAll(t.latest().previous, moving.onPrevious, encoded, ttl, stored, errors, moving.targets));
          moving.routed();
          return afterWrites(
              t,
              encoded.keySet(),
              written
                  .thenCompose(x -> moving.clear(stored, errors))
                  .thenApply(x -> ordered(encoded.keySet(), stored, Set.of(), errors)));
        });
  }

  /**
   * Stores {@code keys} on topology {@code t}: one batch per node, and one per node for redirected
   * keys; with {@code targets}, records the node each key was sent to.
   */
  private CompletableFuture<Void> storeAll(
      Topology t,
      Collection<String> keys,
      Map<String, CachedValue> encoded,
      Duration ttl,
      Map<String, Boolean> stored,
      Map<String, ShardwiseException> errors,
      Map<String, Member> targets) {
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    try (Failback.Fence fence = failback.fence()) {
      Plan plan = new Plan(t, keys, fence);
      plan.targets(keys, targets);
      synchronized (stored) {
        errors.putAll(plan.unavailable);
      }
      Duration capped = failback.cap(ttl);
      for (int i = 0; i < plan.byNode.size(); i++) {
        parts.add(storeBatch(t, i, plan.byNode.get(i), encoded, ttl, stored, errors));
        parts.add(storeBatch(t, i, plan.redirectedByNode.get(i), encoded, capped, stored, errors));
      }
    }
    return allOf(parts);
  }

  /** One setMulti batch to one node; each key's outcome goes to {@code stored} or {@code errors}. */
  private CompletableFuture<Void> storeBatch(
      Topology t,
      int node,
      List<String> nodeKeys,
      Map<String, CachedValue> encoded,
      Duration ttl,
      Map<String, Boolean> stored,
      Map<String, ShardwiseException> errors) {
    if (nodeKeys == null) {
      return CompletableFuture.completedFuture(null);
    }
    Map<String, CachedValue> batch = new LinkedHashMap<>();
    for (String key : nodeKeys) {
      batch.put(key, encoded.get(key));
    }
    return sendBatch(t, node, nodeKeys, "setMulti", c -> c.setMulti(batch, ttl), (failed, key) -> !failed.containsKey(key))
        .handle(
            (failedKeys, failure) -> {
              synchronized (stored) {
                for (String key : nodeKeys) {
                  Throwable keyFailure = failure != null ? failure : failedKeys.get(key);
                  if (keyFailure == null) {
                    stored.put(key, Boolean.TRUE);
                  } else {
                    errors.put(key, asShardwise(t.members[node], keyFailure));
                  }
                }
              }
              return null;
            });
  }

  @Override
  public CompletableFuture<MultiResult<Boolean>> deleteMulti(Collection<String> keys) {
    Set<String> distinct = validated(keys);
    return inTopology(
        t -> {
          Map<String, Boolean> deleted = new HashMap<>();
          Map<String, ShardwiseException> errors = new LinkedHashMap<>();
          if (t.history.length == 0 && !warmUp.copying()) {
            return afterWrites(
                t,
                distinct,
                deleteAll(t, distinct, deleted, errors, null).thenApply(x -> ordered(distinct, deleted, Set.of(), errors)));
          }
          MovingWrite moving = new MovingWrite(t, distinct, true);
          CompletableFuture<Void> done =
              CompletableFuture.allOf(
                  deleteAll(t, moving.onCurrent, deleted, errors, moving.targets),
                  moving.onPrevious.isEmpty()
                      ? CompletableFuture.completedFuture(null)
                      : deleteAll(t.latest().previous, moving.onPrevious, deleted, errors, moving.targets));
          moving.routed();
          return afterWrites(
              t,
              distinct,
              done.thenCompose(x -> moving.clear(deleted, errors)).thenApply(x -> ordered(distinct, deleted, Set.of(), errors)));
        });
  }

  /** Deletes {@code keys} on topology {@code t}, one batch per node; {@code targets} as {@link #storeAll}. */
  private CompletableFuture<Void> deleteAll(
      Topology t,
      Collection<String> keys,
      Map<String, Boolean> deleted,
      Map<String, ShardwiseException> errors,
      Map<String, Member> targets) {
    if (keys.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    try (Failback.Fence fence = failback.fence()) {
      Plan plan = new Plan(t, keys, fence);
      plan.targets(keys, targets);
      synchronized (deleted) {
        errors.putAll(plan.unavailable);
      }
      for (int i = 0; i < plan.byNode.size(); i++) {
        parts.add(deleteBatch(t, i, plan.byNode.get(i), deleted, errors));
        parts.add(deleteBatch(t, i, plan.redirectedByNode.get(i), deleted, errors));
      }
    }
    return allOf(parts);
  }

  /** One deleteMulti batch to one node; each key's outcome goes to {@code deleted} or {@code errors}. */
  private CompletableFuture<Void> deleteBatch(
      Topology t, int node, List<String> nodeKeys, Map<String, Boolean> deleted, Map<String, ShardwiseException> errors) {
    if (nodeKeys == null) {
      return CompletableFuture.completedFuture(null);
    }
    return sendBatch(t, node, nodeKeys, "deleteMulti", c -> c.deleteMulti(nodeKeys), (done, key) -> done.get(key) != null)
        .handle(
            (result, failure) -> {
              synchronized (deleted) {
                for (String key : nodeKeys) {
                  Boolean existed = failure == null ? result.get(key) : null;
                  if (existed != null) {
                    deleted.put(key, existed);
                  } else {
                    errors.put(
                        key,
                        failure != null
                            ? asShardwise(t.members[node], failure)
                            : new NodeException(t.nodes.get(node), "no result for this key", null));
                  }
                }
              }
              return null;
            });
  }

  /**
   * Sends a batch write (set or delete: each leaves no older value of its key) to {@code node}; if
   * some of its keys are marked old there, as {@link #sendWrite} does for one key: handed over in
   * the order of the node's old-copy deletes, and the marks of the keys it wrote cleared after.
   */
  private <T> CompletableFuture<T> sendBatch(
      Topology t,
      int node,
      List<String> keys,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      java.util.function.BiPredicate<T, String> written) {
    DirtyCopies dirty = t.members[node].oldCopies();
    if (dirty.isEmpty()) {
      return send(t, node, operation, op);
    }
    Map<String, Long> marked = new HashMap<>();
    for (String key : keys) {
      Long stamp = dirty.stamp(key);
      if (stamp != null) {
        marked.put(key, stamp);
      }
    }
    if (marked.isEmpty()) {
      return send(t, node, operation, op);
    }
    return dirty
        .handOff(() -> send(t, node, operation, op))
        .whenComplete(
            (result, failure) -> {
              if (failure != null) {
                return;
              }
              marked.forEach(
                  (key, stamp) -> {
                    if (written.test(result, key)) {
                      dirty.cleared(key, stamp);
                    }
                  });
            });
  }

  /** The distinct keys, in order, each validated before anything is sent. */
  private Set<String> validated(Collection<String> keys) {
    checkOpen();
    if (keys == null) {
      throw new IllegalArgumentException("the collection of keys must not be null; pass an empty one for none");
    }
    Set<String> distinct = new LinkedHashSet<>(keys.size() <= 12 ? 16 : (int) (keys.size() / 0.75f) + 1);
    int position = 0;
    for (String key : keys) {
      if (key == null) {
        throw new IllegalArgumentException(
            "the collection of keys must not hold null; got null at position " + position);
      }
      keyRules.validate(key);
      distinct.add(key);
      position++;
    }
    return distinct;
  }

  /** A result whose parts iterate in the order the caller gave the keys. */
  private static <T> MultiResult<T> ordered(
      Collection<String> keys, Map<String, T> values, Set<String> misses, Map<String, ShardwiseException> errors) {
    Map<String, T> v = new LinkedHashMap<>();
    Set<String> m = new LinkedHashSet<>();
    Map<String, ShardwiseException> e = new LinkedHashMap<>();
    for (String key : keys) {
      if (values.containsKey(key)) {
        v.put(key, values.get(key));
      } else if (misses.contains(key)) {
        m.add(key);
      } else if (errors.containsKey(key)) {
        e.put(key, errors.get(key));
      }
    }
    return MultiResult.of(v, m, e);
  }

  private static CompletableFuture<Void> allOf(List<CompletableFuture<Void>> parts) {
    return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  // ---- plumbing ------------------------------------------------------------------------------

  private void validate(String key) {
    checkOpen();
    keyRules.validate(key);
  }

  /** {@link #call}, retried on the same node after a node failure with {@link FailureMode#RETRY}. */
  private <T> CompletableFuture<T> send(
      Topology t, int node, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
    return send(t, node, operation, op, false);
  }

  /**
   * {@link #send}; with {@code countRead} the reply (a value or null) is also reported to {@link
   * ClientMetrics#reads} as one hit or one miss.
   */
  private <T> CompletableFuture<T> send(
      Topology t,
      int node,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead) {
    CompletableFuture<T> first = call(t, node, operation, op, countRead, Function.identity());
    return retrying
        ? retry(first, t.members[node], operation, op, countRead, health.options().retryAttempts())
        : first;
  }

  /** A request to a member outside routing (copies, warm-up, moved keys): no load is counted. */
  private <T> CompletableFuture<T> sendTo(
      Member m, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
    return call(m, operation, op, false, Function.identity());
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
            health.isNodeFailure(failure) && node.available()
                ? retry(
                    call(node, operation, op, countRead, Function.identity()),
                    node,
                    operation,
                    op,
                    countRead,
                    left - 1)
                : CompletableFuture.failedFuture(failure));
  }

  /**
   * Sends one request to one node of {@code t} with the timeout, records the outcome on the node's
   * circuit, and turns every failure into a {@link NodeException} that names the node.
   */
  private <T> CompletableFuture<T> call(
      Topology t, int node, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
    return call(t, node, operation, op, false, Function.identity());
  }

  /** {@link #call(Member, String, Function, boolean, Function)}, counted in {@code t}'s load window. */
  private <T, R> CompletableFuture<R> call(
      Topology t,
      int node,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead,
      Function<? super T, ? extends R> finish) {
    if (t.bounded != null) {
      t.bounded.loads.record(node);
    }
    return call(t.members[node], operation, op, countRead, finish);
  }

  /**
   * Sends one request to {@code m}, records the outcome on its circuit, then applies {@code finish}
   * to the reply in the same stage; an exception from {@code finish} fails the returned future but
   * is not a node failure.
   */
  private <T, R> CompletableFuture<R> call(
      Member m,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead,
      Function<? super T, ? extends R> finish) {
    return call(m, operation, op, countRead, finish, null);
  }

  /**
   * {@link #call(Member, String, Function, boolean, Function)}; with {@code release}, that topology
   * stops being counted in use in the same stage, when the reply is handled: an operation of one
   * request needs no stage of its own for it.
   */
  private <T, R> CompletableFuture<R> call(
      Member m,
      String operation,
      Function<NodeConnection, CompletableFuture<T>> op,
      boolean countRead,
      Function<? super T, ? extends R> finish,
      Topology release) {
    long start = System.nanoTime();
    CompletableFuture<T> sent;
    try {
      sent = op.apply(m.connection);
    } catch (RuntimeException e) {
      sent = CompletableFuture.failedFuture(e);
    }
    deadlines.watch(sent);
    return sent.handle(
            (value, failure) -> {
              try {
                long took = health.record(m, start, failure);
                Node n = m.node;
                if (failure != null) {
                  ShardwiseException e = asShardwise(m, failure);
                  metrics.request(n, operation, took, e);
                  throw e;
                }
                metrics.request(n, operation, took, null);
                if (countRead) {
                  metrics.reads(n, value == null ? 0 : 1, value == null ? 1 : 0);
                }
                return finish.apply(value);
              } finally {
                if (release != null) {
                  exit(release);
                }
              }
            });
  }

  private ShardwiseException asShardwise(Member m, Throwable failure) {
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

  private V decodeOrNull(CachedValue stored) {
    return stored == null ? null : codec.decode(stored);
  }

  private CachedValue encode(String key, V value) {
    if (value == null) {
      throw new IllegalArgumentException(
          "values must not be null (use delete to remove a key): " + KeyRules.shorten(key));
    }
    CachedValue encoded = codec.encode(value);
    if (encoded.length() > maxValueBytes) {
      throw new IllegalArgumentException(
          "values are at most "
              + maxValueBytes
              + " bytes after encoding; got "
              + encoded.length()
              + " for "
              + KeyRules.shorten(key));
    }
    backend.checkValue(key, encoded);
    return encoded;
  }

  private static void checkTtl(Duration ttl) {
    if (ttl == null) {
      throw new IllegalArgumentException("ttl must not be null; use Duration.ZERO for no expiry");
    }
    if (ttl.isNegative()) {
      throw new IllegalArgumentException("ttl must be >= 0 but was " + ttl);
    }
    if (ttl.compareTo(SettingsReader.MAX_DURATION) > 0) {
      // Redis refuses an expiry past 2^63-1 ms since 1970 ("invalid expire time"); 106751 days is
      // far inside that and is what the configuration's durations allow.
      throw new IllegalArgumentException(
          "ttl must be at most 106751 days (" + SettingsReader.MAX_DURATION + ") but was " + ttl);
    }
  }

  private static long checkDelta(long delta) {
    if (delta < 0) {
      throw new IllegalArgumentException("delta must be >= 0 but was " + delta);
    }
    return delta;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException(this + " is closed");
    }
  }

  // ---- the rest of the interface -------------------------------------------------------------

  @Override
  public List<Node> nodes() {
    return topology.nodes;
  }

  @Override
  public Node nodeFor(String key) {
    keyRules.validate(key);
    Topology t = topology;
    return t.nodes.get(t.primary(key));
  }

  @Override
  public Map<Node, NodeState> nodeStates() {
    return health.states(topology.members);
  }

  @Override
  public Map<Node, NodeStatus> nodeStatus() {
    return health.status(topology.members);
  }

  @Override
  public LoadReport loadReport() {
    Topology t = topology;
    if (t.bounded == null) {
      List<LoadReport.NodeLoad> lines = new ArrayList<>();
      for (Node n : t.nodes) {
        lines.add(new LoadReport.NodeLoad(n, 0, 0, 0, 0));
      }
      return new LoadReport(false, 0, lines, Map.of());
    }
    return t.bounded.report(t.nodes);
  }

  @Override
  public CompletableFuture<TopologyChange> updateServers(List<Node> servers) {
    checkOpen();
    return topologies.update(servers);
  }

  @Override
  public TopologyStatus topologyStatus() {
    Topology t = topology;
    TopologyStatus.Phase phase = TopologyStatus.Phase.STABLE;
    java.time.Instant ends = null;
    Transition tr = t.latest();
    if (tr != null) {
      switch (tr.phase(System.nanoTime())) {
        case SETTLING:
          phase = TopologyStatus.Phase.SETTLING;
          ends = tr.change.appliedAt().plusNanos(tr.settleUntilNanos() - tr.startNanos());
          break;
        case WARMING:
          phase = TopologyStatus.Phase.WARMING;
          ends = tr.change.appliedAt().plusNanos(tr.warmUntilNanos() - tr.startNanos());
          break;
        default:
          break;
      }
    }
    return new TopologyStatus(
        t.nodes, topologies.lastChange(), phase, ends, warmUp.reads.sum(), warmUp.hits.sum(), warmUp.copies.sum());
  }

  @Override
  public CacheClient<V> sync() {
    return sync;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    health.close();
    deadlines.close();
    RuntimeException first = null;
    try {
      topologies.close();
    } catch (RuntimeException e) {
      first = e;
    }
    try {
      backend.close();
    } catch (RuntimeException e) {
      first = first == null ? e : first;
    }
    if (first != null) {
      throw first;
    }
  }

  @Override
  public String toString() {
    return description + ", " + topology.nodes.size() + " nodes)";
  }
}
