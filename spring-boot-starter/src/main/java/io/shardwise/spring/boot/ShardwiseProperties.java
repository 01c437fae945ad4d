package io.shardwise.spring.boot;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code shardwise.*} keys, for IDE completion (the generated configuration metadata) and for
 * reading them in the application. The client itself is built by {@link
 * io.shardwise.core.config.ShardwiseConfig} from the same keys, which checks them all at once and
 * names every bad value; so that a bad value gets that message, and the same one as with the
 * plain-Java loader, values are kept here as text, with the defaults as they would be written.
 * {@code docs/configuration.md} describes every key.
 */
@ConfigurationProperties(prefix = "shardwise")
public class ShardwiseProperties {

  /**
   * The kind of server: memcached or redis. Its module (shardwise-backend-spymemcached or
   * shardwise-backend-lettuce) must be on the classpath. Required.
   */
  private String backend;

  /**
   * The servers, in order: host:port, host:port:weight, name=host:port[:weight], [::1]:port; a
   * comma-separated list or a YAML list. Required unless servers-file or servers-dns is set. A
   * refresh of this property (Spring Cloud's EnvironmentChangeEvent) moves the client to the new
   * list without recreating it.
   */
  private List<String> servers = new ArrayList<>();

  /**
   * Instead of servers: a file holding the server list (one entry per line or comma separated, #
   * comments), read at start-up and watched; a changed valid list is applied without a restart.
   */
  private String serversFile;

  /**
   * Instead of servers: name:port of a DNS name whose A/AAAA records are the servers (a Kubernetes
   * headless service), resolved at start-up and again at every refresh.
   */
  private String serversDns;

  /**
   * How often servers-file is read or servers-dns resolved again. Default: 1s for a file, 30s for
   * a DNS name.
   */
  private String serversRefreshInterval;

  /** The router: ketama, ring, hrw, jump, multiprobe, maglev, modulo or compat. */
  private String router = "ketama";

  /**
   * Hash tag: two characters such as {}; only the part of a key between them is hashed. none hashes
   * whole keys.
   */
  private String hashTag = "none";

  /**
   * Servers that store each key, at least 1 and at most the number of servers: the first N of its
   * preference list. Writes go to all, a read to one and on to the next on a miss or an error.
   * Server-list and placement changes, a refresh of this key included, move the replica sets with
   * settle and warm-up.
   */
  private String replicas = "1";

  /**
   * With replicas above 1, the replica a read tries first: p2c (the less busy of two drawn at
   * random) or primary (the first available in preference order).
   */
  private String replicaReads = "p2c";

  /**
   * With replicas above 1, whether a replica gets back a copy it lost: a read that misses on it and
   * hits on another replica writes the value back, and the keys it missed while out (or whose write
   * failed there) are handed over from the others once it serves.
   */
  private String replicaRepair = "true";

  /** Most repair copies per second the client writes, at least 1. */
  private String replicaRepairRate = "1000";

  /**
   * Longest TTL of a repair copy: what the original has left where the server tells (at most this),
   * this when it does not expire, the warm-up copy TTL where the server cannot tell.
   */
  private String replicaRepairTtl = "10m";

  /**
   * How often each server is asked which run of its data it is in (memcached stats, Redis INFO),
   * to see that it came back empty and count its refill; 0: never.
   */
  private String replicaRepairCheck = "5s";

  /** Longest wait for one server's reply (250ms, 2s, ...), at least 1ms. */
  private String timeout = "1s";

  /** Longest wait at start-up for the first connection to every server. */
  private String connectWait = "2s";

  /**
   * Largest encoded value accepted: bytes, or 512KB, 1MB, ... Default: the backend's (1MB for
   * memcached, 512MB for Redis).
   */
  private String maxValueSize;

  /**
   * Most keys in one request to one server, at least 1; a larger getMulti, setMulti or deleteMulti
   * (or a setMulti of more than 1 MiB of values) goes to a server in parts, each with its own
   * timeout.
   */
  private String batchSize = "1000";

  /**
   * How values are turned into bytes: spymemcached, utf8, bytes or java. Default: spymemcached for
   * memcached, java for Redis.
   */
  private String codec;

  /**
   * What a request does when its server is ejected: redistribute (next server of the key),
   * fail-fast or retry.
   */
  private String failureMode = "redistribute";

  /** Consecutive failures (timeouts, connection errors) that eject a server, at least 1. */
  private String failureThreshold = "5";

  /** Failure mode retry: extra attempts on the same server, at least 0. */
  private String retryAttempts = "2";

  /**
   * What is removed from an ejected server before it is readmitted: journal (the keys this client
   * wrote elsewhere meanwhile), flush (everything: single-writer fleets only) or keep (nothing).
   */
  private String rejoin = "journal";

  /**
   * Keys written elsewhere that are remembered per ejected server; past it, writes of its keys
   * fail until it is back.
   */
  private String journalCapacity = "100000";

  /** Longest TTL of a value written to another server because its own is ejected. */
  private String failoverTtl = "10s";

  /**
   * Largest share of the servers, in percent, that timeouts may keep ejected (at least one); a
   * refused connection ejects regardless.
   */
  private String maxEjectedPercent = "50";

  /** First wait before probing an ejected server; doubles after each failed probe. */
  private String probeInterval = "200ms";

  /** Longest wait between probes, at least the probe interval. */
  private String probeMaxInterval = "2s";

  /** How long a probe, and each rejoin step, may take. */
  private String probeTimeout = "1s";

  public String getBackend() {
    return backend;
  }

  public void setBackend(String backend) {
    this.backend = backend;
  }

  public List<String> getServers() {
    return servers;
  }

  public void setServers(List<String> servers) {
    this.servers = servers;
  }

  public String getServersFile() {
    return serversFile;
  }

  public void setServersFile(String serversFile) {
    this.serversFile = serversFile;
  }

  public String getServersDns() {
    return serversDns;
  }

  public void setServersDns(String serversDns) {
    this.serversDns = serversDns;
  }

  public String getServersRefreshInterval() {
    return serversRefreshInterval;
  }

  public void setServersRefreshInterval(String serversRefreshInterval) {
    this.serversRefreshInterval = serversRefreshInterval;
  }

  public String getRouter() {
    return router;
  }

  public void setRouter(String router) {
    this.router = router;
  }

  public String getHashTag() {
    return hashTag;
  }

  public void setHashTag(String hashTag) {
    this.hashTag = hashTag;
  }

  public String getReplicas() {
    return replicas;
  }

  public void setReplicas(String replicas) {
    this.replicas = replicas;
  }

  public String getReplicaReads() {
    return replicaReads;
  }

  public void setReplicaReads(String replicaReads) {
    this.replicaReads = replicaReads;
  }

  public String getReplicaRepair() {
    return replicaRepair;
  }

  public void setReplicaRepair(String replicaRepair) {
    this.replicaRepair = replicaRepair;
  }

  public String getReplicaRepairRate() {
    return replicaRepairRate;
  }

  public void setReplicaRepairRate(String replicaRepairRate) {
    this.replicaRepairRate = replicaRepairRate;
  }

  public String getReplicaRepairTtl() {
    return replicaRepairTtl;
  }

  public void setReplicaRepairTtl(String replicaRepairTtl) {
    this.replicaRepairTtl = replicaRepairTtl;
  }

  public String getReplicaRepairCheck() {
    return replicaRepairCheck;
  }

  public void setReplicaRepairCheck(String replicaRepairCheck) {
    this.replicaRepairCheck = replicaRepairCheck;
  }

  public String getTimeout() {
    return timeout;
  }

  public void setTimeout(String timeout) {
    this.timeout = timeout;
  }

  public String getConnectWait() {
    return connectWait;
  }

  public void setConnectWait(String connectWait) {
    this.connectWait = connectWait;
  }

  public String getMaxValueSize() {
    return maxValueSize;
  }

  public void setMaxValueSize(String maxValueSize) {
    this.maxValueSize = maxValueSize;
  }

  public String getBatchSize() {
    return batchSize;
  }

  public void setBatchSize(String batchSize) {
    this.batchSize = batchSize;
  }

  public String getCodec() {
    return codec;
  }

  public void setCodec(String codec) {
    this.codec = codec;
  }

  public String getFailureMode() {
    return failureMode;
  }

  public void setFailureMode(String failureMode) {
    this.failureMode = failureMode;
  }

  public String getFailureThreshold() {
    return failureThreshold;
  }

  public void setFailureThreshold(String failureThreshold) {
    this.failureThreshold = failureThreshold;
  }

  public String getRetryAttempts() {
    return retryAttempts;
  }

  public void setRetryAttempts(String retryAttempts) {
    this.retryAttempts = retryAttempts;
  }

  public String getRejoin() {
    return rejoin;
  }

  public void setRejoin(String rejoin) {
    this.rejoin = rejoin;
  }

  public String getJournalCapacity() {
    return journalCapacity;
  }

  public void setJournalCapacity(String journalCapacity) {
    this.journalCapacity = journalCapacity;
  }

  public String getProbeInterval() {
    return probeInterval;
  }

  public void setProbeInterval(String probeInterval) {
    this.probeInterval = probeInterval;
  }

  public String getProbeMaxInterval() {
    return probeMaxInterval;
  }

  public void setProbeMaxInterval(String probeMaxInterval) {
    this.probeMaxInterval = probeMaxInterval;
  }

  public String getFailoverTtl() {
    return failoverTtl;
  }

  public void setFailoverTtl(String failoverTtl) {
    this.failoverTtl = failoverTtl;
  }

  public String getMaxEjectedPercent() {
    return maxEjectedPercent;
  }

  public void setMaxEjectedPercent(String maxEjectedPercent) {
    this.maxEjectedPercent = maxEjectedPercent;
  }

  public String getProbeTimeout() {
    return probeTimeout;
  }

  public void setProbeTimeout(String probeTimeout) {
    this.probeTimeout = probeTimeout;
  }

  private final Ketama ketama = new Ketama();

  private final Compat compat = new Compat();

  private final Ring ring = new Ring();

  private final Multiprobe multiprobe = new Multiprobe();

  private final Maglev maglev = new Maglev();

  private final Bounded bounded = new Bounded();

  private final NearCache nearCache = new NearCache();

  private final Topology topology = new Topology();

  private final Memcached memcached = new Memcached();

  private final Redis redis = new Redis();

  private final Cache cache = new Cache();

  public Ketama getKetama() {
    return ketama;
  }

  public Compat getCompat() {
    return compat;
  }

  public Ring getRing() {
    return ring;
  }

  public Multiprobe getMultiprobe() {
    return multiprobe;
  }

  public Maglev getMaglev() {
    return maglev;
  }

  public Bounded getBounded() {
    return bounded;
  }

  public NearCache getNearCache() {
    return nearCache;
  }

  public Topology getTopology() {
    return topology;
  }

  public Memcached getMemcached() {
    return memcached;
  }

  public Redis getRedis() {
    return redis;
  }

  public Cache getCache() {
    return cache;
  }

  /** Router ketama. */
  public static class Ketama {

    /**
     * The implementation whose placement ketama reproduces: libketama, libmemcached, twemproxy,
     * spymemcached or spymemcached-weighted.
     */
    private String compatibility = "libketama";

    public String getCompatibility() {
      return compatibility;
    }

    public void setCompatibility(String compatibility) {
      this.compatibility = compatibility;
    }
  }

  /** Router compat. */
  public static class Compat {

    /**
     * The peer client or proxy, distribution and hash whose placement compat reproduces, e.g.
     * twemproxy:fnv1a_64:ketama, libmemcached:default:modula or spymemcached:array_mod:native_hash
     * (docs/routers.md).
     */
    private String mode = "twemproxy:fnv1a_64:ketama";

    public String getMode() {
      return mode;
    }

    public void setMode(String mode) {
      this.mode = mode;
    }
  }

  /** Router ring. */
  public static class Ring {

    /** Points on the ring per unit of weight, at least 1. */
    private String pointsPerNode = "160";

    public String getPointsPerNode() {
      return pointsPerNode;
    }

    public void setPointsPerNode(String pointsPerNode) {
      this.pointsPerNode = pointsPerNode;
    }
  }

  /** Router multiprobe. */
  public static class Multiprobe {

    /** Probes per key, at least 1. */
    private String probes = "21";

    public String getProbes() {
      return probes;
    }

    public void setProbes(String probes) {
      this.probes = probes;
    }
  }

  /** Router maglev. */
  public static class Maglev {

    /** Lookup table size: a prime larger than the number of servers. */
    private String tableSize = "65537";

    public String getTableSize() {
      return tableSize;
    }

    public void setTableSize(String tableSize) {
      this.tableSize = tableSize;
    }
  }

  /** Server-list changes at runtime: the phases of moved keys (docs/topology.md). */
  public static class Topology {

    /**
     * How long moved keys stay on their previous server after a change, >= 0 (0: off); with
     * servers-file or servers-dns the default is at least twice servers-refresh-interval.
     */
    private String settle = "10s";

    /** After settling, how long a miss on a moved key's new server is read on its previous one, >= 0. */
    private String warmUp = "10m";

    /** TTL of a value the warm-up copies to its new server, > 0. */
    private String warmUpCopyTtl = "1m";

    public String getSettle() {
      return settle;
    }

    public void setSettle(String settle) {
      this.settle = settle;
    }

    public String getWarmUp() {
      return warmUp;
    }

    public void setWarmUp(String warmUp) {
      this.warmUp = warmUp;
    }

    public String getWarmUpCopyTtl() {
      return warmUpCopyTtl;
    }

    public void setWarmUpCopyTtl(String warmUpCopyTtl) {
      this.warmUpCopyTtl = warmUpCopyTtl;
    }
  }

  /** Bounded-load reads. */
  public static class Bounded {

    /** Whether reads of an overloaded server spill to the next server of the key: true or false. */
    private String enabled = "false";

    /** Allowed excess over a server's share of the load (cap = (1 + epsilon) x share), > 0. */
    private String epsilon = "0.25";

    /** Servers a read may try, at least 1. */
    private String probeLimit = "8";

    /** Which keys may spill: hot (only keys a frequency sketch finds hot) or all. */
    private String scope = "hot";

    /** How far back a server's requests are counted, a whole multiple of the resolution. */
    private String window = "1s";

    /** The step in which the window moves, > 0, at most 1000 per window. */
    private String resolution = "100ms";

    /** Life of a copy left where a read spilled, at least 1s. */
    private String spillTtl = "5s";

    /** With scope hot: recent reads from which a key is hot, 1..15. */
    private String hotThreshold = "8";

    public String getEnabled() {
      return enabled;
    }

    public void setEnabled(String enabled) {
      this.enabled = enabled;
    }

    public String getEpsilon() {
      return epsilon;
    }

    public void setEpsilon(String epsilon) {
      this.epsilon = epsilon;
    }

    public String getProbeLimit() {
      return probeLimit;
    }

    public void setProbeLimit(String probeLimit) {
      this.probeLimit = probeLimit;
    }

    public String getScope() {
      return scope;
    }

    public void setScope(String scope) {
      this.scope = scope;
    }

    public String getWindow() {
      return window;
    }

    public void setWindow(String window) {
      this.window = window;
    }

    public String getResolution() {
      return resolution;
    }

    public void setResolution(String resolution) {
      this.resolution = resolution;
    }

    public String getSpillTtl() {
      return spillTtl;
    }

    public void setSpillTtl(String spillTtl) {
      this.spillTtl = spillTtl;
    }

    public String getHotThreshold() {
      return hotThreshold;
    }

    public void setHotThreshold(String hotThreshold) {
      this.hotThreshold = hotThreshold;
    }
  }

  /**
   * The near cache: values read kept in this process (docs/near-cache.md). max-bytes, max-entries,
   * max-staleness, hot-threshold and refresh-ahead follow a refresh; enabled and admit are read at
   * start-up only.
   */
  public static class NearCache {

    /** Whether values read are kept in this process and gets of them served from there: true or false. */
    private String enabled = "false";

    /**
     * The most memory the entries take, each weighed by its key, its value and a fixed overhead;
     * the bound unless max-entries is set (not both).
     */
    private String maxBytes = "64MB";

    /** The most entries, whatever their size, at least 1; set instead of max-bytes. */
    private String maxEntries;

    /** Which values read are kept: hot (keys read at least hot-threshold times recently) or all. */
    private String admit = "hot";

    /** With admit hot: recent reads from which a key's value is kept, 1..15. */
    private String hotThreshold = "8";

    /**
     * The longest an entry is served after it was read: required, at most 1m, with memcached, whose
     * servers cannot invalidate (another client's write is seen after at most this); 60s by default
     * with Redis, where it bounds what a lost invalidation could cost.
     */
    private String maxStaleness;

    /**
     * Whether an entry served again in the second half of its max-staleness is read again from its server
     * in the background while still served: true or false.
     */
    private String refreshAhead = "true";

    public String getEnabled() {
      return enabled;
    }

    public void setEnabled(String enabled) {
      this.enabled = enabled;
    }

    public String getMaxBytes() {
      return maxBytes;
    }

    public void setMaxBytes(String maxBytes) {
      this.maxBytes = maxBytes;
    }

    public String getMaxEntries() {
      return maxEntries;
    }

    public void setMaxEntries(String maxEntries) {
      this.maxEntries = maxEntries;
    }

    public String getAdmit() {
      return admit;
    }

    public void setAdmit(String admit) {
      this.admit = admit;
    }

    public String getHotThreshold() {
      return hotThreshold;
    }

    public void setHotThreshold(String hotThreshold) {
      this.hotThreshold = hotThreshold;
    }

    public String getMaxStaleness() {
      return maxStaleness;
    }

    public void setMaxStaleness(String maxStaleness) {
      this.maxStaleness = maxStaleness;
    }

    public String getRefreshAhead() {
      return refreshAhead;
    }

    public void setRefreshAhead(String refreshAhead) {
      this.refreshAhead = refreshAhead;
    }
  }

  /** Backend memcached. */
  public static class Memcached {

    /** The wire protocol: text or binary. */
    private String protocol = "text";

    /** Longest pause between reconnection attempts to a server that is down, at least 1s. */
    private String maxReconnectDelay = "30s";

    public String getProtocol() {
      return protocol;
    }

    public void setProtocol(String protocol) {
      this.protocol = protocol;
    }

    public String getMaxReconnectDelay() {
      return maxReconnectDelay;
    }

    public void setMaxReconnectDelay(String maxReconnectDelay) {
      this.maxReconnectDelay = maxReconnectDelay;
    }

    private final Sasl sasl = new Sasl();

    public Sasl getSasl() {
      return sasl;
    }
  }

  /** memcached SASL authentication (PLAIN); needs shardwise.memcached.protocol=binary. */
  public static class Sasl {

    /** The SASL user name; needs a password and shardwise.memcached.protocol=binary. */
    private String username;

    /**
     * The SASL password: the password itself, env:NAME (an environment variable), file:/path (a
     * file's content) or literal:TEXT. Never shown in messages or logs.
     */
    private String password;

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }
  }

  /** Backend redis. */
  public static class Redis {

    /** The logical database every connection selects, at least 0. */
    private String database = "0";

    /** The name CLIENT SETNAME gives every connection (printable ASCII, no spaces). */
    private String clientName;

    public String getDatabase() {
      return database;
    }

    public void setDatabase(String database) {
      this.database = database;
    }

    public String getClientName() {
      return clientName;
    }

    public void setClientName(String clientName) {
      this.clientName = clientName;
    }

    /**
     * Whether the commands queued on one connection go out with one flush (Netty's
     * FlushConsolidationHandler): less CPU per command and a higher rate when several threads, a
     * batch or replicated writes keep a connection busy; the first commands of a group wait
     * microseconds for the rest.
     */
    private String consolidateFlushes = "true";

    public String getConsolidateFlushes() {
      return consolidateFlushes;
    }

    public void setConsolidateFlushes(String consolidateFlushes) {
      this.consolidateFlushes = consolidateFlushes;
    }

    /** The ACL user name sent with AUTH; needs a password. Default: the default user. */
    private String username;

    /**
     * The password sent with AUTH (a password alone authenticates the default user): the password
     * itself, env:NAME (an environment variable), file:/path (a file's content) or literal:TEXT.
     * Never shown in messages or logs.
     */
    private String password;

    private final Tls tls = new Tls();

    public String getUsername() {
      return username;
    }

    public void setUsername(String username) {
      this.username = username;
    }

    public String getPassword() {
      return password;
    }

    public void setPassword(String password) {
      this.password = password;
    }

    public Tls getTls() {
      return tls;
    }
  }

  /** Redis TLS; every key but enabled needs shardwise.redis.tls.enabled=true. */
  public static class Tls {

    /** Whether every connection uses TLS: true or false. */
    private String enabled = "false";

    /**
     * PEM file of the CA certificates to trust. Default: the JDK's trust store. Not with
     * trust-store.
     */
    private String caFile;

    /** Key store (PKCS#12 or JKS) of the certificates to trust. Not with ca-file. */
    private String trustStore;

    /**
     * Password of the trust store: the password itself, env:NAME, file:/path or literal:TEXT. Never
     * shown in messages or logs.
     */
    private String trustStorePassword;

    /**
     * Key store (PKCS#12 or JKS) with the client's key and certificate chain, presented when the
     * server asks for a client certificate. Not with certificate-file.
     */
    private String keyStore;

    /**
     * Password of the key store and its key: the password itself, env:NAME, file:/path or
     * literal:TEXT. Never shown in messages or logs.
     */
    private String keyStorePassword;

    /**
     * PEM file of the client's certificate chain, leaf first, presented when the server asks for a
     * client certificate; needs private-key-file.
     */
    private String certificateFile;

    /** PKCS#8 PEM file of the client's private key; needs certificate-file. */
    private String privateKeyFile;

    /**
     * Password of an encrypted private-key-file: the password itself, env:NAME, file:/path or
     * literal:TEXT. Never shown in messages or logs.
     */
    private String privateKeyPassword;

    /**
     * Whether the server's certificate must name the host (or IP address) connected to: true or
     * false. False still requires a certificate from a trusted CA.
     */
    private String verifyHostname = "true";

    public String getEnabled() {
      return enabled;
    }

    public void setEnabled(String enabled) {
      this.enabled = enabled;
    }

    public String getCaFile() {
      return caFile;
    }

    public void setCaFile(String caFile) {
      this.caFile = caFile;
    }

    public String getTrustStore() {
      return trustStore;
    }

    public void setTrustStore(String trustStore) {
      this.trustStore = trustStore;
    }

    public String getTrustStorePassword() {
      return trustStorePassword;
    }

    public void setTrustStorePassword(String trustStorePassword) {
      this.trustStorePassword = trustStorePassword;
    }

    public String getKeyStore() {
      return keyStore;
    }

    public void setKeyStore(String keyStore) {
      this.keyStore = keyStore;
    }

    public String getKeyStorePassword() {
      return keyStorePassword;
    }

    public void setKeyStorePassword(String keyStorePassword) {
      this.keyStorePassword = keyStorePassword;
    }

    public String getCertificateFile() {
      return certificateFile;
    }

    public void setCertificateFile(String certificateFile) {
      this.certificateFile = certificateFile;
    }

    public String getPrivateKeyFile() {
      return privateKeyFile;
    }

    public void setPrivateKeyFile(String privateKeyFile) {
      this.privateKeyFile = privateKeyFile;
    }

    public String getPrivateKeyPassword() {
      return privateKeyPassword;
    }

    public void setPrivateKeyPassword(String privateKeyPassword) {
      this.privateKeyPassword = privateKeyPassword;
    }

    public String getVerifyHostname() {
      return verifyHostname;
    }

    public void setVerifyHostname(String verifyHostname) {
      this.verifyHostname = verifyHostname;
    }
  }

  /** Spring Cache over the client. */
  public static class Cache {

    /**
     * Whether a Spring Cache CacheManager over the client is defined (when caching is enabled and
     * the application has none): true or false.
     */
    private String enabled = "true";

    /**
     * Time to live of cache entries (0: no expiry). Entries of a cleared cache are only reclaimed
     * by expiry or eviction.
     */
    private String ttl = "1h";

    /** Text before every cache's own prefix (the cache name and a colon). */
    private String keyPrefix = "";

    /** Whether null values are cached: true or false. */
    private String cacheNullValues = "true";

    /**
     * How long a cache's generation, which clear() advances, is used before it is read again;
     * clears by other processes show within it. 0 reads it on every operation.
     */
    private String generationRefresh = "1s";

    public String getEnabled() {
      return enabled;
    }

    public void setEnabled(String enabled) {
      this.enabled = enabled;
    }

    public String getTtl() {
      return ttl;
    }

    public void setTtl(String ttl) {
      this.ttl = ttl;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public String getCacheNullValues() {
      return cacheNullValues;
    }

    public void setCacheNullValues(String cacheNullValues) {
      this.cacheNullValues = cacheNullValues;
    }

    public String getGenerationRefresh() {
      return generationRefresh;
    }

    public void setGenerationRefresh(String generationRefresh) {
      this.generationRefresh = generationRefresh;
    }

    /** Spring Boot's name for ttl; set one or the other. */
    private String timeToLive;

    /**
     * Whether each cache's keys start with key-prefix and the cache name (Spring Boot's name):
     * false puts every cache in one key space with one generation, so clearing one clears all.
     */
    private String useKeyPrefix = "true";

    /** Whether the caches' meters (cache.gets, cache.puts, cache.removals, ...) are registered. */
    private String enableStatistics = "true";

    /**
     * Whether puts and evictions wait for the surrounding transaction to commit (Spring's
     * TransactionAwareCacheDecorator).
     */
    private String transactionAware = "false";

    /**
     * Whether a cache read or write that fails (a server down or slow) behaves as a miss and is
     * logged once per cache and failure type, instead of failing the cached method. Evictions and
     * clears still fail.
     */
    private String failuresAsMisses = "false";

    public String getTimeToLive() {
      return timeToLive;
    }

    public void setTimeToLive(String timeToLive) {
      this.timeToLive = timeToLive;
    }

    public String getUseKeyPrefix() {
      return useKeyPrefix;
    }

    public void setUseKeyPrefix(String useKeyPrefix) {
      this.useKeyPrefix = useKeyPrefix;
    }

    public String getEnableStatistics() {
      return enableStatistics;
    }

    public void setEnableStatistics(String enableStatistics) {
      this.enableStatistics = enableStatistics;
    }

    public String getTransactionAware() {
      return transactionAware;
    }

    public void setTransactionAware(String transactionAware) {
      this.transactionAware = transactionAware;
    }

    public String getFailuresAsMisses() {
      return failuresAsMisses;
    }

    public void setFailuresAsMisses(String failuresAsMisses) {
      this.failuresAsMisses = failuresAsMisses;
    }

    /** Settings of single caches, by cache name. */
    private Map<String, CacheSpec> caches = new LinkedHashMap<>();

    public Map<String, CacheSpec> getCaches() {
      return caches;
    }

    public void setCaches(Map<String, CacheSpec> caches) {
      this.caches = caches;
    }
  }

  /** One cache's settings; what is not set comes from shardwise.cache.*. */
  public static class CacheSpec {

    /** Time to live of this cache's entries (0: no expiry). Default: shardwise.cache.ttl. */
    private String ttl;

    /** This cache's key prefix. Default: shardwise.cache.key-prefix, the cache name and a colon. */
    private String keyPrefix;

    /** Spring Boot's name for ttl; set one or the other. */
    private String timeToLive;

    public String getTimeToLive() {
      return timeToLive;
    }

    public void setTimeToLive(String timeToLive) {
      this.timeToLive = timeToLive;
    }

    /** Whether this cache caches null values. Default: shardwise.cache.cache-null-values. */
    private String cacheNullValues;

    public String getTtl() {
      return ttl;
    }

    public void setTtl(String ttl) {
      this.ttl = ttl;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public String getCacheNullValues() {
      return cacheNullValues;
    }

    public void setCacheNullValues(String cacheNullValues) {
      this.cacheNullValues = cacheNullValues;
    }
  }
}
