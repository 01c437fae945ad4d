package io.shardwise.core.config;

import io.shardwise.bounded.BoundedLoadSelector;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.Secret;
import io.shardwise.client.ValueCodec;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.FailureMode;
import io.shardwise.core.RejoinPolicy;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.internal.route.ServerListChecks;
import io.shardwise.core.sources.ServerListSource;
import io.shardwise.core.sources.ServerListWatcher;
import io.shardwise.core.sources.ServersDns;
import io.shardwise.core.sources.ServersFile;
import io.shardwise.ketama.HashRingRouter;
import io.shardwise.ketama.PeerMode;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routers.MultiProbeRouter;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.InvalidSettingsException;
import io.shardwise.spi.SettingsReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.TreeMap;
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
  public static final String TIMEOUT = "timeout";
  public static final String CONNECT_WAIT = "connect-wait";
  public static final String MAX_VALUE_SIZE = "max-value-size";
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

  /**
   * The longest connect wait, settle, warm-up and warm-up copy TTL: 365 days, what {@link
   * TopologyOptions} accepts.
   */
  private static final Duration MAX_TOPOLOGY_WAIT = Duration.ofDays(365);

  /** The built-in backends and the module that provides each. */
  private static final Map<String, String> BUILT_IN_BACKENDS = new LinkedHashMap<>();

  static {
    BUILT_IN_BACKENDS.put("memcached", "shardwise-backend-spymemcached");
    BUILT_IN_BACKENDS.put("redis", "shardwise-backend-lettuce");
  }

  private static final List<String> ROUTERS =
      List.of("ketama", "ring", "hrw", "jump", "multiprobe", "maglev", "modulo", "compat");
  private static final List<String> KETAMA_MODES =
      List.of("libketama", "libmemcached", "twemproxy", "spymemcached", "spymemcached-weighted");
  private static final List<String> CODECS = List.of("spymemcached", "utf8", "bytes", "java");
  private static final List<String> FAILURE_MODES = List.of("redistribute", "fail-fast", "retry");
  private static final List<String> REJOIN_POLICIES = List.of("journal", "flush", "keep");
  private static final List<String> SCOPES = List.of("hot", "all");

  private static final List<ConfigKey> KEYS =
      List.of(
          new ConfigKey(
              BACKEND,
              "(required)",
              "memcached, redis",
              "The kind of server; its module must be on the classpath."),
          new ConfigKey(
              SERVERS,
              "(required unless servers-file or servers-dns is set)",
              "host:port[:weight], name=host:port[:weight], [::1]:port; comma separated",
              "The servers, in order. Weights >= 1; a name is hashed instead of the address."),
          new ConfigKey(
              SERVERS_FILE,
              "(none)",
              "a path to a file in the servers syntax, one entry per line or comma separated,"
                  + " # comments",
              "Instead of servers: the file holding the server list, read at start-up and"
                  + " watched; a changed list is applied without a restart."),
          new ConfigKey(
              SERVERS_DNS,
              "(none)",
              "name:port",
              "Instead of servers: a DNS name whose A/AAAA records are the servers (a Kubernetes"
                  + " headless service), resolved at start-up and again at every refresh."),
          new ConfigKey(
              SERVERS_REFRESH_INTERVAL,
              "(1s for servers-file, 30s for servers-dns)",
              "> 0, <= 106751d",
              "How often servers-file is read or servers-dns resolved again."),
          new ConfigKey(
              TOPOLOGY_SETTLE,
              SettingsReader.format(TopologyOptions.DEFAULT_SETTLE),
              ">= 0, <= 365d",
              "After a server-list change, how long moved keys stay on their previous server, so"
                  + " that clients applying the change later agree; 0 turns it off. With"
                  + " servers-file or servers-dns the default is at least twice"
                  + " servers-refresh-interval."),
          new ConfigKey(
              TOPOLOGY_WARM_UP,
              SettingsReader.format(TopologyOptions.DEFAULT_WARM_UP),
              ">= 0, <= 365d",
              "After settling, how long a miss on a moved key's new server is read on its previous"
                  + " one; hits are copied over once settle has passed again (clients still settling"
                  + " could otherwise have a copy keep an older value); 0 turns it off."),
          new ConfigKey(
              TOPOLOGY_COPY_TTL,
              SettingsReader.format(TopologyOptions.DEFAULT_COPY_TTL),
              "> 0, <= 365d",
              "TTL of a value the warm-up copies to its new server."),
          new ConfigKey(
              ROUTER,
              "ketama",
              String.join(", ", ROUTERS),
              "The router that maps a key to a server."),
          new ConfigKey(
              KETAMA_COMPATIBILITY,
              "libketama",
              String.join(", ", KETAMA_MODES),
              "Router ketama: the implementation whose placement it reproduces."),
          new ConfigKey(
              COMPAT_MODE,
              RouterSpec.DEFAULT_COMPAT_MODE.id(),
              "twemproxy:<hash>:<ketama|modula>,"
                  + " libmemcached:<hash>:<modula|consistent|consistent_weighted>,"
                  + " libmemcached:<hash>:consistent:points=<hash>,"
                  + " spymemcached:array_mod:<alg>, spymemcached:consistent:<alg>:<format>,"
                  + " xmemcached:<array|ketama>:<alg>, jedis:sharded:murmur_hash (docs/routers.md)",
              "Router compat: the peer client or proxy, distribution and hash whose placement it"
                  + " reproduces."),
          new ConfigKey(
              RING_POINTS,
              Integer.toString(HashRingRouter.DEFAULT_POINTS_PER_NODE),
              ">= 1",
              "Router ring: points per unit of weight."),
          new ConfigKey(
              MULTIPROBE_PROBES,
              Integer.toString(MultiProbeRouter.DEFAULT_PROBES),
              ">= 1",
              "Router multiprobe: probes per key."),
          new ConfigKey(
              MAGLEV_TABLE_SIZE,
              Integer.toString(MaglevRouter.DEFAULT_TABLE_SIZE),
              "a prime larger than the number of servers, <= " + MaglevRouter.MAX_TABLE_SIZE,
              "Router maglev: lookup table size."),
          new ConfigKey(
              HASH_TAG,
              "none",
              "two characters such as {}, or none",
              "Only the part of a key between the two characters is hashed, as in twemproxy."),
          new ConfigKey(
              TIMEOUT,
              "1s",
              ">= 1ms, <= 2147483647ms (24.8 days)",
              "Longest wait for one server's reply."),
          new ConfigKey(
              CONNECT_WAIT,
              "2s",
              ">= 0, <= 365d",
              "Longest wait at start-up for the first connection to every server."),
          new ConfigKey(
              MAX_VALUE_SIZE,
              "(none: the servers' own limit)",
              "bytes, or 512KB, 1MB, ...; >= 1",
              "Largest encoded value accepted, on top of the servers' own limit; larger ones fail"
                  + " before any I/O."),
          new ConfigKey(
              CODEC,
              "(spymemcached for memcached, java for redis)",
              String.join(", ", CODECS),
              "How values are turned into bytes; spymemcached needs memcached's flags."),
          new ConfigKey(
              FAILURE_MODE,
              "redistribute",
              String.join(", ", FAILURE_MODES),
              "What a request does when its server is ejected."),
          new ConfigKey(
              FAILURE_THRESHOLD,
              Integer.toString(FailoverOptions.DEFAULT_FAILURE_THRESHOLD),
              ">= 1",
              "Consecutive failures (timeouts, connection errors) that eject a server."),
          new ConfigKey(
              RETRY_ATTEMPTS,
              Integer.toString(FailoverOptions.DEFAULT_RETRY_ATTEMPTS),
              ">= 0",
              "Failure mode retry: extra attempts on the same server."),
          new ConfigKey(
              REJOIN,
              "journal",
              String.join(", ", REJOIN_POLICIES),
              "What is removed from an ejected server before it is readmitted: the keys this client"
                  + " wrote elsewhere meanwhile (journal), everything (flush: single-writer fleets"
                  + " only), or nothing (keep)."),
          new ConfigKey(
              JOURNAL_CAPACITY,
              Integer.toString(FailoverOptions.DEFAULT_JOURNAL_CAPACITY),
              ">= 1",
              "Keys written elsewhere that are remembered per ejected server; past it, writes of"
                  + " its keys fail until it is back."),
          new ConfigKey(
              FAILOVER_TTL,
              SettingsReader.format(FailoverOptions.DEFAULT_FAILOVER_TTL),
              "> 0, <= 106751d",
              "Longest TTL of a value written to another server because its own is ejected."),
          new ConfigKey(
              MAX_EJECTED_PERCENT,
              Integer.toString(FailoverOptions.DEFAULT_MAX_EJECTED_PERCENT),
              "0..100",
              "Largest share of the servers that timeouts may keep ejected (at least one); a"
                  + " refused connection ejects regardless."),
          new ConfigKey(
              PROBE_INTERVAL,
              "200ms",
              "> 0, <= 106751d",
              "First wait before probing an ejected server; doubles after each failed probe."),
          new ConfigKey(
              PROBE_MAX_INTERVAL,
              SettingsReader.format(FailoverOptions.DEFAULT_MAX_PROBE_INTERVAL),
              ">= probe-interval, <= 106751d",
              "Longest wait between probes."),
          new ConfigKey(
              PROBE_TIMEOUT, "1s", "> 0, <= 106751d", "How long a probe, and each rejoin step, may take."),
          new ConfigKey(
              BOUNDED_ENABLED,
              "false",
              "true, false",
              "Bounded-load reads: reads of an overloaded server spill to the next."),
          new ConfigKey(
              BOUNDED_EPSILON,
              Double.toString(BoundedLoadSelector.DEFAULT_EPSILON),
              "> 0",
              "Bounded loads: allowed excess over a server's share (cap = (1 + epsilon) x share)."),
          new ConfigKey(
              BOUNDED_PROBE_LIMIT,
              Integer.toString(BoundedLoadSelector.DEFAULT_PROBE_LIMIT),
              ">= 1",
              "Bounded loads: servers a read may try."),
          new ConfigKey(
              BOUNDED_SCOPE,
              "hot",
              String.join(", ", SCOPES),
              "Bounded loads: which keys may spill, only keys found hot or every key."),
          new ConfigKey(
              BOUNDED_WINDOW,
              SettingsReader.format(BoundedOptions.DEFAULT_WINDOW),
              "> 0, <= 106751d, a whole multiple of bounded.resolution",
              "Bounded loads: how far back a server's requests are counted."),
          new ConfigKey(
              BOUNDED_RESOLUTION,
              SettingsReader.format(BoundedOptions.DEFAULT_RESOLUTION),
              "> 0, <= 106751d, at most 1000 per window",
              "Bounded loads: the step in which the window moves."),
          new ConfigKey(
              BOUNDED_SPILL_TTL,
              SettingsReader.format(BoundedOptions.DEFAULT_SPILL_TTL),
              ">= 1s, <= 106751d",
              "Bounded loads: life of a copy left where a read spilled; bounds the staleness"
                  + " other client processes can see."),
          new ConfigKey(
              BOUNDED_HOT_THRESHOLD,
              Integer.toString(BoundedOptions.DEFAULT_HOT_THRESHOLD),
              "1..15",
              "Bounded loads, scope hot: recent reads from which a key is hot."));

  private final String backend;
  private final BackendProvider provider;
  private final Map<String, String> backendSettings;
  private final List<Node> servers;
  private final Path serversFile;
  private final String serversDns;
  private final Duration serversRefreshInterval;
  private final RouterSpec router;
  private final HashTag hashTag;
  private final String hashTagText;
  private final Duration timeout;
  private final Duration connectWait;
  private final int maxValueBytes;
  private final String codec;
  private final FailoverOptions failover;
  private final TopologyOptions topology;
  private final boolean boundedEnabled;
  private final double boundedEpsilon;
  private final int boundedProbeLimit;
  private final String boundedScope;
  private final Duration boundedWindow;
  private final Duration boundedResolution;
  private final Duration boundedSpillTtl;
  private final int boundedHotThreshold;

  private ShardwiseConfig(Parsed p) {
    this.backend = p.backend;
    this.provider = p.provider;
    this.backendSettings = Collections.unmodifiableMap(new TreeMap<>(p.backendSettings));
    this.servers = p.servers;
    this.serversFile = p.serversFile;
    this.serversDns = p.serversDns;
    this.serversRefreshInterval = p.serversRefreshInterval;
    this.router = p.router;
    this.hashTag = p.hashTag;
    this.hashTagText = p.hashTagText;
    this.timeout = p.timeout;
    this.connectWait = p.connectWait;
    this.maxValueBytes = p.maxValueBytes;
    this.codec = p.codec;
    this.failover = p.failover;
    this.topology = p.topology;
    this.boundedEnabled = p.boundedEnabled;
    this.boundedEpsilon = p.boundedEpsilon;
    this.boundedProbeLimit = p.boundedProbeLimit;
    this.boundedScope = p.boundedScope;
    this.boundedWindow = p.boundedWindow;
    this.boundedResolution = p.boundedResolution;
    this.boundedSpillTtl = p.boundedSpillTtl;
    this.boundedHotThreshold = p.boundedHotThreshold;
  }

  // ---- loading -------------------------------------------------------------------------------

  /**
   * The configuration in {@code properties}; keys not starting with {@code shardwise.} are ignored.
   */
  public static ShardwiseConfig from(Properties properties) {
    Objects.requireNonNull(properties, "properties");
    Map<String, String> settings = new LinkedHashMap<>();
    for (String name : new java.util.TreeSet<>(properties.stringPropertyNames())) {
      settings.put(name, properties.getProperty(name));
    }
    return from(settings);
  }

  /**
   * The configuration in {@code settings}, full key to value ({@code shardwise.timeout -> 250ms});
   * keys not starting with {@code shardwise.} are ignored.
   */
  public static ShardwiseConfig from(Map<String, String> settings) {
    Objects.requireNonNull(settings, "settings");
    Map<String, String> relative = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String key = e.getKey();
      if (key != null && key.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
        relative.put(key.substring(PREFIX.length()), e.getValue());
      }
    }
    return from(SettingsReader.of(PREFIX, relative));
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
    Parsed parsed = new Parsed(reader, providers());
    reader.finish();
    return new ShardwiseConfig(parsed);
  }

  /** The configuration in a properties file (read as UTF-8). */
  public static ShardwiseConfig fromFile(Path file) {
    Objects.requireNonNull(file, "file");
    Properties properties = new Properties();
    try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read Shardwise settings from " + file + ": " + e, e);
    }
    return from(properties);
  }

  /**
   * The configuration in a properties resource on the classpath of the thread's context class
   * loader (or this class's), e.g. {@code shardwise.properties}.
   */
  public static ShardwiseConfig fromClasspath(String resource) {
    Objects.requireNonNull(resource, "resource");
    String name = resource.startsWith("/") ? resource.substring(1) : resource;
    ClassLoader loader = classLoader();
    Properties properties = new Properties();
    try (InputStream in = loader.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no classpath resource " + name);
      }
      properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read Shardwise settings from classpath:" + name + ": " + e, e);
    }
    return from(properties);
  }

  /** Every core key, with its default and what it accepts, in a stable order. */
  public static List<ConfigKey> keys() {
    return KEYS;
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
    Backend created = provider.create(backendSettings, timeout);
    Optional<ServerListSource> source = serversSource();
    WatchingBackend watching = source.isPresent() ? new WatchingBackend(created) : null;
    try {
      String codecName = codec != null ? codec : created.storesFlags() ? "spymemcached" : "java";
      ValueCodec<V> typed = TypedCodec.of(Codecs.named(codecName), valueType);
      ClientBuilder<V> builder =
          ShardwiseClient.builder()
              .codec(typed)
              .backend(watching != null ? watching : created)
              .servers(servers)
              .router(router)
              .hashTag(hashTag)
              .timeout(timeout)
              .connectWait(connectWait)
              .failover(failover)
              .topology(topology)
              .bounded(bounded());
      if (maxValueBytes > 0) {
        builder.maxValueBytes(maxValueBytes);
      }
      customizer.accept(builder);
      AsyncCacheClient<V> client = builder.build();
      if (watching != null) {
        watching.stopWithThis(
            ServerListWatcher.start(client, source.get(), serversRefreshInterval));
      }
      return client;
    } catch (RuntimeException | Error e) {
      created.close();
      throw e;
    }
  }

  // ---- the settings --------------------------------------------------------------------------

  /** {@code memcached}, {@code redis}, or another provider's name. */
  public String backend() {
    return backend;
  }

  /**
   * The backend's own settings (sub-key to value, as set), secrets masked: {@code ******}, or
   * {@code ****** (env:NAME)} / {@code ****** (file:/path)} for a secret reference, which says
   * where the secret comes from and not what it is.
   */
  public Map<String, String> backendSettings() {
    Map<String, String> masked = new TreeMap<>();
    backendSettings.forEach((k, v) -> masked.put(k, isSecret(k) ? masked(v) : v));
    return Collections.unmodifiableMap(masked);
  }

  /**
   * The servers: those of {@code shardwise.servers}, or those the servers file held or the DNS name
   * resolved to when the configuration was read.
   */
  public List<Node> servers() {
    return servers;
  }

  /** The watched servers file ({@code shardwise.servers-file}), if the servers come from one. */
  public Optional<Path> serversFile() {
    return Optional.ofNullable(serversFile);
  }

  /** The DNS name and port ({@code shardwise.servers-dns}), if the servers come from one. */
  public Optional<String> serversDns() {
    return Optional.ofNullable(serversDns);
  }

  /** How often the servers file or DNS name is read again. */
  public Duration serversRefreshInterval() {
    return serversRefreshInterval;
  }

  /**
   * The source the server list is watched in: the servers file or the DNS name; empty for a list
   * given in {@code shardwise.servers}, which changes only through {@link
   * AsyncCacheClient#updateServers}.
   */
  public Optional<ServerListSource> serversSource() {
    if (serversFile != null) {
      return Optional.of(ServersFile.of(serversFile));
    }
    return serversDns == null ? Optional.empty() : Optional.of(ServersDns.of(serversDns));
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

  /** The largest value accepted, if set; else the backend's default applies. */
  public OptionalInt maxValueBytes() {
    return maxValueBytes > 0 ? OptionalInt.of(maxValueBytes) : OptionalInt.empty();
  }

  /**
   * The codec's name; when not set, {@code spymemcached} for memcached and {@code java} for Redis.
   */
  public String codec() {
    return codec != null ? codec : defaultCodec(backend);
  }

  public FailoverOptions failover() {
    return failover;
  }

  public BoundedOptions bounded() {
    return BoundedOptions.builder()
        .enabled(boundedEnabled)
        .epsilon(boundedEpsilon)
        .probeLimit(boundedProbeLimit)
        .scope(BoundedOptions.Scope.of(boundedScope))
        .window(boundedWindow)
        .resolution(boundedResolution)
        .spillTtl(boundedSpillTtl)
        .hotThreshold(boundedHotThreshold)
        .build();
  }

  /**
   * Every setting in effect, full key to value as it would be written, defaults included, secrets
   * masked, in the order of {@link #keys()} and then the backend's keys.
   */
  public Map<String, String> settings() {
    return settings(true);
  }

  private Map<String, String> settings(boolean mask) {
    Map<String, String> s = new LinkedHashMap<>();
    put(s, BACKEND, backend);
    put(s, SERVERS, String.join(",", servers.stream().map(Node::toString).toList()));
    if (serversFile != null) {
      put(s, SERVERS_FILE, serversFile.toString());
    }
    if (serversDns != null) {
      put(s, SERVERS_DNS, serversDns);
    }
    if (serversFile != null || serversDns != null) {
      put(s, SERVERS_REFRESH_INTERVAL, SettingsReader.format(serversRefreshInterval));
    }
    put(s, ROUTER, router.type().id());
    switch (router.type()) {
      case KETAMA:
        put(s, KETAMA_COMPATIBILITY, router.ketamaCompatibility());
        break;
      case COMPAT:
        put(s, COMPAT_MODE, router.compatMode().id());
        break;
      case RING:
        put(s, RING_POINTS, Integer.toString(router.ringPoints()));
        break;
      case MULTIPROBE:
        put(s, MULTIPROBE_PROBES, Integer.toString(router.probes()));
        break;
      case MAGLEV:
        put(s, MAGLEV_TABLE_SIZE, Integer.toString(router.tableSize()));
        break;
      default:
        break;
    }
    put(s, HASH_TAG, hashTagText);
    put(s, TIMEOUT, SettingsReader.format(timeout));
    put(s, CONNECT_WAIT, SettingsReader.format(connectWait));
    put(s, MAX_VALUE_SIZE, maxValueBytes > 0 ? Integer.toString(maxValueBytes) : "backend default");
    put(s, CODEC, codec());
    put(s, FAILURE_MODE, failover.failureMode().id());
    put(s, FAILURE_THRESHOLD, Integer.toString(failover.failureThreshold()));
    put(s, RETRY_ATTEMPTS, Integer.toString(failover.retryAttempts()));
    put(s, REJOIN, failover.rejoinPolicy().id());
    put(s, JOURNAL_CAPACITY, Integer.toString(failover.journalCapacity()));
    put(s, FAILOVER_TTL, SettingsReader.format(failover.failoverTtl()));
    put(s, MAX_EJECTED_PERCENT, Integer.toString(failover.maxEjectedPercent()));
    put(s, TOPOLOGY_SETTLE, SettingsReader.format(topology.settle()));
    put(s, TOPOLOGY_WARM_UP, SettingsReader.format(topology.warmUp()));
    put(s, TOPOLOGY_COPY_TTL, SettingsReader.format(topology.copyTtl()));
    put(s, PROBE_INTERVAL, SettingsReader.format(failover.probeInterval()));
    put(s, PROBE_MAX_INTERVAL, SettingsReader.format(failover.maxProbeInterval()));
    put(s, PROBE_TIMEOUT, SettingsReader.format(failover.probeTimeout()));
    put(s, BOUNDED_ENABLED, Boolean.toString(boundedEnabled));
    put(s, BOUNDED_EPSILON, Double.toString(boundedEpsilon));
    put(s, BOUNDED_PROBE_LIMIT, Integer.toString(boundedProbeLimit));
    put(s, BOUNDED_SCOPE, boundedScope);
    put(s, BOUNDED_WINDOW, SettingsReader.format(boundedWindow));
    put(s, BOUNDED_RESOLUTION, SettingsReader.format(boundedResolution));
    put(s, BOUNDED_SPILL_TTL, SettingsReader.format(boundedSpillTtl));
    put(s, BOUNDED_HOT_THRESHOLD, Integer.toString(boundedHotThreshold));
    backendSettings.forEach(
        (k, v) -> put(s, backend + "." + k, mask && isSecret(k) ? masked(v) : v));
    return Collections.unmodifiableMap(s);
  }

  private static void put(Map<String, String> s, String key, String value) {
    s.put(PREFIX + key, value);
  }

  /**
   * A secret's value as it may be shown: the mask, followed by the reference for {@code env:} and
   * {@code file:} (which name where the secret is, not what it is; see {@link
   * io.shardwise.client.Secret#source()}).
   */
  private static String masked(String value) {
    // Exactly Secret.resolve's test: " env:X" or "ENV:X" is a literal password, never shown.
    boolean reference = value.startsWith(Secret.ENV_PREFIX) || value.startsWith(Secret.FILE_PREFIX);
    return reference ? SettingsReader.MASK + " (" + value + ")" : SettingsReader.MASK;
  }

  private boolean isSecret(String subKey) {
    return provider.secretKeys().contains(subKey) || SettingsReader.looksSecret(subKey);
  }

  /** Equal when every setting is, secrets included. */
  @Override
  public boolean equals(Object o) {
    return o instanceof ShardwiseConfig
        && ((ShardwiseConfig) o).settings(false).equals(settings(false));
  }

  @Override
  public int hashCode() {
    return settings(false).hashCode();
  }

  /** Every setting, secrets masked. */
  @Override
  public String toString() {
    return "ShardwiseConfig" + settings(true);
  }

  // ---- parsing -------------------------------------------------------------------------------

  private static String defaultCodec(String backend) {
    switch (backend) {
      case "memcached":
        return "spymemcached";
      case "redis":
        return "java";
      default:
        return "backend default (spymemcached if it stores flags, else java)";
    }
  }

  private static ClassLoader classLoader() {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    return loader != null ? loader : ShardwiseConfig.class.getClassLoader();
  }

  private static Map<String, BackendProvider> providers() {
    Map<String, BackendProvider> found = new LinkedHashMap<>();
    for (ClassLoader loader : List.of(classLoader(), ShardwiseConfig.class.getClassLoader())) {
      for (BackendProvider p : ServiceLoader.load(BackendProvider.class, loader)) {
        found.putIfAbsent(p.name().toLowerCase(Locale.ROOT), p);
      }
    }
    return found;
  }

  /** Reads and checks every key; problems go to the reader. */
  private static final class Parsed {
    String backend;
    BackendProvider provider;
    final Map<String, String> backendSettings = new LinkedHashMap<>();
    List<Node> servers;
    Path serversFile;
    String serversDns;
    Duration serversRefreshInterval;
    RouterSpec router = RouterSpec.DEFAULT;
    HashTag hashTag = HashTag.NONE;
    String hashTagText = "none";
    Duration timeout;
    Duration connectWait;
    int maxValueBytes;
    String codec;
    FailoverOptions failover;
    TopologyOptions topology;
    boolean boundedEnabled;
    double boundedEpsilon;
    int boundedProbeLimit;
    String boundedScope;
    Duration boundedWindow;
    Duration boundedResolution;
    Duration boundedSpillTtl;
    int boundedHotThreshold;

    Parsed(SettingsReader r, Map<String, BackendProvider> providers) {
      readBackend(r, providers);
      readServers(r);
      readRouter(r);
      readHashTag(r);
      timeout =
          r.duration(
              TIMEOUT,
              DEFAULT_TIMEOUT,
              Duration.ofMillis(1),
              SettingsReader.MAX_INT_MILLIS,
              "(a 32-bit count of milliseconds, as the Redis backend's command timeout is)");
      connectWait =
          r.duration(
              CONNECT_WAIT, ClientBuilder.DEFAULT_CONNECT_WAIT, Duration.ZERO, MAX_TOPOLOGY_WAIT, "");
      maxValueBytes = (int) r.bytes(MAX_VALUE_SIZE, 0, 1, Integer.MAX_VALUE);
      readCodec(r);
      readFailover(r);
      readTopology(r);
      boundedEnabled = r.bool(BOUNDED_ENABLED, false);
      boundedEpsilon = r.decimalAbove(BOUNDED_EPSILON, BoundedLoadSelector.DEFAULT_EPSILON, 0);
      boundedProbeLimit =
          r.integer(
              BOUNDED_PROBE_LIMIT, BoundedLoadSelector.DEFAULT_PROBE_LIMIT, 1, Integer.MAX_VALUE);
      boundedScope = r.choice(BOUNDED_SCOPE, "hot", SCOPES);
      readBoundedWindow(r);
      boundedSpillTtl =
          r.duration(BOUNDED_SPILL_TTL, BoundedOptions.DEFAULT_SPILL_TTL, Duration.ofSeconds(1));
      boundedHotThreshold =
          r.integer(BOUNDED_HOT_THRESHOLD, BoundedOptions.DEFAULT_HOT_THRESHOLD, 1, 15);
      readBackendKeys(r);
    }

    private void readBoundedWindow(SettingsReader r) {
      int before = r.problems().size();
      boundedWindow = r.positiveDuration(BOUNDED_WINDOW, BoundedOptions.DEFAULT_WINDOW);
      boundedResolution =
          r.positiveDuration(BOUNDED_RESOLUTION, BoundedOptions.DEFAULT_RESOLUTION);
      if (r.problems().size() > before) {
        boundedWindow = BoundedOptions.DEFAULT_WINDOW;
        boundedResolution = BoundedOptions.DEFAULT_RESOLUTION;
        return;
      }
      long window = boundedWindow.toNanos();
      long resolution = boundedResolution.toNanos();
      if (resolution > window || window % resolution != 0) {
        r.problem(
            BOUNDED_WINDOW,
            "must be a whole multiple of "
                + PREFIX
                + BOUNDED_RESOLUTION
                + " ("
                + SettingsReader.format(boundedResolution)
                + ") but was "
                + SettingsReader.format(boundedWindow));
      } else if (window / resolution > 1000) {
        r.problem(
            BOUNDED_WINDOW,
            "must hold at most 1000 steps of "
                + PREFIX
                + BOUNDED_RESOLUTION
                + " ("
                + SettingsReader.format(boundedResolution)
                + ") but holds "
                + window / resolution);
      } else {
        return;
      }
      boundedWindow = BoundedOptions.DEFAULT_WINDOW;
      boundedResolution = BoundedOptions.DEFAULT_RESOLUTION;
    }

    private void readBackend(SettingsReader r, Map<String, BackendProvider> providers) {
      List<String> names = new ArrayList<>(BUILT_IN_BACKENDS.keySet());
      providers.keySet().stream().filter(n -> !names.contains(n)).forEach(names::add);
      Optional<String> value = r.required(BACKEND, "expected one of " + String.join(", ", names));
      if (value.isEmpty()) {
        return;
      }
      String name = value.get().toLowerCase(Locale.ROOT);
      provider = providers.get(name);
      if (provider != null) {
        backend = name;
      } else if (BUILT_IN_BACKENDS.containsKey(name)) {
        r.problem(
            BACKEND,
            "'" + value.get() + "' needs " + BUILT_IN_BACKENDS.get(name) + " on the classpath");
      } else {
        r.problem(
            BACKEND,
            "'" + value.get() + "' is not allowed; expected one of " + String.join(", ", names));
      }
    }

    private void readServers(SettingsReader r) {
      List<String> set =
          List.of(SERVERS, SERVERS_FILE, SERVERS_DNS).stream().filter(r::isSet).toList();
      if (set.size() > 1) {
        r.problem(
            set.get(1),
            "cannot be combined with "
                + PREFIX
                + set.get(0)
                + "; set exactly one of "
                + PREFIX
                + SERVERS
                + ", "
                + PREFIX
                + SERVERS_FILE
                + ", "
                + PREFIX
                + SERVERS_DNS);
      }
      String source = set.isEmpty() ? SERVERS : set.get(0);
      Duration defaultRefresh =
          SERVERS_DNS.equals(source)
              ? ServerListWatcher.DEFAULT_DNS_INTERVAL
              : ServerListWatcher.DEFAULT_FILE_INTERVAL;
      serversRefreshInterval = r.positiveDuration(SERVERS_REFRESH_INTERVAL, defaultRefresh);
      if (SERVERS.equals(source) && r.isSet(SERVERS_REFRESH_INTERVAL)) {
        r.problem(
            SERVERS_REFRESH_INTERVAL,
            "applies to " + PREFIX + SERVERS_FILE + " or " + PREFIX + SERVERS_DNS + " only");
      }
      switch (source) {
        case SERVERS_FILE:
          readServersFile(r, r.text(SERVERS_FILE).orElseThrow());
          break;
        case SERVERS_DNS:
          readServersDns(r, r.text(SERVERS_DNS).orElseThrow());
          break;
        default:
          readServerList(r);
          break;
      }
      set.stream().skip(1).forEach(r::text); // reported above, not as unknown
    }

    private void readServerList(SettingsReader r) {
      Optional<String> value =
          r.required(
              SERVERS,
              "expected a comma-separated list such as 10.0.0.1:11211,10.0.0.2:11211, or "
                  + PREFIX
                  + SERVERS_FILE
                  + " or "
                  + PREFIX
                  + SERVERS_DNS);
      if (value.isEmpty()) {
        return;
      }
      try {
        ServerListChecks.checkNoEmptyEntry(value.get());
        servers = ServerList.parse(value.get());
      } catch (IllegalArgumentException e) {
        r.problem(SERVERS, e.getMessage());
      }
    }

    private void readServersFile(SettingsReader r, String value) {
      Path file;
      try {
        file = Path.of(value);
      } catch (java.nio.file.InvalidPathException e) {
        r.problem(SERVERS_FILE, "'" + value + "' is not a path: " + e.getMessage());
        return;
      }
      try {
        servers = ServersFile.readNow(file);
        serversFile = file;
      } catch (IOException e) {
        r.problem(SERVERS_FILE, "'" + value + "' cannot be read: " + e);
      } catch (IllegalArgumentException e) {
        r.problem(SERVERS_FILE, "'" + value + "': " + e.getMessage());
      }
    }

    private void readServersDns(SettingsReader r, String value) {
      ServersDns dns;
      try {
        dns = ServersDns.of(value);
      } catch (IllegalArgumentException e) {
        r.problem(SERVERS_DNS, e.getMessage());
        return;
      }
      try {
        servers = dns.resolve();
        serversDns = value.strip();
      } catch (java.net.UnknownHostException e) {
        r.problem(SERVERS_DNS, e.getMessage());
      }
    }

    private void readRouter(SettingsReader r) {
      String type = r.choice(ROUTER, "ketama", ROUTERS);
      String compatibility = r.choice(KETAMA_COMPATIBILITY, "libketama", KETAMA_MODES);
      int points =
          r.integer(RING_POINTS, HashRingRouter.DEFAULT_POINTS_PER_NODE, 1, Integer.MAX_VALUE);
      int probes =
          r.integer(MULTIPROBE_PROBES, MultiProbeRouter.DEFAULT_PROBES, 1, Integer.MAX_VALUE);
      int tableSize =
          r.integer(
              MAGLEV_TABLE_SIZE, MaglevRouter.DEFAULT_TABLE_SIZE, 2, MaglevRouter.MAX_TABLE_SIZE);
      if (r.isSet(MAGLEV_TABLE_SIZE)
          && tableSize != MaglevRouter.DEFAULT_TABLE_SIZE
          && !isPrime(tableSize)) {
        r.problem(MAGLEV_TABLE_SIZE, "must be a prime but was " + tableSize);
        tableSize = MaglevRouter.DEFAULT_TABLE_SIZE;
      }
      onlyFor(r, KETAMA_COMPATIBILITY, "ketama", type);
      onlyFor(r, COMPAT_MODE, "compat", type);
      PeerMode compatMode = RouterSpec.DEFAULT_COMPAT_MODE;
      if (r.isSet(COMPAT_MODE)) {
        try {
          compatMode = PeerMode.of(r.text(COMPAT_MODE, compatMode.id()));
        } catch (IllegalArgumentException e) {
          r.problem(COMPAT_MODE, e.getMessage());
        }
      }
      onlyFor(r, RING_POINTS, "ring", type);
      onlyFor(r, MULTIPROBE_PROBES, "multiprobe", type);
      onlyFor(r, MAGLEV_TABLE_SIZE, "maglev", type);
      router =
          RouterSpec.of(type)
              .withKetamaCompatibility(compatibility)
              .withRingPoints(points)
              .withProbes(probes)
              .withTableSize(tableSize)
              .withCompatMode(compatMode.id());
      if (servers != null) {
        try {
          router.build(servers); // weights on a router without weights, a table too small, ...
        } catch (IllegalArgumentException e) {
          r.problem(ROUTER, type + " cannot route these servers: " + e.getMessage());
        }
      }
    }

    private static void onlyFor(SettingsReader r, String key, String routerType, String chosen) {
      if (r.isSet(key) && !routerType.equals(chosen)) {
        r.problem(
            key,
            "applies to router " + routerType + " only, but " + PREFIX + ROUTER + " is " + chosen);
      }
    }

    private void readHashTag(SettingsReader r) {
      Optional<String> value = r.text(HASH_TAG);
      if (value.isEmpty() || value.get().equalsIgnoreCase("none")) {
        return;
      }
      try {
        hashTag = HashTag.of(value.get());
        hashTagText = value.get();
      } catch (IllegalArgumentException e) {
        r.problem(
            HASH_TAG,
            "'"
                + value.get()
                + "' is not allowed; expected two distinct printable ASCII characters such as {},"
                + " or none");
      }
    }

    private void readCodec(SettingsReader r) {
      codec = r.choice(CODEC, null, CODECS);
      if ("spymemcached".equals(codec) && "redis".equals(backend)) {
        r.problem(
            CODEC,
            "'spymemcached' needs the flags memcached stores beside a value, which redis does not"
                + " keep; expected one of utf8, bytes, java with backend redis");
        codec = null;
      }
    }

    /**
     * The topology options. With a watched source, clients see a change up to one refresh interval
     * apart (more with DNS caching), so the settle phase is at least two intervals by default.
     */
    private void readTopology(SettingsReader r) {
      Duration defaultSettle = TopologyOptions.DEFAULT_SETTLE;
      if (r.isSet(SERVERS_FILE) || r.isSet(SERVERS_DNS)) {
        Duration twice = serversRefreshInterval.multipliedBy(2);
        defaultSettle = twice.compareTo(defaultSettle) > 0 ? twice : defaultSettle;
        defaultSettle =
            defaultSettle.compareTo(MAX_TOPOLOGY_WAIT) > 0 ? MAX_TOPOLOGY_WAIT : defaultSettle;
      }
      Duration settle =
          r.duration(TOPOLOGY_SETTLE, defaultSettle, Duration.ZERO, MAX_TOPOLOGY_WAIT, "");
      Duration warmUp =
          r.duration(
              TOPOLOGY_WARM_UP,
              TopologyOptions.DEFAULT_WARM_UP,
              Duration.ZERO,
              MAX_TOPOLOGY_WAIT,
              "");
      Duration copyTtl =
          r.positiveDuration(
              TOPOLOGY_COPY_TTL, TopologyOptions.DEFAULT_COPY_TTL, MAX_TOPOLOGY_WAIT, "");
      try {
        topology = new TopologyOptions(settle, warmUp, copyTtl, connectWait);
      } catch (IllegalArgumentException e) {
        r.problem(TOPOLOGY_SETTLE, e.getMessage());
        topology = TopologyOptions.defaults();
      }
    }

    private void readFailover(SettingsReader r) {
      FailoverOptions.Builder b = FailoverOptions.builder();
      b.failureMode(FailureMode.of(r.choice(FAILURE_MODE, "redistribute", FAILURE_MODES)));
      b.failureThreshold(
          r.integer(
              FAILURE_THRESHOLD, FailoverOptions.DEFAULT_FAILURE_THRESHOLD, 1, Integer.MAX_VALUE));
      b.retryAttempts(
          r.integer(RETRY_ATTEMPTS, FailoverOptions.DEFAULT_RETRY_ATTEMPTS, 0, Integer.MAX_VALUE));
      b.rejoinPolicy(RejoinPolicy.of(r.choice(REJOIN, "journal", REJOIN_POLICIES)));
      b.journalCapacity(
          r.integer(
              JOURNAL_CAPACITY, FailoverOptions.DEFAULT_JOURNAL_CAPACITY, 1, Integer.MAX_VALUE));
      b.failoverTtl(r.positiveDuration(FAILOVER_TTL, FailoverOptions.DEFAULT_FAILOVER_TTL));
      b.maxEjectedPercent(
          r.integer(MAX_EJECTED_PERCENT, FailoverOptions.DEFAULT_MAX_EJECTED_PERCENT, 0, 100));
      Duration interval =
          r.positiveDuration(PROBE_INTERVAL, FailoverOptions.DEFAULT_PROBE_INTERVAL);
      Duration maxInterval =
          r.positiveDuration(PROBE_MAX_INTERVAL, FailoverOptions.DEFAULT_MAX_PROBE_INTERVAL);
      if (maxInterval.compareTo(interval) < 0) {
        r.problem(
            PROBE_MAX_INTERVAL,
            "must be >= "
                + PREFIX
                + PROBE_INTERVAL
                + " ("
                + SettingsReader.format(interval)
                + ") but was "
                + SettingsReader.format(maxInterval));
        maxInterval = interval;
      }
      b.probeInterval(interval).maxProbeInterval(maxInterval);
      b.probeTimeout(r.positiveDuration(PROBE_TIMEOUT, FailoverOptions.DEFAULT_PROBE_TIMEOUT));
      failover = b.build();
    }

    /** The chosen backend's keys go to its provider; other backends' keys are problems. */
    private void readBackendKeys(SettingsReader r) {
      if (provider != null) {
        for (String key : provider.keys()) {
          String full = backend + "." + key;
          Optional<String> value =
              provider.secretKeys().contains(key) || SettingsReader.looksSecret(key)
                  ? r.secret(full)
                  : r.text(full);
          value.ifPresent(v -> backendSettings.put(key, v));
        }
        provider.validate(backendSettings).forEach(r::problem);
      }
      for (String key : r.unreadKeys()) {
        String normalized = SettingsReader.normalize(key);
        for (String other : BUILT_IN_BACKENDS.keySet()) {
          if (normalized.startsWith(other + ".") && !other.equals(backend) && backend != null) {
            r.problem(
                key,
                "applies to backend "
                    + other
                    + " only, but "
                    + PREFIX
                    + BACKEND
                    + " is "
                    + backend);
            r.ignore(key);
          } else if (normalized.startsWith(other + ".") && backend == null) {
            r.ignore(key); // the backend itself is the problem
          }
        }
      }
    }

    private static boolean isPrime(int n) {
      if (n < 2) {
        return false;
      }
      for (int d = 2; (long) d * d <= n; d++) {
        if (n % d == 0) {
          return false;
        }
      }
      return true;
    }
  }
}
