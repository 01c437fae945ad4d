package io.shardwise.core.config;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.ReplicaReads;
import io.shardwise.core.ReplicaRepair;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.sources.ServerListSource;
import io.shardwise.core.sources.ServerListWatcher;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.InvalidSettingsException;
import io.shardwise.spi.SettingsReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.function.Consumer;

/**
 * A Shardwise client described by {@code shardwise.*} keys: read from {@link Properties}, a file or
 * a classpath resource, checked as a whole, and {@link #build() built}. The Spring Boot starter
 * reads the same keys, with the same defaults and the same messages.
 *
 * <pre>{@code
 * # cache.properties
 * shardwise.backend=memcached
 * shardwise.servers=10.0.0.1:11211,10.0.0.2:11211,cache-c=10.0.0.3:11211:2
 * shardwise.router=ketama
 * shardwise.timeout=250ms
 *
 * AsyncCacheClient<Object> cache = ShardwiseConfig.fromFile(Path.of("cache.properties")).build();
 * }</pre>
 *
 * <p>Every problem is found before anything connects, and all of them are reported at once in one
 * {@link InvalidSettingsException}, one line each, naming the key, the value and what is allowed
 * ({@code shardwise.rejoin: 'hope' is not allowed; expected one of journal, flush, keep}); a key
 * that is set but unknown is a problem too ({@code unknown key shardwise.timout (did you mean
 * shardwise.timeout?)}). {@link #keys()} lists the keys with their defaults.
 *
 * <p>The servers are listed in {@code shardwise.servers}, or come from a watched file ({@code
 * shardwise.servers-file}) or a DNS name ({@code shardwise.servers-dns}), exactly one of the three;
 * see {@code docs/topology-sources.md}.
 *
 * <p>The backend is found by name among the {@link BackendProvider}s on the classpath ({@code
 * shardwise-backend-spymemcached} provides {@code memcached}, {@code shardwise-backend-lettuce}
 * provides {@code redis}); its own keys live under {@code shardwise.<backend>.}.
 *
 * <p>Instances are immutable. {@link #toString()} shows every setting but never a secret.
 */
public final class ShardwiseConfig {

  /** The prefix of every key. */
  public static final String PREFIX = "shardwise.";

  public static final String BACKEND = "backend";
  public static final String SERVERS = "servers";
  public static final String SERVERS_FILE = "servers-file";
  public static final String SERVERS_DNS = "servers-dns";
  public static final String SERVERS_REFRESH_INTERVAL = "servers-refresh-interval";
  public static final String TOPOLOGY_SETTLE = "topology.settle";
  public static final String TOPOLOGY_WARM_UP = "topology.warm-up";
  public static final String TOPOLOGY_COPY_TTL = "topology.warm-up-copy-ttl";
  public static final String ROUTER = "router";
  public static final String KETAMA_COMPATIBILITY = "ketama.compatibility";
  public static final String COMPAT_MODE = "compat.mode";
  public static final String RING_POINTS = "ring.points-per-node";
  public static final String MULTIPROBE_PROBES = "multiprobe.probes";
  public static final String MAGLEV_TABLE_SIZE = "maglev.table-size";
  public static final String HASH_TAG = "hash-tag";
  public static final String REPLICAS = "replicas";
  public static final String REPLICA_READS = "replica-reads";
  public static final String REPLICA_REPAIR = "replica-repair";
  public static final String REPLICA_REPAIR_RATE = "replica-repair-rate";
  public static final String REPLICA_REPAIR_TTL = "replica-repair-ttl";
  public static final String REPLICA_REPAIR_CHECK = "replica-repair-check";
  public static final String TIMEOUT = "timeout";
  public static final String CONNECT_WAIT = "connect-wait";
  public static final String MAX_VALUE_SIZE = "max-value-size";
  public static final String BATCH_SIZE = "batch-size";
  public static final String CODEC = "codec";
  public static final String FAILURE_MODE = "failure-mode";
  public static final String FAILURE_THRESHOLD = "failure-threshold";
  public static final String RETRY_ATTEMPTS = "retry-attempts";
  public static final String REJOIN = "rejoin";
  public static final String JOURNAL_CAPACITY = "journal-capacity";
  public static final String PROBE_INTERVAL = "probe-interval";
  public static final String PROBE_MAX_INTERVAL = "probe-max-interval";
  public static final String PROBE_TIMEOUT = "probe-timeout";
  public static final String FAILOVER_TTL = "failover-ttl";
  public static final String MAX_EJECTED_PERCENT = "max-ejected-percent";
  public static final String BOUNDED_ENABLED = "bounded.enabled";
  public static final String BOUNDED_EPSILON = "bounded.epsilon";
  public static final String BOUNDED_PROBE_LIMIT = "bounded.probe-limit";
  public static final String BOUNDED_SCOPE = "bounded.scope";
  public static final String BOUNDED_WINDOW = "bounded.window";
  public static final String BOUNDED_RESOLUTION = "bounded.resolution";
  public static final String BOUNDED_SPILL_TTL = "bounded.spill-ttl";
  public static final String BOUNDED_HOT_THRESHOLD = "bounded.hot-threshold";

  /** The default request timeout: 1 s, the built-in backends' own. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);

  private final BackendSettings backend;
  private final ServerSource source;
  private final RouterSpec router;
  private final HashTag hashTag;
  private final String hashTagText;
  private final int replicas;
  private final ReplicaReads replicaReads;
  private final ReplicaRepair replicaRepair;
  private final Duration timeout;
  private final Duration connectWait;
  private final int maxValueBytes;
  private final int batchSize;
  private final String codec;
  private final FailoverOptions failover;
  private final TopologyOptions topology;
  private final BoundedSettings bounded;
  private final NearCacheOptions nearCache;

  private ShardwiseConfig(ConfigReader p) {
    this.backend = new BackendSettings(p.backend, p.provider, p.backendSettings);
    this.source = p.source;
    this.router = p.router;
    this.hashTag = p.hashTag;
    this.hashTagText = p.hashTagText;
    this.replicas = p.replicas;
    this.replicaReads = p.replicaReads;
    this.replicaRepair = p.replicaRepair;
    this.timeout = p.timeout;
    this.connectWait = p.connectWait;
    this.maxValueBytes = p.maxValueBytes;
    this.batchSize = p.batchSize;
    this.codec = p.codec;
    this.failover = p.failover;
    this.topology = p.topology;
    this.bounded = p.bounded;
    this.nearCache = p.nearCache.options();
  }

  // ---- loading -------------------------------------------------------------------------------

  /** The configuration in {@code properties}; keys not starting with {@code shardwise.} are ignored. */
  public static ShardwiseConfig from(Properties properties) {
    Objects.requireNonNull(properties, "properties");
    return from(ConfigLoader.settings(properties));
  }

  /**
   * The configuration in {@code settings}, full key to value ({@code shardwise.timeout -> 250ms});
   * keys not starting with {@code shardwise.} are ignored.
   */
  public static ShardwiseConfig from(Map<String, String> settings) {
    Objects.requireNonNull(settings, "settings");
    return from(ConfigLoader.reader(settings));
  }

  /**
   * Reads the keys of {@link #keys()} and the backend's from {@code reader}, then reports every key
   * nobody asked for as unknown and throws if there is any problem ({@link
   * SettingsReader#finish()}). For integrations with keys of their own under {@code shardwise.}
   * (the Spring starter's {@code shardwise.cache.*}): read those first, from the same reader, so
   * that they are neither unknown nor reported apart.
   *
   * @param reader over keys relative to {@code shardwise.}
   * @throws InvalidSettingsException with every problem, one line each
   */
  public static ShardwiseConfig from(SettingsReader reader) {
    Objects.requireNonNull(reader, "reader");
    if (!PREFIX.equals(reader.prefix())) {
      throw new IllegalArgumentException(
          "the reader's prefix must be " + PREFIX + " but was " + reader.prefix());
    }
    ConfigReader parsed = new ConfigReader(reader, ConfigLoader.providers());
    reader.finish();
    return new ShardwiseConfig(parsed);
  }

  /** The configuration in a properties file (read as UTF-8). */
  public static ShardwiseConfig fromFile(Path file) {
    Objects.requireNonNull(file, "file");
    return from(ConfigLoader.file(file));
  }

  /**
   * The configuration in a properties resource on the classpath of the thread's context class
   * loader (or this class's), e.g. {@code shardwise.properties}.
   */
  public static ShardwiseConfig fromClasspath(String resource) {
    Objects.requireNonNull(resource, "resource");
    return from(ConfigLoader.resource(resource));
  }

  /** Every core key, with its default and what it accepts, in a stable order. */
  public static List<ConfigKey> keys() {
    return ConfigKeys.ALL;
  }

  // ---- building ------------------------------------------------------------------------------

  /**
   * Builds the client. Its values are {@code Object}s; with the {@code utf8} codec they must be
   * strings and with {@code bytes} byte arrays, which writes check.
   *
   * <p>With {@code shardwise.servers-file} or {@code shardwise.servers-dns}, the client also
   * watches its source on a daemon thread ({@link ServerListWatcher}) and moves to every new valid
   * list with {@link AsyncCacheClient#updateServers}; the thread stops when the client closes.
   */
  public AsyncCacheClient<Object> build() {
    return build(Object.class, builder -> {});
  }

  /**
   * Builds the client after {@code customizer} has seen the builder, for what configuration text
   * cannot hold: metrics, node event listeners.
   */
  public AsyncCacheClient<Object> build(Consumer<? super ClientBuilder<Object>> customizer) {
    return build(Object.class, customizer);
  }

  /**
   * Builds a client of {@code valueType}: {@code String} (or a supertype) for the {@code utf8}
   * codec, {@code byte[]} for {@code bytes}, any type for {@code java} and {@code spymemcached},
   * whose reads then check that the stored value is one.
   *
   * @throws IllegalArgumentException if the codec cannot produce {@code valueType}
   */
  public <V> AsyncCacheClient<V> build(Class<V> valueType) {
    return build(valueType, builder -> {});
  }

  /** {@link #build(Class)} after {@code customizer} has seen the builder. */
  public <V> AsyncCacheClient<V> build(
      Class<V> valueType, Consumer<? super ClientBuilder<V>> customizer) {
    Objects.requireNonNull(valueType, "valueType");
    Objects.requireNonNull(customizer, "customizer");
    return ClientAssembly.build(this, valueType, customizer);
  }

  // ---- the settings --------------------------------------------------------------------------

  /** {@code memcached}, {@code redis}, or another provider's name. */
  public String backend() {
    return backend.name();
  }

  /**
   * The backend's own settings (sub-key to value, as set), secrets masked: {@code ******}, or
   * {@code ****** (env:NAME)} / {@code ****** (file:/path)} for a secret reference, which says
   * where the secret comes from and not what it is.
   */
  public Map<String, String> backendSettings() {
    return backend.masked();
  }

  /**
   * The servers: those of {@code shardwise.servers}, or those the servers file held or the DNS name
   * resolved to when the configuration was read.
   */
  public List<Node> servers() {
    return source.servers;
  }

  /** The watched servers file ({@code shardwise.servers-file}), if the servers come from one. */
  public Optional<Path> serversFile() {
    return Optional.ofNullable(source.file);
  }

  /** The DNS name and port ({@code shardwise.servers-dns}), if the servers come from one. */
  public Optional<String> serversDns() {
    return Optional.ofNullable(source.dns);
  }

  /** How often the servers file or DNS name is read again. */
  public Duration serversRefreshInterval() {
    return source.refreshInterval;
  }

  /**
   * The source the server list is watched in: the servers file or the DNS name; empty for a list
   * given in {@code shardwise.servers}, which changes only through {@link
   * AsyncCacheClient#updateServers}.
   */
  public Optional<ServerListSource> serversSource() {
    return source.watched();
  }

  public RouterSpec router() {
    return router;
  }

  public HashTag hashTag() {
    return hashTag;
  }

  public Duration timeout() {
    return timeout;
  }

  public Duration connectWait() {
    return connectWait;
  }

  /** Servers per key ({@code shardwise.replicas}). */
  public int replicas() {
    return replicas;
  }

  /** Which replica a read goes to first ({@code shardwise.replica-reads}). */
  public ReplicaReads replicaReads() {
    return replicaReads;
  }

  /** {@code shardwise.replica-repair}, {@code -rate}, {@code -ttl} and {@code -check}. */
  public ReplicaRepair replicaRepair() {
    return replicaRepair;
  }

  /** Most keys in one request to one server ({@code shardwise.batch-size}). */
  public int batchSize() {
    return batchSize;
  }

  /** The largest value accepted, if set; else the backend's default applies. */
  public OptionalInt maxValueBytes() {
    return maxValueBytes > 0 ? OptionalInt.of(maxValueBytes) : OptionalInt.empty();
  }

  /** The codec's name; when not set, {@code spymemcached} for memcached, {@code java} for Redis. */
  public String codec() {
    return codec != null ? codec : backend.defaultCodec();
  }

  public FailoverOptions failover() {
    return failover;
  }

  public BoundedOptions bounded() {
    return bounded.options();
  }

  /** The near cache ({@code shardwise.near-cache.*}; {@link NearCacheSettings}). */
  public NearCacheOptions nearCache() {
    return nearCache;
  }

  /**
   * Every setting in effect, full key to value as it would be written, defaults included, secrets
   * masked, in the order of {@link #keys()} and then the backend's keys.
   */
  public Map<String, String> settings() {
    return ConfigSettings.of(this, true);
  }

  /** The backend, with its settings as set, secrets included. */
  BackendSettings chosenBackend() {
    return backend;
  }

  /** {@code shardwise.codec} as set; null when the backend decides. */
  String codecSet() {
    return codec;
  }

  String hashTagText() {
    return hashTagText;
  }

  TopologyOptions topology() {
    return topology;
  }

  /** Equal when every setting is, secrets included. */
  @Override
  public boolean equals(Object o) {
    return o instanceof ShardwiseConfig
        && ConfigSettings.of((ShardwiseConfig) o, false).equals(ConfigSettings.of(this, false));
  }

  @Override
  public int hashCode() {
    return ConfigSettings.of(this, false).hashCode();
  }

  /** Every setting, secrets masked. */
  @Override
  public String toString() {
    return "ShardwiseConfig" + settings();
  }
}
