package io.shardwise.core.config;

import static io.shardwise.core.config.ConfigKeys.*;
import static io.shardwise.core.config.ShardwiseConfig.*;

import io.shardwise.core.BoundedOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.ketama.PeerMode;
import io.shardwise.routers.MaglevRouter;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.spi.InvalidSettingsException;
import io.shardwise.spi.SettingsReader;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A client's placement as the configuration keys describe it: the router with its mode and
 * parameters, the hash tag, the server list and the replicas, and the bounded-load options, which
 * place spilled reads (not keys). The loader reads these keys here, and
 * a change of placement made while the client serves ({@code AsyncCacheClient.updatePlacement})
 * reads its keys here too, with the same checks and messages; the keys it does not name keep their
 * values. Immutable.
 */
public final class PlacementSettings {

  /** The keys a change of placement may name, relative to {@code shardwise.}. */
  public static final List<String> KEYS =
      List.of(
          ROUTER,
          KETAMA_COMPATIBILITY,
          COMPAT_MODE,
          RING_POINTS,
          MULTIPROBE_PROBES,
          MAGLEV_TABLE_SIZE,
          HASH_TAG,
          SERVERS,
          REPLICAS,
          BOUNDED_ENABLED,
          BOUNDED_EPSILON,
          BOUNDED_PROBE_LIMIT,
          BOUNDED_SCOPE,
          BOUNDED_WINDOW,
          BOUNDED_RESOLUTION,
          BOUNDED_SPILL_TTL,
          BOUNDED_HOT_THRESHOLD);

  /** Null for a router the application's own function builds. */
  private final RouterSpec router;
  private final HashTag hashTag;
  private final List<Node> servers;
  private final int replicas;
  private final BoundedOptions bounded;

  private PlacementSettings(
      RouterSpec router, HashTag hashTag, List<Node> servers, int replicas, BoundedOptions bounded) {
    this.router = router;
    this.hashTag = Objects.requireNonNull(hashTag, "hashTag");
    this.servers = List.copyOf(servers);
    this.replicas = replicas;
    this.bounded = Objects.requireNonNull(bounded, "bounded");
  }

  /**
   * The placement in force: {@code router} is null for a router built by the application's
   * function, which a change keeps unless it names {@code shardwise.router}.
   */
  public static PlacementSettings of(
      RouterSpec router, HashTag hashTag, List<Node> servers, int replicas, BoundedOptions bounded) {
    return new PlacementSettings(router, hashTag, servers, replicas, bounded);
  }

  /**
   * This placement with the keys of {@code settings} (full key to value, {@code shardwise.router ->
   * maglev}) changed and the others kept, checked as the loader checks them, the router built for
   * the server list.
   *
   * @throws InvalidSettingsException naming each bad key and its rule, and a key that is not a
   *     placement key
   */
  public PlacementSettings with(Map<String, String> settings) {
    Objects.requireNonNull(settings, "settings");
    Map<String, String> relative = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : settings.entrySet()) {
      String key = String.valueOf(e.getKey());
      if (!key.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
        throw new InvalidSettingsException(
            List.of(key + ": is not a placement key; expected " + PREFIX + String.join(", " + PREFIX, KEYS)));
      }
      relative.put(key.substring(PREFIX.length()), e.getValue());
    }
    SettingsReader r = SettingsReader.of(PREFIX, relative);
    List<Node> list = r.isSet(SERVERS) ? ServerSource.serverList(r) : servers;
    RouterSpec spec = router;
    if (router != null || r.isSet(ROUTER)) {
      spec = readRouter(r, router != null ? router : RouterSpec.DEFAULT, list);
    } else {
      for (String key : KEYS.subList(1, 6)) {
        if (r.isSet(key)) {
          r.problem(key, "needs " + PREFIX + ROUTER + " too: this client's router is built by the application");
        }
      }
    }
    HashTag tag = readHashTag(r, hashTag);
    int n = REPLICAS_KEY.integer(r, replicas);
    if (list != null && n > list.size()) {
      r.problem(REPLICAS, "must be at most the number of servers (" + list.size() + ") but was " + n);
    }
    boolean boundedNamed = KEYS.subList(9, KEYS.size()).stream().anyMatch(r::isSet);
    BoundedOptions nextBounded = boundedNamed ? new BoundedSettings(r, bounded).options() : bounded;
    for (String key : r.unreadKeys()) {
      if (isKnown(key)) {
        r.problem(key, "is not a placement key; expected " + PREFIX + String.join(", " + PREFIX, KEYS));
        r.ignore(key);
      }
    }
    r.finish();
    return new PlacementSettings(spec, tag, list == null ? servers : list, n, nextBounded);
  }

  private static boolean isKnown(String key) {
    String normalized = SettingsReader.normalize(key);
    return ConfigKeys.ALL.stream().anyMatch(k -> k.name().equals(normalized));
  }

  /**
   * The router of {@code shardwise.router} and its keys, the ones not set taken from {@code
   * defaults}; problems go to the reader. With {@code servers}, the router is built for them (weights
   * on a router without weights, a Maglev table too small, ...).
   */
  static RouterSpec readRouter(SettingsReader r, RouterSpec defaults, List<Node> servers) {
    String type = ROUTER_KEY.choice(r, defaults.type().id());
    String compatibility = KETAMA_COMPATIBILITY_KEY.choice(r, defaults.ketamaCompatibility());
    int points = RING_POINTS_KEY.integer(r, defaults.ringPoints());
    int probes = MULTIPROBE_PROBES_KEY.integer(r, defaults.probes());
    int tableSize = MAGLEV_TABLE_SIZE_KEY.integer(r, defaults.tableSize());
    if (r.isSet(MAGLEV_TABLE_SIZE) && tableSize != MaglevRouter.DEFAULT_TABLE_SIZE && !isPrime(tableSize)) {
      r.problem(MAGLEV_TABLE_SIZE, "must be a prime but was " + tableSize);
      tableSize = defaults.tableSize();
    }
    onlyFor(r, KETAMA_COMPATIBILITY, "ketama", type);
    onlyFor(r, COMPAT_MODE, "compat", type);
    PeerMode compatMode = defaults.compatMode();
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
    RouterSpec spec =
        RouterSpec.of(type)
            .withKetamaCompatibility(compatibility)
            .withRingPoints(points)
            .withProbes(probes)
            .withTableSize(tableSize)
            .withCompatMode(compatMode.id());
    if (servers != null) {
      try {
        spec.build(servers); // weights on a router without weights, a table too small, ...
      } catch (IllegalArgumentException e) {
        r.problem(ROUTER, type + " cannot route these servers: " + e.getMessage());
      }
    }
    return spec;
  }

  private static void onlyFor(SettingsReader r, String key, String routerType, String chosen) {
    if (r.isSet(key) && !routerType.equals(chosen)) {
      r.problem(key, "applies to router " + routerType + " only, but " + PREFIX + ROUTER + " is " + chosen);
    }
  }

  /** The hash tag of {@code shardwise.hash-tag}, or {@code defaults} when it is not set. */
  static HashTag readHashTag(SettingsReader r, HashTag defaults) {
    Optional<String> value = r.text(HASH_TAG);
    if (value.isEmpty()) {
      return defaults;
    }
    if (value.get().equalsIgnoreCase("none")) {
      return HashTag.NONE;
    }
    try {
      return HashTag.of(value.get());
    } catch (IllegalArgumentException e) {
      r.problem(
          HASH_TAG,
          "'" + value.get() + "' is not allowed; expected two distinct printable ASCII characters such as {}, or none");
      return defaults;
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

  /** The router's spec, or null for a router the application's function builds. */
  public RouterSpec router() {
    return router;
  }

  public HashTag hashTag() {
    return hashTag;
  }

  public List<Node> servers() {
    return servers;
  }

  public int replicas() {
    return replicas;
  }

  /** The bounded-load options ({@code shardwise.bounded.*}). */
  public BoundedOptions bounded() {
    return bounded;
  }

  /** The router as the client names it: {@code ketama(libketama)}, or {@code custom}. */
  public String describeRouter() {
    return router == null ? "custom" : router.toString();
  }
}
