package io.shardwise.core.config;

import static io.shardwise.core.config.ShardwiseConfig.*;

import io.shardwise.client.Secret;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.routing.Node;
import io.shardwise.spi.SettingsReader;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** A configuration's settings as they would be written, for {@link ShardwiseConfig#settings()}. */
final class ConfigSettings {

  private ConfigSettings() {}

  /**
   * Every setting of {@code c}, full key to value as it would be written, defaults included, in the
   * order of the keys and then the backend's keys; secrets masked with {@code mask}.
   */
  static Map<String, String> of(ShardwiseConfig c, boolean mask) {
    Map<String, String> s = new LinkedHashMap<>();
    put(s, BACKEND, c.backend());
    put(s, SERVERS, String.join(",", c.servers().stream().map(Node::toString).toList()));
    c.serversFile().ifPresent(f -> put(s, SERVERS_FILE, f.toString()));
    c.serversDns().ifPresent(d -> put(s, SERVERS_DNS, d));
    if (c.serversSource().isPresent()) {
      put(s, SERVERS_REFRESH_INTERVAL, SettingsReader.format(c.serversRefreshInterval()));
    }
    put(s, ROUTER, c.router().type().id());
    switch (c.router().type()) {
      case KETAMA:
        put(s, KETAMA_COMPATIBILITY, c.router().ketamaCompatibility());
        break;
      case COMPAT:
        put(s, COMPAT_MODE, c.router().compatMode().id());
        break;
      case RING:
        put(s, RING_POINTS, Integer.toString(c.router().ringPoints()));
        break;
      case MULTIPROBE:
        put(s, MULTIPROBE_PROBES, Integer.toString(c.router().probes()));
        break;
      case MAGLEV:
        put(s, MAGLEV_TABLE_SIZE, Integer.toString(c.router().tableSize()));
        break;
      default:
        break;
    }
    put(s, HASH_TAG, c.hashTagText());
    put(s, REPLICAS, Integer.toString(c.replicas()));
    put(s, REPLICA_READS, c.replicaReads().id());
    put(s, REPLICA_REPAIR, Boolean.toString(c.replicaRepair().enabled()));
    put(s, REPLICA_REPAIR_RATE, Integer.toString(c.replicaRepair().ratePerSecond()));
    put(s, REPLICA_REPAIR_TTL, SettingsReader.format(c.replicaRepair().ttl()));
    put(s, REPLICA_REPAIR_CHECK, SettingsReader.format(c.replicaRepair().checkInterval()));
    put(s, TIMEOUT, SettingsReader.format(c.timeout()));
    put(s, CONNECT_WAIT, SettingsReader.format(c.connectWait()));
    put(s, MAX_VALUE_SIZE, c.maxValueBytes().isPresent() ? Integer.toString(c.maxValueBytes().getAsInt()) : "backend default");
    put(s, BATCH_SIZE, Integer.toString(c.batchSize()));
    put(s, CODEC, c.codec());
    put(s, FAILURE_MODE, c.failover().failureMode().id());
    put(s, FAILURE_THRESHOLD, Integer.toString(c.failover().failureThreshold()));
    put(s, RETRY_ATTEMPTS, Integer.toString(c.failover().retryAttempts()));
    put(s, REJOIN, c.failover().rejoinPolicy().id());
    put(s, JOURNAL_CAPACITY, Integer.toString(c.failover().journalCapacity()));
    put(s, FAILOVER_TTL, SettingsReader.format(c.failover().failoverTtl()));
    put(s, MAX_EJECTED_PERCENT, Integer.toString(c.failover().maxEjectedPercent()));
    put(s, TOPOLOGY_SETTLE, SettingsReader.format(c.topology().settle()));
    put(s, TOPOLOGY_WARM_UP, SettingsReader.format(c.topology().warmUp()));
    put(s, TOPOLOGY_COPY_TTL, SettingsReader.format(c.topology().copyTtl()));
    put(s, PROBE_INTERVAL, SettingsReader.format(c.failover().probeInterval()));
    put(s, PROBE_MAX_INTERVAL, SettingsReader.format(c.failover().maxProbeInterval()));
    put(s, PROBE_TIMEOUT, SettingsReader.format(c.failover().probeTimeout()));
    put(s, BOUNDED_ENABLED, Boolean.toString(c.bounded().enabled()));
    put(s, BOUNDED_EPSILON, Double.toString(c.bounded().epsilon()));
    put(s, BOUNDED_PROBE_LIMIT, Integer.toString(c.bounded().probeLimit()));
    put(s, BOUNDED_SCOPE, c.bounded().scope().id());
    put(s, BOUNDED_WINDOW, SettingsReader.format(c.bounded().window()));
    put(s, BOUNDED_RESOLUTION, SettingsReader.format(c.bounded().resolution()));
    put(s, BOUNDED_SPILL_TTL, SettingsReader.format(c.bounded().spillTtl()));
    put(s, BOUNDED_HOT_THRESHOLD, Integer.toString(c.bounded().hotThreshold()));
    NearCacheOptions near = c.nearCache();
    put(s, NearCacheSettings.ENABLED, Boolean.toString(near.enabled()));
    if (near.maxBytes() > 0) {
      put(s, NearCacheSettings.MAX_BYTES, bytes(near.maxBytes()));
    } else {
      put(s, NearCacheSettings.MAX_ENTRIES, Long.toString(near.maxEntries()));
    }
    put(s, NearCacheSettings.ADMIT, near.hotOnly() ? "hot" : "all");
    put(s, NearCacheSettings.HOT_THRESHOLD, Integer.toString(near.hotThreshold()));
    if (near.maxStaleness() != null) {
      put(s, NearCacheSettings.MAX_STALENESS, SettingsReader.format(near.maxStaleness()));
    }
    put(s, NearCacheSettings.REFRESH_AHEAD, Boolean.toString(near.refreshAhead()));
    BackendSettings backend = c.chosenBackend();
    backend.raw().forEach(
        (k, v) -> put(s, c.backend() + "." + k, mask && backend.isSecret(k) ? masked(v) : v));
    return Collections.unmodifiableMap(s);
  }

  /** {@code bytes} as written in a properties file: {@code 64MB}, {@code 512KB}, or a number. */
  static String bytes(long bytes) {
    if (bytes % (1 << 20) == 0) {
      return bytes / (1 << 20) + "MB";
    }
    return bytes % 1024 == 0 ? bytes / 1024 + "KB" : Long.toString(bytes);
  }

  private static void put(Map<String, String> s, String key, String value) {
    s.put(PREFIX + key, value);
  }

  /**
   * A secret's value as it may be shown: the mask, followed by the reference for {@code env:} and
   * {@code file:} (which name where the secret is, not what it is; see {@link
   * io.shardwise.client.Secret#source()}).
   */
  static String masked(String value) {
    // Exactly Secret.resolve's test: " env:X" or "ENV:X" is a literal password, never shown.
    boolean reference = value.startsWith(Secret.ENV_PREFIX) || value.startsWith(Secret.FILE_PREFIX);
    return reference ? SettingsReader.MASK + " (" + value + ")" : SettingsReader.MASK;
  }
}
