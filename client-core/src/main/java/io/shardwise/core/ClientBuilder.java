package io.shardwise.core;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.client.NodeEventListener;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.internal.change.LongestTtl;
import io.shardwise.core.internal.change.Placement;
import io.shardwise.core.internal.change.Topologies;
import io.shardwise.core.internal.health.FleetHealth;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.near.NearCache;
import io.shardwise.core.internal.route.ServerListChecks;
import io.shardwise.core.internal.route.Topology;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.Backend;
import io.shardwise.spi.NodeConnection;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * Builds a routing client. Required: a {@link #backend(Backend) backend} and the {@link
 * #servers(String) servers}; everything else has a default. The client owns the backend it is
 * given and closes it on {@link AsyncCacheClient#close()}.
 *
 * @param <V> the value type of the codec
 */
public final class ClientBuilder<V> {

  /** Longest wait in {@link #build()} for the first connection attempts. */
  public static final Duration DEFAULT_CONNECT_WAIT = Duration.ofSeconds(2);

  /**
   * Most keys in one request to one server (see {@link #batchSize(int)}): 1,000, the size of the
   * client's own batches of old-copy deletes. For comparison, spymemcached folds at most 4,096 gets
   * into one binary-protocol request, and the Redis documentation on pipelining suggests batches of
   * about 10,000 commands. A part of 1,000 keys of 100 bytes takes a few milliseconds on a local
   * server ({@code docs/configuration.md}, Batches), far within any sensible timeout.
   */
  public static final int DEFAULT_BATCH_SIZE = 1000;

  private Backend backend;
  private List<Node> servers;
  private Function<List<Node>, Router> router = RouterSpec.DEFAULT::build;
  private String routerDescription = RouterSpec.DEFAULT.toString();
  /** The router's spec, or null for a router built by the caller's function. */
  private RouterSpec routerSpec = RouterSpec.DEFAULT;
  private HashTag hashTag = HashTag.NONE;
  private Duration timeout;
  private Duration connectWait = DEFAULT_CONNECT_WAIT;
  private int maxValueBytes = -1;
  private int batchSize = DEFAULT_BATCH_SIZE;
  private int replicas = 1;
  private ReplicaReads replicaReads = ReplicaReads.P2C;
  private ReplicaRepair replicaRepair = ReplicaRepair.defaults();
  private NearCacheOptions nearCache = NearCacheOptions.off();
  private FailoverOptions failover = FailoverOptions.defaults();
  private final List<NodeEventListener> listeners = new ArrayList<>();
  private ClientMetrics metrics = ClientMetrics.NONE;
  private BoundedOptions bounded = BoundedOptions.disabled();
  private TopologyOptions topologyOptions = TopologyOptions.defaults();
  private java.util.function.LongSupplier nanoClock = System::nanoTime;
  private final ValueCodec<V> codec;
  private final boolean codecChosen;

  ClientBuilder(ValueCodec<V> codec) {
    this.codec = codec;
    this.codecChosen = false;
  }

  private ClientBuilder(ClientBuilder<?> from, ValueCodec<V> codec) {
    this.backend = from.backend;
    this.servers = from.servers;
    this.router = from.router;
    this.routerDescription = from.routerDescription;
    this.routerSpec = from.routerSpec;
    this.hashTag = from.hashTag;
    this.timeout = from.timeout;
    this.connectWait = from.connectWait;
    this.maxValueBytes = from.maxValueBytes;
    this.batchSize = from.batchSize;
    this.replicas = from.replicas;
    this.replicaReads = from.replicaReads;
    this.replicaRepair = from.replicaRepair;
    this.nearCache = from.nearCache;
    this.failover = from.failover;
    this.listeners.addAll(from.listeners);
    this.metrics = from.metrics;
    this.bounded = from.bounded;
    this.topologyOptions = from.topologyOptions;
    this.nanoClock = from.nanoClock;
    this.codec = codec;
    this.codecChosen = true;
  }

  /** The kind of server and its connection options. */
  public ClientBuilder<V> backend(Backend backend) {
    this.backend = Objects.requireNonNull(backend, "backend");
    return this;
  }

  /** The servers, in the server-list syntax of {@link ServerList#parse(String)}. */
  public ClientBuilder<V> servers(String serverList) {
    ServerListChecks.checkNoEmptyEntry(serverList);
    this.servers = ServerList.parse(serverList);
    return this;
  }

  /** The servers. */
  public ClientBuilder<V> servers(List<Node> nodes) {
    this.servers = ServerList.validate(nodes);
    return this;
  }

  /** The router (default: ketama, libketama mode). */
  public ClientBuilder<V> router(RouterSpec spec) {
    Objects.requireNonNull(spec, "router");
    this.router = spec::build;
    this.routerDescription = spec.toString();
    this.routerSpec = spec;
    return this;
  }

  /** A router built by the caller's function from the server list. */
  public ClientBuilder<V> router(Function<List<Node>, Router> factory) {
    this.router = Objects.requireNonNull(factory, "router");
    this.routerDescription = "custom";
    this.routerSpec = null;
    return this;
  }

  /** Hash tags (default: none). */
  public ClientBuilder<V> hashTag(HashTag tag) {
    this.hashTag = Objects.requireNonNull(tag, "hashTag");
    return this;
  }

  /**
   * Longest wait for one server's reply. Default: the backend's own request timeout (1 s for
   * both built-in backends); this one is passed to the backend's connections, so it governs both.
   */
  public ClientBuilder<V> timeout(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0 but was " + timeout);
    }
    if (timeout.compareTo(SettingsReader.MAX_INT_MILLIS) > 0) {
      throw new IllegalArgumentException(
          "timeout must be at most 2147483647 ms (a 32-bit count of milliseconds, as the Redis"
              + " backend's command timeout is) but was "
              + timeout);
    }
    this.timeout = timeout;
    return this;
  }

  /**
   * Longest wait in {@link #build()} for the first attempt to connect to every server (default 2
   * s). Servers that are down do not delay the build past their refused connection; the client
   * starts anyway and treats them as failing nodes.
   */
  public ClientBuilder<V> connectWait(Duration wait) {
    Objects.requireNonNull(wait, "connectWait");
    if (wait.isNegative()) {
      throw new IllegalArgumentException("connect wait must be >= 0 but was " + wait);
    }
    this.connectWait = wait;
    return this;
  }

  /** Largest encoded value accepted (default: the backend's, 1 MiB for memcached). */
  public ClientBuilder<V> maxValueBytes(int bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("max value size must be >= 0 bytes but was " + bytes);
    }
    this.maxValueBytes = bytes;
    return this;
  }

  /**
   * Most keys in one request to one server (default {@value #DEFAULT_BATCH_SIZE}). A getMulti,
   * setMulti or deleteMulti with more keys (or, for setMulti, more than 1 MiB of values) for one
   * server sends them in parts of at most this size, one part after another, each with its own
   * timeout, so that a large batch is not judged by one timeout and each key's outcome is that of
   * its part. After a part failed on its server (a timeout, a lost connection) the parts not sent
   * yet are not sent: their keys fail with a {@code NodeUnavailableException}.
   */
  public ClientBuilder<V> batchSize(int keys) {
    if (keys < 1) {
      throw new IllegalArgumentException("batch size must be >= 1 key but was " + keys);
    }
    this.batchSize = keys;
    return this;
  }

  /**
   * How many servers store each key (default 1): the first {@code n} distinct servers of its
   * preference list, primary first ({@link Router#replicas}), so that the primary of {@code n = 1}
   * is always the first replica and a peer client that reads the fleet finds every key on the
   * server it expects. Writes go to every available replica, reads to one ({@link
   * #replicaReads(ReplicaReads)}) and on to the next on a miss or an error ({@code
   * docs/replicas.md}). At most the number of servers, checked by {@link #build()}. For now, a
   * client with more than one replica refuses server-list and placement changes.
   */
  public ClientBuilder<V> replicas(int n) {
    if (n < 1) {
      throw new IllegalArgumentException("replicas must be >= 1 but was " + n);
    }
    this.replicas = n;
    return this;
  }

  /**
   * How a replica gets back a copy it lost, when {@link #replicas(int)} is above 1 (default {@link
   * ReplicaRepair#defaults()}: read repair and handoff on, 1,000 copies per second at most).
   */
  public ClientBuilder<V> replicaRepair(ReplicaRepair repair) {
    this.replicaRepair = Objects.requireNonNull(repair, "replicaRepair");
    return this;
  }

  /**
   * Values read kept in this process (default {@link NearCacheOptions#off()}): a get of a key kept
   * there is answered without a request. This client's own writes of the key drop its entry. With
   * a backend whose servers track reads (Redis, {@link Backend#tracksReads}), another client's
   * write drops it as soon as the server's notice arrives, and an entry lives at most {@link
   * NearCacheOptions#maxStaleness()} (1 min by default); with memcached, another client's write is
   * seen after at most that bound (1 s by default, at most 1 min: {@link #build()} refuses more).
   */
  public ClientBuilder<V> nearCache(NearCacheOptions options) {
    this.nearCache = Objects.requireNonNull(options, "nearCache");
    return this;
  }

  /** Which replica a read goes to first, when {@link #replicas(int)} is above 1 (default {@link ReplicaReads#P2C}). */
  public ClientBuilder<V> replicaReads(ReplicaReads policy) {
    this.replicaReads = Objects.requireNonNull(policy, "replicaReads");
    return this;
  }

  /** Failure detection, failure mode and rejoin policy (default: {@link FailoverOptions#defaults()}). */
  public ClientBuilder<V> failover(FailoverOptions options) {
    this.failover = Objects.requireNonNull(options, "failover");
    return this;
  }

  /** Receives node ejections, probes and readmissions. */
  public ClientBuilder<V> listener(NodeEventListener listener) {
    this.listeners.add(Objects.requireNonNull(listener, "listener"));
    return this;
  }

  /** Bounded-load reads (default: off). */
  public ClientBuilder<V> bounded(BoundedOptions options) {
    this.bounded = Objects.requireNonNull(options, "bounded");
    return this;
  }

  /**
   * How the client moves to a new server list given to {@link AsyncCacheClient#updateServers}
   * (default: {@link TopologyOptions#defaults()}).
   */
  public ClientBuilder<V> topology(TopologyOptions options) {
    this.topologyOptions = Objects.requireNonNull(options, "topology");
    return this;
  }

  /** The clock of the load window; for tests. */
  ClientBuilder<V> nanoClock(java.util.function.LongSupplier clock) {
    this.nanoClock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /** Receives per-request and per-read measurements (default: none). */
  public ClientBuilder<V> metrics(ClientMetrics clientMetrics) {
    this.metrics = Objects.requireNonNull(clientMetrics, "metrics");
    return this;
  }

  /**
   * The value codec. Default: {@link Codecs#spymemcached()} for memcached (reads and writes what a
   * spymemcached application stores), {@link Codecs#java()} for Redis, which keeps no flags.
   */
  public <W> ClientBuilder<W> codec(ValueCodec<W> newCodec) {
    return new ClientBuilder<>(this, Objects.requireNonNull(newCodec, "codec"));
  }

  /**
   * Builds the client and opens one connection per server. Connections to servers that are down
   * are retried in the background; requests to them fail until they answer.
   *
   * @throws IllegalArgumentException for a missing or inconsistent setting, or one that a server
   *     refused at its first connection attempt (a near cache on a Redis server that cannot track
   *     reads); the connections are closed then, and the backend with them
   */
  public AsyncCacheClient<V> build() {
    if (backend == null) {
      throw new IllegalArgumentException("a backend (memcached or redis) is required");
    }
    if (servers == null) {
      throw new IllegalArgumentException("servers are required");
    }
    if (replicas > servers.size()) {
      throw new IllegalArgumentException(
          "replicas must be at most the number of servers (" + servers.size() + ") but was " + replicas);
    }
    List<String> unresolved = backend.resolvesHosts() ? ServerListChecks.unresolvedHosts(servers) : List.of();
    if (!unresolved.isEmpty()) {
      throw new IllegalArgumentException(
          "servers must resolve to an address but " + String.join(", ", unresolved)
              + (unresolved.size() == 1 ? " does" : " do") + " not; nothing was connected");
    }
    ServerListChecks.checkDistinctServers(servers);
    ValueCodec<V> codec = this.codec;
    if (!codecChosen && !backend.storesFlags()) {
      @SuppressWarnings("unchecked") // the unchosen codec is a ValueCodec<Object>, and so is java()
      ValueCodec<V> java = (ValueCodec<V>) Codecs.java();
      codec = java;
    }
    if (!backend.storesFlags() && !codec.needsFlags()) {
      codec = codec.withoutFlags();
    }
    if (codec.needsFlags() && !backend.storesFlags()) {
      throw new IllegalArgumentException(
          "codec '" + codec.name() + "' needs the flags memcached stores beside a value, but "
              + backend.name() + " keeps no flags; use utf8, bytes, java or a codec of your own");
    }
    NearCache near = NearCache.of(nearCache, backend);
    Router r = router.apply(servers);
    int max = maxValueBytes >= 0 ? maxValueBytes : backend.defaultMaxValueBytes();
    Duration requestTimeout = timeout != null ? timeout : backend.defaultRequestTimeout();
    NodeConnection[] connections = FirstConnections.open(backend, r.nodes(), requestTimeout, connectWait);
    Member[] members = new Member[connections.length];
    for (int i = 0; i < members.length; i++) {
      members[i] = new Member(r.nodes().get(i), connections[i]);
    }
    FleetHealth health = new FleetHealth(backend, failover, listeners, metrics);
    Topology topology = Topology.initial(r, hashTag, members, bounded, replicas, nanoClock, health.failback());
    for (Member m : members) {
      health.admit(m);
    }
    health.resize(members.length);
    Topologies.Settings settings =
        new Topologies.Settings(
            new Placement(router, hashTag, routerDescription, bounded, replicas),
            requestTimeout,
            nanoClock,
            topologyOptions,
            new LongestTtl(failover.failoverTtl(), topologyOptions.copyTtl(), bounded.spillTtl()));
    return new RoutingClient<>(
        backend, topology, health, codec, requestTimeout, max, batchSize, replicas, replicaReads, replicaRepair, routerSpec, metrics, settings,
        near);
  }
}
