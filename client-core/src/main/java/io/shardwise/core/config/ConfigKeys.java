package io.shardwise.core.config;

import static io.shardwise.core.config.ConfigKey.key;
import static io.shardwise.core.config.ShardwiseConfig.*;

import io.shardwise.bounded.BoundedLoadSelector;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.ReplicaRepair;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.config.ConfigKey.Type;
import io.shardwise.ketama.HashRingRouter;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routers.MultiProbeRouter;
import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * The table of the {@code shardwise.*} keys: for each, its type, default, rule and doc line, in
 * the order of docs/configuration.md. The loader ({@code ConfigReader}) reads every key through
 * its entry; {@code ShardwiseConfig.keys()} lists them for the documentation and the Spring Boot
 * metadata, which tests check against it.
 */
final class ConfigKeys {

  private ConfigKeys() {}

  /**
   * The longest connect wait, settle, warm-up and warm-up copy TTL: 365 days, what {@link
   * io.shardwise.core.TopologyOptions} accepts.
   */
  static final Duration MAX_TOPOLOGY_WAIT = Duration.ofDays(365);

  static final List<String> ROUTERS =
      List.of("ketama", "ring", "hrw", "jump", "multiprobe", "maglev", "modulo", "compat");
  static final List<String> KETAMA_MODES =
      List.of("libketama", "libmemcached", "twemproxy", "spymemcached", "spymemcached-weighted");
  static final List<String> CODECS = List.of("spymemcached", "utf8", "bytes", "java");
  static final List<String> FAILURE_MODES = List.of("redistribute", "fail-fast", "retry");
  static final List<String> REJOIN_POLICIES = List.of("journal", "flush", "keep");
  static final List<String> SCOPES = List.of("hot", "all");
  static final List<String> REPLICA_READ_POLICIES = List.of("p2c", "primary");

  static final ConfigKey BACKEND_KEY =
      key(BACKEND, Type.TEXT)
          .byDefault("(required)")
          .allowing("memcached, redis")
          .doing("The kind of server; its module must be on the classpath.")
          .build();

  static final ConfigKey SERVERS_KEY =
      key(SERVERS, Type.TEXT)
          .byDefault("(required unless servers-file or servers-dns is set)")
          .allowing("host:port[:weight], name=host:port[:weight], [::1]:port; comma separated")
          .doing("The servers, in order. Weights >= 1; a name is hashed instead of the address.")
          .build();

  static final ConfigKey SERVERS_FILE_KEY =
      key(SERVERS_FILE, Type.TEXT)
          .byDefault("(none)")
          .allowing("a path to a file in the servers syntax, one entry per line or comma separated, # "
              + "comments")
          .doing("Instead of servers: the file holding the server list, read at start-up and "
              + "watched; a changed list is applied without a restart.")
          .build();

  static final ConfigKey SERVERS_DNS_KEY =
      key(SERVERS_DNS, Type.TEXT)
          .byDefault("(none)")
          .allowing("name:port")
          .doing("Instead of servers: a DNS name whose A/AAAA records are the servers (a "
              + "Kubernetes headless service), resolved at start-up and again at every refresh.")
          .build();

  static final ConfigKey SERVERS_REFRESH_INTERVAL_KEY =
      key(SERVERS_REFRESH_INTERVAL, Type.DURATION)
          .byDefault("(1s for servers-file, 30s for servers-dns)")
          .between(null, SettingsReader.MAX_DURATION, "> 0, <= 106751d", "")
          .doing("How often servers-file is read or servers-dns resolved again.")
          .build();

  static final ConfigKey TOPOLOGY_SETTLE_KEY =
      key(TOPOLOGY_SETTLE, Type.DURATION)
          .byDefault(TopologyOptions.DEFAULT_SETTLE)
          .between(Duration.ZERO, MAX_TOPOLOGY_WAIT, ">= 0, <= 365d", "")
          .doing("After a server-list change, how long moved keys stay on their previous server, "
              + "so that clients applying the change later agree; 0 turns it off. With "
              + "servers-file or servers-dns the default is at least twice "
              + "servers-refresh-interval.")
          .build();

  static final ConfigKey TOPOLOGY_WARM_UP_KEY =
      key(TOPOLOGY_WARM_UP, Type.DURATION)
          .byDefault(TopologyOptions.DEFAULT_WARM_UP)
          .between(Duration.ZERO, MAX_TOPOLOGY_WAIT, ">= 0, <= 365d", "")
          .doing("After settling, how long a miss on a moved key's new server is read on its "
              + "previous one; hits are copied over once settle has passed again (clients still "
              + "settling could otherwise have a copy keep an older value); 0 turns it off.")
          .build();

  static final ConfigKey TOPOLOGY_COPY_TTL_KEY =
      key(TOPOLOGY_COPY_TTL, Type.DURATION)
          .byDefault(TopologyOptions.DEFAULT_COPY_TTL)
          .between(null, MAX_TOPOLOGY_WAIT, "> 0, <= 365d", "")
          .doing("TTL of a value the warm-up copies to its new server.")
          .build();

  static final ConfigKey ROUTER_KEY =
      key(ROUTER, Type.CHOICE)
          .byDefault("ketama")
          .oneOf(ROUTERS)
          .doing("The router that maps a key to a server.")
          .build();

  static final ConfigKey KETAMA_COMPATIBILITY_KEY =
      key(KETAMA_COMPATIBILITY, Type.CHOICE)
          .byDefault("libketama")
          .oneOf(KETAMA_MODES)
          .doing("Router ketama: the implementation whose placement it reproduces.")
          .build();

  static final ConfigKey COMPAT_MODE_KEY =
      key(COMPAT_MODE, Type.TEXT)
          .byDefault(RouterSpec.DEFAULT_COMPAT_MODE.id())
          .allowing("twemproxy:<hash>:<ketama|modula>, "
              + "libmemcached:<hash>:<modula|consistent|consistent_weighted>, "
              + "libmemcached:<hash>:consistent:points=<hash>, "
              + "spymemcached:array_mod:<alg>, spymemcached:consistent:<alg>:<format>, "
              + "xmemcached:<array|ketama>:<alg>, jedis:sharded:murmur_hash (docs/routers.md)")
          .doing("Router compat: the peer client or proxy, distribution and hash whose placement "
              + "it reproduces.")
          .build();

  static final ConfigKey RING_POINTS_KEY =
      key(RING_POINTS, Type.INTEGER)
          .byDefault(HashRingRouter.DEFAULT_POINTS_PER_NODE)
          .between(1, Integer.MAX_VALUE, ">= 1")
          .doing("Router ring: points per unit of weight.")
          .build();

  static final ConfigKey MULTIPROBE_PROBES_KEY =
      key(MULTIPROBE_PROBES, Type.INTEGER)
          .byDefault(MultiProbeRouter.DEFAULT_PROBES)
          .between(1, Integer.MAX_VALUE, ">= 1")
          .doing("Router multiprobe: probes per key.")
          .build();

  static final ConfigKey MAGLEV_TABLE_SIZE_KEY =
      key(MAGLEV_TABLE_SIZE, Type.INTEGER)
          .byDefault(MaglevRouter.DEFAULT_TABLE_SIZE)
          .between(
              2, MaglevRouter.MAX_TABLE_SIZE, "a prime larger than the number of servers, <= " + MaglevRouter.MAX_TABLE_SIZE)
          .doing("Router maglev: lookup table size.")
          .build();

  static final ConfigKey HASH_TAG_KEY =
      key(HASH_TAG, Type.TEXT)
          .byDefault("none")
          .allowing("two characters such as {}, or none")
          .doing("Only the part of a key between the two characters is hashed, as in twemproxy.")
          .build();

  static final ConfigKey REPLICAS_KEY =
      key(REPLICAS, Type.INTEGER)
          .byDefault(1)
          .between(1, Integer.MAX_VALUE, ">= 1, at most the number of servers")
          .doing("Servers that store each key: the first N of its preference list, primary first; "
              + "writes go to all, a read to one and on to the next on a miss or an error. Server-list "
              + "and placement changes, this key's included, move the replica sets with settle and "
              + "warm-up.")
          .build();

  static final ConfigKey REPLICA_READS_KEY =
      key(REPLICA_READS, Type.CHOICE)
          .byDefault("p2c")
          .oneOf(REPLICA_READ_POLICIES)
          .doing("With replicas above 1, the replica a read tries first: p2c, the less busy of two "
              + "drawn at random; primary, the first available in preference order.")
          .build();

  static final ConfigKey REPLICA_REPAIR_KEY =
      key(REPLICA_REPAIR, Type.BOOLEAN)
          .byDefault("true")
          .allowing("true, false")
          .doing("With replicas above 1, a replica gets back a copy it lost: a read that misses on it "
              + "and hits on another replica writes the value back, and the keys it missed while out "
              + "(or whose write failed there) are handed over from the others once it serves.")
          .build();

  static final ConfigKey REPLICA_REPAIR_RATE_KEY =
      key(REPLICA_REPAIR_RATE, Type.INTEGER)
          .byDefault(ReplicaRepair.DEFAULT_RATE)
          .between(1, Integer.MAX_VALUE, ">= 1")
          .doing("Most repair copies per second this client writes, all causes together; those "
              + "beyond are dropped (a later read repairs them) or wait (a handoff).")
          .build();

  static final ConfigKey REPLICA_REPAIR_TTL_KEY =
      key(REPLICA_REPAIR_TTL, Type.DURATION)
          .byDefault(ReplicaRepair.DEFAULT_TTL)
          .between(Duration.ofSeconds(1), MAX_TOPOLOGY_WAIT, ">= 1s, <= 365d", "")
          .doing("Longest TTL of a repair copy: it gets what its original has left where the "
              + "server tells (at most this), this when the original does not expire, and the "
              + "warm-up copy TTL where the server cannot tell.")
          .build();

  static final ConfigKey REPLICA_REPAIR_CHECK_KEY =
      key(REPLICA_REPAIR_CHECK, Type.DURATION)
          .byDefault(ReplicaRepair.DEFAULT_CHECK_INTERVAL)
          .between(Duration.ZERO, MAX_TOPOLOGY_WAIT, ">= 0, <= 365d", "")
          .doing("How often each server is asked which run of its data it is in (memcached stats, "
              + "Redis INFO), to see that it came back empty and count its refill; 0: never.")
          .build();

  static final ConfigKey TIMEOUT_KEY =
      key(TIMEOUT, Type.DURATION)
          .byDefault(DEFAULT_TIMEOUT)
          .between(Duration.ofMillis(1), SettingsReader.MAX_INT_MILLIS, ">= 1ms, <= 2147483647ms (24.8 days)", "(a 32-bit count of milliseconds, as the Redis backend's command timeout is)")
          .doing("Longest wait for one server's reply.")
          .build();

  static final ConfigKey CONNECT_WAIT_KEY =
      key(CONNECT_WAIT, Type.DURATION)
          .byDefault(ClientBuilder.DEFAULT_CONNECT_WAIT)
          .between(Duration.ZERO, MAX_TOPOLOGY_WAIT, ">= 0, <= 365d", "")
          .doing("Longest wait at start-up for the first connection to every server.")
          .build();

  static final ConfigKey MAX_VALUE_SIZE_KEY =
      key(MAX_VALUE_SIZE, Type.BYTES)
          .byDefault("(none: the servers' own limit)")
          .between(1, Integer.MAX_VALUE, "bytes, or 512KB, 1MB, ...; >= 1")
          .doing("Largest encoded value accepted, on top of the servers' own limit; larger ones "
              + "fail before any I/O.")
          .build();

  static final ConfigKey BATCH_SIZE_KEY =
      key(BATCH_SIZE, Type.INTEGER)
          .byDefault(ClientBuilder.DEFAULT_BATCH_SIZE)
          .between(1, Integer.MAX_VALUE, ">= 1")
          .doing("Most keys in one request to one server; a larger getMulti, setMulti or deleteMulti "
              + "(or a setMulti of more than 1 MiB of values) goes to a server in parts, one after "
              + "another, each with its own timeout.")
          .build();

  static final ConfigKey CODEC_KEY =
      key(CODEC, Type.CHOICE)
          .byDefault("(spymemcached for memcached, java for redis)")
          .oneOf(CODECS)
          .doing("How values are turned into bytes; spymemcached needs memcached's flags.")
          .build();

  static final ConfigKey FAILURE_MODE_KEY =
      key(FAILURE_MODE, Type.CHOICE)
          .byDefault("redistribute")
          .oneOf(FAILURE_MODES)
          .doing("What a request does when its server is ejected.")
          .build();

  static final ConfigKey FAILURE_THRESHOLD_KEY =
      key(FAILURE_THRESHOLD, Type.INTEGER)
          .byDefault(FailoverOptions.DEFAULT_FAILURE_THRESHOLD)
          .between(1, Integer.MAX_VALUE, ">= 1")
          .doing("Consecutive failures (timeouts, connection errors) that eject a server.")
          .build();

  static final ConfigKey RETRY_ATTEMPTS_KEY =
      key(RETRY_ATTEMPTS, Type.INTEGER)
          .byDefault(FailoverOptions.DEFAULT_RETRY_ATTEMPTS)
          .between(0, Integer.MAX_VALUE, ">= 0")
          .doing("Failure mode retry: extra attempts on the same server.")
          .build();

  static final ConfigKey REJOIN_KEY =
      key(REJOIN, Type.CHOICE)
          .byDefault("journal")
          .oneOf(REJOIN_POLICIES)
          .doing("What is removed from an ejected server before it is readmitted: the keys this "
              + "client wrote elsewhere meanwhile (journal), everything (flush: single-writer "
              + "fleets only), or nothing (keep).")
          .build();

  static final ConfigKey JOURNAL_CAPACITY_KEY =
      key(JOURNAL_CAPACITY, Type.INTEGER)
          .byDefault(FailoverOptions.DEFAULT_JOURNAL_CAPACITY)
          .between(1, Integer.MAX_VALUE, ">= 1")
          .doing("Keys written elsewhere that are remembered per ejected server; past it, writes "
              + "of its keys fail until it is back.")
          .build();

  static final ConfigKey FAILOVER_TTL_KEY =
      key(FAILOVER_TTL, Type.DURATION)
          .byDefault(FailoverOptions.DEFAULT_FAILOVER_TTL)
          .between(null, SettingsReader.MAX_DURATION, "> 0, <= 106751d", "")
          .doing("Longest TTL of a value written to another server because its own is ejected.")
          .build();

  static final ConfigKey MAX_EJECTED_PERCENT_KEY =
      key(MAX_EJECTED_PERCENT, Type.INTEGER)
          .byDefault(FailoverOptions.DEFAULT_MAX_EJECTED_PERCENT)
          .between(0, 100, "0..100")
          .doing("Largest share of the servers that timeouts may keep ejected (at least one); a "
              + "refused connection ejects regardless.")
          .build();

  static final ConfigKey PROBE_INTERVAL_KEY =
      key(PROBE_INTERVAL, Type.DURATION)
          .byDefault(FailoverOptions.DEFAULT_PROBE_INTERVAL)
          .between(null, SettingsReader.MAX_DURATION, "> 0, <= 106751d", "")
          .doing("First wait before probing an ejected server; doubles after each failed probe.")
          .build();

  static final ConfigKey PROBE_MAX_INTERVAL_KEY =
      key(PROBE_MAX_INTERVAL, Type.DURATION)
          .byDefault(FailoverOptions.DEFAULT_MAX_PROBE_INTERVAL)
          .between(null, SettingsReader.MAX_DURATION, ">= probe-interval, <= 106751d", "")
          .doing("Longest wait between probes.")
          .build();

  static final ConfigKey PROBE_TIMEOUT_KEY =
      key(PROBE_TIMEOUT, Type.DURATION)
          .byDefault(FailoverOptions.DEFAULT_PROBE_TIMEOUT)
          .between(null, SettingsReader.MAX_DURATION, "> 0, <= 106751d", "")
          .doing("How long a probe, and each rejoin step, may take.")
          .build();

  static final ConfigKey BOUNDED_ENABLED_KEY =
      key(BOUNDED_ENABLED, Type.BOOLEAN)
          .byDefault("false")
          .allowing("true, false")
          .doing("Bounded-load reads: reads of an overloaded server spill to the next.")
          .build();

  static final ConfigKey BOUNDED_EPSILON_KEY =
      key(BOUNDED_EPSILON, Type.DECIMAL)
          .byDefault(Double.toString(BoundedLoadSelector.DEFAULT_EPSILON))
          .between(0, 0, "> 0")
          .doing("Bounded loads: allowed excess over a server's share (cap = (1 + epsilon) x "
              + "share).")
          .build();

  static final ConfigKey BOUNDED_PROBE_LIMIT_KEY =
      key(BOUNDED_PROBE_LIMIT, Type.INTEGER)
          .byDefault(BoundedLoadSelector.DEFAULT_PROBE_LIMIT)
          .between(1, Integer.MAX_VALUE, ">= 1")
          .doing("Bounded loads: servers a read may try.")
          .build();

  static final ConfigKey BOUNDED_SCOPE_KEY =
      key(BOUNDED_SCOPE, Type.CHOICE)
          .byDefault("hot")
          .oneOf(SCOPES)
          .doing("Bounded loads: which keys may spill, only keys found hot or every key.")
          .build();

  static final ConfigKey BOUNDED_WINDOW_KEY =
      key(BOUNDED_WINDOW, Type.DURATION)
          .byDefault(BoundedOptions.DEFAULT_WINDOW)
          .between(null, SettingsReader.MAX_DURATION, "> 0, <= 106751d, a whole multiple of bounded.resolution", "")
          .doing("Bounded loads: how far back a server's requests are counted.")
          .build();

  static final ConfigKey BOUNDED_RESOLUTION_KEY =
      key(BOUNDED_RESOLUTION, Type.DURATION)
          .byDefault(BoundedOptions.DEFAULT_RESOLUTION)
          .between(null, SettingsReader.MAX_DURATION, "> 0, <= 106751d, at most 1000 per window", "")
          .doing("Bounded loads: the step in which the window moves.")
          .build();

  static final ConfigKey BOUNDED_SPILL_TTL_KEY =
      key(BOUNDED_SPILL_TTL, Type.DURATION)
          .byDefault(BoundedOptions.DEFAULT_SPILL_TTL)
          .between(Duration.ofSeconds(1), SettingsReader.MAX_DURATION, ">= 1s, <= 106751d", "")
          .doing("Bounded loads: life of a copy left where a read spilled; bounds the staleness "
              + "other client processes can see.")
          .build();

  static final ConfigKey BOUNDED_HOT_THRESHOLD_KEY =
      key(BOUNDED_HOT_THRESHOLD, Type.INTEGER)
          .byDefault(BoundedOptions.DEFAULT_HOT_THRESHOLD)
          .between(1, 15, "1..15")
          .doing("Bounded loads, scope hot: recent reads from which a key is hot.")
          .build();

  /** Every key, in order: these, then the near cache's ({@link NearCacheSettings}). */
  static final List<ConfigKey> ALL =
      Stream.concat(Stream.of(
          BACKEND_KEY,
          SERVERS_KEY,
          SERVERS_FILE_KEY,
          SERVERS_DNS_KEY,
          SERVERS_REFRESH_INTERVAL_KEY,
          TOPOLOGY_SETTLE_KEY,
          TOPOLOGY_WARM_UP_KEY,
          TOPOLOGY_COPY_TTL_KEY,
          ROUTER_KEY,
          KETAMA_COMPATIBILITY_KEY,
          COMPAT_MODE_KEY,
          RING_POINTS_KEY,
          MULTIPROBE_PROBES_KEY,
          MAGLEV_TABLE_SIZE_KEY,
          HASH_TAG_KEY,
          REPLICAS_KEY,
          REPLICA_READS_KEY,
          REPLICA_REPAIR_KEY,
          REPLICA_REPAIR_RATE_KEY,
          REPLICA_REPAIR_TTL_KEY,
          REPLICA_REPAIR_CHECK_KEY,
          TIMEOUT_KEY,
          CONNECT_WAIT_KEY,
          MAX_VALUE_SIZE_KEY,
          BATCH_SIZE_KEY,
          CODEC_KEY,
          FAILURE_MODE_KEY,
          FAILURE_THRESHOLD_KEY,
          RETRY_ATTEMPTS_KEY,
          REJOIN_KEY,
          JOURNAL_CAPACITY_KEY,
          FAILOVER_TTL_KEY,
          MAX_EJECTED_PERCENT_KEY,
          PROBE_INTERVAL_KEY,
          PROBE_MAX_INTERVAL_KEY,
          PROBE_TIMEOUT_KEY,
          BOUNDED_ENABLED_KEY,
          BOUNDED_EPSILON_KEY,
          BOUNDED_PROBE_LIMIT_KEY,
          BOUNDED_SCOPE_KEY,
          BOUNDED_WINDOW_KEY,
          BOUNDED_RESOLUTION_KEY,
          BOUNDED_SPILL_TTL_KEY,
          BOUNDED_HOT_THRESHOLD_KEY), NearCacheSettings.KEYS.stream()).toList();
}
