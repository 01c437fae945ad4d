package io.shardwise.spring.boot;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.config.NearCacheSettings;
import io.shardwise.core.config.PlacementSettings;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.core.sources.ServerListUpdater;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.SettingsReader;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.Environment;

/**
 * Moves the starter's client to a refreshed {@code shardwise.servers} or placement without
 * recreating it. Spring Cloud publishes an {@code EnvironmentChangeEvent} after a refresh ({@code
 * /actuator/refresh}, a Config Server or Kubernetes ConfigMap reload); this listener recognises it
 * by its class name, so the starter does not depend on Spring Cloud, and reads the {@code
 * shardwise.*} properties again. A changed server list alone goes to {@link
 * AsyncCacheClient#updateServers} through a {@link ServerListUpdater}; a changed placement key
 * ({@link PlacementSettings#KEYS}: the router and its keys, the hash tag, the bounded-load keys)
 * goes to {@link AsyncCacheClient#updatePlacement} with the router as the properties now describe it
 * (a key removed goes back to its default), the bounded-load keys so described too when one of them
 * changed, and the server list if it changed too. A changed near-cache key that changes live
 * ({@link NearCacheSettings#LIVE_KEYS}: max-bytes, max-entries, max-staleness, hot-threshold,
 * refresh-ahead) goes to {@code updatePlacement} too, every live key as the properties now describe
 * it (a removed one back to its default; max-staleness on memcached, which has none, keeps the
 * bound in force), with the placement when that changed as well. A bad list or placement is
 * logged at WARN on {@code io.shardwise.topology} and the one in force stays. Every other changed
 * {@code shardwise.*} key is read at start-up only, and says so at WARN, once per key and value; so
 * does {@code shardwise.servers} when the servers come from {@code shardwise.servers-file} or
 * {@code shardwise.servers-dns}.
 */
final class ServersRefreshListener implements ApplicationListener<ApplicationEvent> {

  /** Spring Cloud Context's event, published with the keys that a refresh changed. */
  static final String ENVIRONMENT_CHANGE_EVENT =
      "org.springframework.cloud.context.environment.EnvironmentChangeEvent";

  private static final Logger LOG = LoggerFactory.getLogger("io.shardwise.topology");
  private static final String SERVERS = SettingsReader.normalize(ShardwiseConfig.SERVERS);
  private static final Set<String> PLACEMENT = new HashSet<>();
  /** Each router's own key, with its default: the key a removed property goes back to. */
  private static final Map<String, Map.Entry<String, String>> ROUTER_KEYS =
      Map.of(
          "ketama", Map.entry(ShardwiseConfig.KETAMA_COMPATIBILITY, RouterSpec.DEFAULT.ketamaCompatibility()),
          "compat", Map.entry(ShardwiseConfig.COMPAT_MODE, RouterSpec.DEFAULT_COMPAT_MODE.id()),
          "ring", Map.entry(ShardwiseConfig.RING_POINTS, String.valueOf(RouterSpec.DEFAULT.ringPoints())),
          "multiprobe", Map.entry(ShardwiseConfig.MULTIPROBE_PROBES, String.valueOf(RouterSpec.DEFAULT.probes())),
          "maglev", Map.entry(ShardwiseConfig.MAGLEV_TABLE_SIZE, String.valueOf(RouterSpec.DEFAULT.tableSize())));
  /** The bounded-load keys with their defaults: the values removed properties go back to. */
  private static final Map<String, String> BOUNDED_DEFAULTS = boundedDefaults();

  static {
    PlacementSettings.KEYS.stream()
        .filter(k -> !k.equals(ShardwiseConfig.SERVERS))
        .forEach(k -> PLACEMENT.add(SettingsReader.normalize(k)));
  }
  private static final String ORIGIN =
      "property " + ShardwiseConfig.PREFIX + ShardwiseConfig.SERVERS;

  private final Environment environment;
  private final Supplier<AsyncCacheClient<?>> client;
  private final boolean serversFromProperty;
  /** The normalized live near-cache keys, empty without a near cache (then all are start-up only). */
  private final Set<String> nearLive = new HashSet<>();
  /** The default {@code max-staleness} of the client's backend; null for memcached, which has none. */
  private final String defaultStaleness;
  private final Set<String> warned = new HashSet<>();
  private Map<String, Map.Entry<String, String>> seen;
  private ServerListUpdater updater;

  /**
   * @param config the configuration the client was built from
   * @param client the client, looked up at the first refresh
   */
  ServersRefreshListener(
      Environment environment, ShardwiseConfig config, Supplier<AsyncCacheClient<?>> client) {
    this.environment = Objects.requireNonNull(environment, "environment");
    this.client = Objects.requireNonNull(client, "client");
    this.serversFromProperty = config.serversSource().isEmpty();
    if (config.nearCache().enabled()) {
      NearCacheSettings.LIVE_KEYS.forEach(k -> nearLive.add(SettingsReader.normalize(k)));
    }
    this.defaultStaleness =
        "memcached".equals(config.backend()) ? null : SettingsReader.format(NearCacheOptions.DEFAULT_REDIS_STALENESS);
    this.seen = read();
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (ENVIRONMENT_CHANGE_EVENT.equals(event.getClass().getName())) {
      refresh();
    }
  }

  /** Reads the properties again and applies a changed server list or placement. */
  synchronized void refresh() {
    Map<String, Map.Entry<String, String>> now = read();
    Set<String> keys = new HashSet<>(seen.keySet());
    keys.addAll(now.keySet());
    Map<String, Map.Entry<String, String>> before = seen;
    seen = now;
    boolean placementChanged = false;
    boolean boundedChanged = false;
    boolean serversChanged = false;
    boolean nearChanged = false;
    for (String key : keys) {
      Map.Entry<String, String> was = before.get(key);
      Map.Entry<String, String> is = now.get(key);
      String wasValue = was == null ? null : was.getValue();
      String isValue = is == null ? null : is.getValue();
      if (Objects.equals(wasValue, isValue)) {
        continue;
      }
      String written = ShardwiseConfig.PREFIX + (is != null ? is.getKey() : was.getKey());
      if (key.equals(SERVERS) && serversFromProperty) {
        serversChanged = true;
      } else if (PLACEMENT.contains(key)) {
        placementChanged = true;
        boundedChanged |= BOUNDED_DEFAULTS.keySet().stream().anyMatch(k -> SettingsReader.normalize(k).equals(key));
      } else if (nearLive.contains(key)) {
        nearChanged = true;
      } else if (warned.add(key + '\0' + isValue)) {
        String shown =
            isValue == null
                ? "was removed"
                : "changed to '"
                    + (SettingsReader.looksSecret(written) ? SettingsReader.MASK : isValue)
                    + "'";
        LOG.warn(
            "{} {} but is read at start-up only; restart the application to apply it",
            written,
            shown);
      }
    }
    Map.Entry<String, String> servers = now.get(SERVERS);
    Map<String, String> near = nearChanged ? nearCache(now) : Map.of();
    if (placementChanged) {
      applyPlacement(now, serversChanged && servers != null ? servers.getValue() : null, boundedChanged, near);
    } else if (nearChanged) {
      submit(near);
    }
    if (serversChanged && !placementChanged) {
      applyServers(servers == null ? null : servers.getValue());
    }
  }

  /**
   * Hands the placement the properties now describe to the client: the router with its own key (a
   * removed key goes back to its default), the other router keys set, the hash tag and the replicas
   * (back to their defaults when removed), every bounded-load key when one of them changed (a removed one back to its default: a
   * refresh that does not touch them keeps what the client has, set in code or not), and {@code
   * servers} when it changed too.
   */
  private void applyPlacement(
      Map<String, Map.Entry<String, String>> now, String servers, boolean bounded, Map<String, String> near) {
    Map<String, String> settings = new LinkedHashMap<>();
    String router = value(now, ShardwiseConfig.ROUTER, RouterSpec.DEFAULT.type().id());
    settings.put(ShardwiseConfig.PREFIX + ShardwiseConfig.ROUTER, router);
    Map.Entry<String, String> own = ROUTER_KEYS.get(router.strip().toLowerCase(java.util.Locale.ROOT));
    if (own != null) {
      settings.put(ShardwiseConfig.PREFIX + own.getKey(), value(now, own.getKey(), own.getValue()));
    }
    if (bounded) {
      BOUNDED_DEFAULTS.forEach(
          (key, byDefault) -> settings.put(ShardwiseConfig.PREFIX + key, value(now, key, byDefault)));
    }
    for (String key : PlacementSettings.KEYS) {
      Map.Entry<String, String> set = now.get(SettingsReader.normalize(key));
      if (set != null && !key.equals(ShardwiseConfig.SERVERS) && !BOUNDED_DEFAULTS.containsKey(key)) {
        settings.putIfAbsent(ShardwiseConfig.PREFIX + key, set.getValue());
      }
    }
    settings.putIfAbsent(ShardwiseConfig.PREFIX + ShardwiseConfig.HASH_TAG, "none");
    settings.putIfAbsent(ShardwiseConfig.PREFIX + ShardwiseConfig.REPLICAS, "1");
    if (servers != null) {
      settings.put(ShardwiseConfig.PREFIX + ShardwiseConfig.SERVERS, servers);
    }
    settings.putAll(near);
    submit(settings);
  }

  /**
   * The live near-cache keys as the properties now describe them: the bound set (max-entries, or
   * max-bytes, 64MB when removed), max-staleness (Redis's default when removed; with memcached,
   * which has none, the bound in force stays and a warning says so), refresh-ahead (true when
   * removed), and hot-threshold unless admit is all.
   */
  private Map<String, String> nearCache(Map<String, Map.Entry<String, String>> now) {
    Map<String, String> keys = new LinkedHashMap<>(); // relative to shardwise.
    Map.Entry<String, String> entries = now.get(SettingsReader.normalize(NearCacheSettings.MAX_ENTRIES));
    if (entries != null) {
      keys.put(NearCacheSettings.MAX_ENTRIES, entries.getValue());
    } else {
      keys.put(NearCacheSettings.MAX_BYTES, value(now, NearCacheSettings.MAX_BYTES, "64MB"));
    }
    String staleness = value(now, NearCacheSettings.MAX_STALENESS, defaultStaleness);
    if (staleness != null) {
      keys.put(NearCacheSettings.MAX_STALENESS, staleness);
    } else {
      LOG.warn(
          "{}{} was removed, but the near cache on memcached needs one: the bound in force stays",
          ShardwiseConfig.PREFIX,
          NearCacheSettings.MAX_STALENESS);
    }
    keys.put(NearCacheSettings.REFRESH_AHEAD, value(now, NearCacheSettings.REFRESH_AHEAD, "true"));
    if (!"all".equalsIgnoreCase(value(now, NearCacheSettings.ADMIT, "hot").strip())) {
      keys.put(NearCacheSettings.HOT_THRESHOLD, value(now, NearCacheSettings.HOT_THRESHOLD, Integer.toString(BoundedOptions.DEFAULT_HOT_THRESHOLD)));
    }
    Map<String, String> out = new LinkedHashMap<>();
    BootDurations.withMillis(keys).forEach((k, v) -> out.put(ShardwiseConfig.PREFIX + k, v));
    return out;
  }

  /** Hands {@code settings} to {@code updatePlacement}; a refusal is logged, the settings in force stay. */
  private void submit(Map<String, String> settings) {
    client
        .get()
        .updatePlacement(settings)
        .whenComplete(
            (change, failure) -> {
              if (failure != null) {
                LOG.warn(
                    "the refreshed placement {} is not applied, the one in force stays: {}",
                    settings,
                    (failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                            ? failure.getCause()
                            : failure)
                        .getMessage());
              }
            });
  }

  private static Map<String, String> boundedDefaults() {
    BoundedOptions d = BoundedOptions.disabled();
    Map<String, String> out = new LinkedHashMap<>();
    out.put(ShardwiseConfig.BOUNDED_ENABLED, Boolean.toString(d.enabled()));
    out.put(ShardwiseConfig.BOUNDED_EPSILON, Double.toString(d.epsilon()));
    out.put(ShardwiseConfig.BOUNDED_PROBE_LIMIT, Integer.toString(d.probeLimit()));
    out.put(ShardwiseConfig.BOUNDED_SCOPE, d.scope().id());
    out.put(ShardwiseConfig.BOUNDED_WINDOW, SettingsReader.format(d.window()));
    out.put(ShardwiseConfig.BOUNDED_RESOLUTION, SettingsReader.format(d.resolution()));
    out.put(ShardwiseConfig.BOUNDED_SPILL_TTL, SettingsReader.format(d.spillTtl()));
    out.put(ShardwiseConfig.BOUNDED_HOT_THRESHOLD, Integer.toString(d.hotThreshold()));
    return java.util.Collections.unmodifiableMap(out);
  }

  private static String value(Map<String, Map.Entry<String, String>> now, String key, String byDefault) {
    Map.Entry<String, String> set = now.get(SettingsReader.normalize(key));
    return set == null ? byDefault : set.getValue();
  }

  private void applyServers(String text) {
    if (updater == null) {
      updater = new ServerListUpdater(client.get());
    }
    if (text == null) {
      updater.refuse(ORIGIN, "the property was removed; the servers stay as they are");
      return;
    }
    try {
      updater.offer(ORIGIN, ServerList.parse(text));
    } catch (IllegalArgumentException e) {
      updater.refuse(ORIGIN, e.getMessage());
    }
  }

  /** Normalized key to (key as written, value); a key whose placeholder fails is left out. */
  private Map<String, Map.Entry<String, String>> read() {
    Map<String, Map.Entry<String, String>> out = new LinkedHashMap<>();
    ShardwiseSettings.properties(environment, new HashSet<>(), new ArrayList<>())
        .forEach((k, v) -> out.put(SettingsReader.normalize(k), Map.entry(k, v)));
    return out;
  }
}
