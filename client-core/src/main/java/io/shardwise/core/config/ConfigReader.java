package io.shardwise.core.config;

import static io.shardwise.core.config.BackendSettings.BUILT_IN_BACKENDS;
import static io.shardwise.core.config.ConfigKeys.*;
import static io.shardwise.core.config.ShardwiseConfig.*;

import io.shardwise.core.ClientBuilder;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.FailureMode;
import io.shardwise.core.RejoinPolicy;
import io.shardwise.core.ReplicaReads;
import io.shardwise.core.ReplicaRepair;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.TopologyOptions;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.spi.BackendProvider;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Reads and checks every {@code shardwise.*} key through its entry of the table ({@link
 * ConfigKeys}), then the rules between keys (one server source, the router's own keys, the settle
 * phase of a watched source, window and resolution); every problem goes to the reader, which
 * reports them all at once.
 */
final class ConfigReader {
  String backend;
  BackendProvider provider;
  final Map<String, String> backendSettings = new LinkedHashMap<>();
  ServerSource source;
  RouterSpec router = RouterSpec.DEFAULT;
  HashTag hashTag = HashTag.NONE;
  String hashTagText = "none";
  int replicas;
  ReplicaReads replicaReads;
  ReplicaRepair replicaRepair;
  Duration timeout;
  Duration connectWait;
  int maxValueBytes;
  int batchSize;
  String codec;
  FailoverOptions failover;
  TopologyOptions topology;
  BoundedSettings bounded;
  NearCacheSettings nearCache;

  ConfigReader(SettingsReader r, Map<String, BackendProvider> providers) {
    readBackend(r, providers);
    source = new ServerSource(r);
    router = PlacementSettings.readRouter(r, RouterSpec.DEFAULT, source.servers);
    hashTag = PlacementSettings.readHashTag(r, HashTag.NONE);
    hashTagText = hashTag.isEnabled() ? hashTag.toString() : "none";
    replicas = REPLICAS_KEY.integer(r, 1);
    replicaReads = ReplicaReads.of(REPLICA_READS_KEY.choice(r, "p2c"));
    replicaRepair =
        new ReplicaRepair(
            REPLICA_REPAIR_KEY.bool(r, true),
            REPLICA_REPAIR_RATE_KEY.integer(r, ReplicaRepair.DEFAULT_RATE),
            REPLICA_REPAIR_TTL_KEY.duration(r, ReplicaRepair.DEFAULT_TTL),
            REPLICA_REPAIR_CHECK_KEY.duration(r, ReplicaRepair.DEFAULT_CHECK_INTERVAL));
    timeout = TIMEOUT_KEY.duration(r, DEFAULT_TIMEOUT);
    connectWait = CONNECT_WAIT_KEY.duration(r, ClientBuilder.DEFAULT_CONNECT_WAIT);
    maxValueBytes = (int) MAX_VALUE_SIZE_KEY.bytes(r, 0);
    batchSize = BATCH_SIZE_KEY.integer(r, ClientBuilder.DEFAULT_BATCH_SIZE);
    readCodec(r);
    readFailover(r);
    readTopology(r);
    bounded = new BoundedSettings(r);
    nearCache = new NearCacheSettings(r, r.text(BACKEND).map(b -> b.toLowerCase(Locale.ROOT)).orElse(null));
    readBackendKeys(r);
    checkReplicas(r);
  }

  /** Replicas against the server list given in the settings. */
  private void checkReplicas(SettingsReader r) {
    List<Node> servers = source.servers;
    if (replicas > 1 && servers != null && !servers.isEmpty() && replicas > servers.size()) {
      r.problem(REPLICAS, "must be at most the number of servers (" + servers.size() + ") but was " + replicas);
    }
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

  private void readCodec(SettingsReader r) {
    codec = CODEC_KEY.choice(r, null);
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
      Duration twice = source.refreshInterval.multipliedBy(2);
      defaultSettle = twice.compareTo(defaultSettle) > 0 ? twice : defaultSettle;
      defaultSettle =
          defaultSettle.compareTo(MAX_TOPOLOGY_WAIT) > 0 ? MAX_TOPOLOGY_WAIT : defaultSettle;
    }
    Duration settle = TOPOLOGY_SETTLE_KEY.duration(r, defaultSettle);
    Duration warmUp = TOPOLOGY_WARM_UP_KEY.duration(r, TopologyOptions.DEFAULT_WARM_UP);
    Duration copyTtl = TOPOLOGY_COPY_TTL_KEY.duration(r, TopologyOptions.DEFAULT_COPY_TTL);
    try {
      topology = new TopologyOptions(settle, warmUp, copyTtl, connectWait);
    } catch (IllegalArgumentException e) {
      r.problem(TOPOLOGY_SETTLE, e.getMessage());
      topology = TopologyOptions.defaults();
    }
  }

  private void readFailover(SettingsReader r) {
    FailoverOptions.Builder b = FailoverOptions.builder();
    b.failureMode(FailureMode.of(FAILURE_MODE_KEY.choice(r, "redistribute")));
    b.failureThreshold(FAILURE_THRESHOLD_KEY.integer(r, FailoverOptions.DEFAULT_FAILURE_THRESHOLD));
    b.retryAttempts(RETRY_ATTEMPTS_KEY.integer(r, FailoverOptions.DEFAULT_RETRY_ATTEMPTS));
    b.rejoinPolicy(RejoinPolicy.of(REJOIN_KEY.choice(r, "journal")));
    b.journalCapacity(JOURNAL_CAPACITY_KEY.integer(r, FailoverOptions.DEFAULT_JOURNAL_CAPACITY));
    b.failoverTtl(FAILOVER_TTL_KEY.duration(r, FailoverOptions.DEFAULT_FAILOVER_TTL));
    b.maxEjectedPercent(MAX_EJECTED_PERCENT_KEY.integer(r, FailoverOptions.DEFAULT_MAX_EJECTED_PERCENT));
    Duration interval = PROBE_INTERVAL_KEY.duration(r, FailoverOptions.DEFAULT_PROBE_INTERVAL);
    Duration maxInterval = PROBE_MAX_INTERVAL_KEY.duration(r, FailoverOptions.DEFAULT_MAX_PROBE_INTERVAL);
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
    b.probeTimeout(PROBE_TIMEOUT_KEY.duration(r, FailoverOptions.DEFAULT_PROBE_TIMEOUT));
    failover = b.build();
  }

  /** The chosen backend's keys go to its provider; other backends' keys are problems. */
  private void readBackendKeys(SettingsReader r) {
    if (provider != null) {
      for (String key : provider.keys()) {
        String full = backend + "." + key;
        Optional<String> value =
            BackendSettings.isSecret(provider, key)
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
}
