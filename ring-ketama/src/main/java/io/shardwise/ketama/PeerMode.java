package io.shardwise.ketama;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A peer client's or proxy's key placement, named with the peer's own words: which peer, which
 * distribution (locator), which key hash and, for spymemcached's consistent locator, which node
 * key format. Written as one string, the value of {@code shardwise.compat.mode}:
 *
 * <table>
 *   <caption>Modes</caption>
 *   <tr><th>mode</th><th>the peer configured with</th></tr>
 *   <tr><td>{@code twemproxy:<hash>:ketama}</td><td>{@code hash: <hash>}, {@code distribution: ketama}</td></tr>
 *   <tr><td>{@code twemproxy:<hash>:modula}</td><td>{@code hash: <hash>}, {@code distribution: modula}</td></tr>
 *   <tr><td>{@code spymemcached:array_mod:<alg>}</td><td>{@code Locator.ARRAY_MOD} (the default) with
 *       {@code DefaultHashAlgorithm.<ALG>}</td></tr>
 *   <tr><td>{@code spymemcached:consistent:<alg>:<format>}</td><td>{@code Locator.CONSISTENT}
 *       ({@code KetamaNodeLocator}) with {@code <ALG>} and {@code KetamaNodeKeyFormatter.Format.<FORMAT>}</td></tr>
 *   <tr><td>{@code xmemcached:array:<alg>}</td><td>{@code ArrayMemcachedSessionLocator} (the default) with
 *       {@code HashAlgorithm.<ALG>}</td></tr>
 *   <tr><td>{@code xmemcached:ketama:<alg>}</td><td>{@code KetamaMemcachedSessionLocator} with {@code <ALG>}</td></tr>
 *   <tr><td>{@code libmemcached:<hash>:modula}</td><td>{@code MEMCACHED_DISTRIBUTION_MODULA} (the
 *       default) with {@code MEMCACHED_BEHAVIOR_HASH} {@code <hash>}</td></tr>
 *   <tr><td>{@code libmemcached:<hash>:consistent}</td><td>{@code MEMCACHED_DISTRIBUTION_CONSISTENT}
 *       (or {@code _KETAMA}) without {@code KETAMA_WEIGHTED}, {@code MEMCACHED_BEHAVIOR_HASH} {@code
 *       <hash>} set before the continuum was last built</td></tr>
 *   <tr><td>{@code libmemcached:<hash>:consistent:points=<hash2>}</td><td>the same, but {@code
 *       MEMCACHED_BEHAVIOR_HASH} set to {@code <hash>} after the continuum was last built (servers
 *       added, distribution set) with {@code <hash2>}: libmemcached keeps the points of {@code
 *       <hash2>} and hashes keys with {@code <hash>}</td></tr>
 *   <tr><td>{@code libmemcached:<hash>:consistent_weighted}</td><td>{@code
 *       MEMCACHED_DISTRIBUTION_CONSISTENT_WEIGHTED}, or a consistent distribution with {@code
 *       MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED}</td></tr>
 *   <tr><td>{@code jedis:sharded:murmur_hash}</td><td>Jedis 2.x-3.x {@code ShardedJedis} (default {@code
 *       Hashing.MURMUR_HASH}, no key tag pattern)</td></tr>
 * </table>
 *
 * <p>twemproxy hashes: {@code one_at_a_time md5 crc16 crc32 crc32a fnv1_64 fnv1a_64 fnv1_32
 * fnv1a_32 hsieh murmur jenkins}. libmemcached hashes: {@code default md5 crc fnv1_64 fnv1a_64
 * fnv1_32 fnv1a_32 murmur jenkins murmur3}. spymemcached algorithms: {@code native_hash crc_hash
 * fnv1_64_hash fnv1a_64_hash fnv1_32_hash fnv1a_32_hash ketama_hash}; Xmemcached the same with
 * {@code crc32_hash} for {@code crc_hash}. Formats: {@code spymemcached}, {@code libmemcached}.
 * Names are case-insensitive; {@link #id()} is lower case.
 */
public final class PeerMode {

  /** The peers. */
  public enum Peer {
    TWEMPROXY,
    SPYMEMCACHED,
    XMEMCACHED,
    JEDIS,
    LIBMEMCACHED
  }

  /** How a mode places keys. */
  enum Distribution {
    /** Continuum of MD5 digests, four points each (twemproxy ketama, spymemcached/Xmemcached KETAMA_HASH). */
    MD5_CONTINUUM,
    /** Continuum of points hashed one each with the key hash (spymemcached/Xmemcached with another hash). */
    HASHED_CONTINUUM,
    /** Key hash modulo the weight-repeated server list. */
    MODULA,
    /** Jedis ShardedJedis: MurmurHash64A points, signed order. */
    SHARDED
  }

  /** The fourth part of a libmemcached mode whose continuum has another hash than its keys. */
  private static final String POINTS = "points=";

  private static final Map<String, PeerHash> TWEMPROXY_HASHES = new LinkedHashMap<>();
  private static final Map<String, PeerHash> SPYMEMCACHED_HASHES = new LinkedHashMap<>();
  private static final Map<String, PeerHash> XMEMCACHED_HASHES = new LinkedHashMap<>();
  private static final Map<String, PeerHash> LIBMEMCACHED_HASHES = new LinkedHashMap<>();

  static {
    // twemproxy src/hashkit/nc_hashkit.h, the names its configuration takes (nc_conf.c)
    TWEMPROXY_HASHES.put("one_at_a_time", PeerHash.ONE_AT_A_TIME);
    TWEMPROXY_HASHES.put("md5", PeerHash.MD5);
    TWEMPROXY_HASHES.put("crc16", PeerHash.CRC16);
    TWEMPROXY_HASHES.put("crc32", PeerHash.CRC32_15);
    TWEMPROXY_HASHES.put("crc32a", PeerHash.CRC32A);
    TWEMPROXY_HASHES.put("fnv1_64", PeerHash.FNV1_64);
    TWEMPROXY_HASHES.put("fnv1a_64", PeerHash.FNV1A_64_TWEMPROXY);
    TWEMPROXY_HASHES.put("fnv1_32", PeerHash.FNV1_32);
    TWEMPROXY_HASHES.put("fnv1a_32", PeerHash.FNV1A_32);
    TWEMPROXY_HASHES.put("hsieh", PeerHash.HSIEH);
    TWEMPROXY_HASHES.put("murmur", PeerHash.MURMUR);
    TWEMPROXY_HASHES.put("jenkins", PeerHash.JENKINS);
    // libmemcached memcached_hash_t (memcp --hash): hsieh is left out, as Debian's build (1.1.4)
    // refuses it and it could not be checked.
    LIBMEMCACHED_HASHES.put("default", PeerHash.ONE_AT_A_TIME);
    LIBMEMCACHED_HASHES.put("md5", PeerHash.MD5);
    LIBMEMCACHED_HASHES.put("crc", PeerHash.CRC32_15);
    LIBMEMCACHED_HASHES.put("fnv1_64", PeerHash.FNV1_64);
    LIBMEMCACHED_HASHES.put("fnv1a_64", PeerHash.FNV1A_64_TWEMPROXY);
    LIBMEMCACHED_HASHES.put("fnv1_32", PeerHash.FNV1_32);
    LIBMEMCACHED_HASHES.put("fnv1a_32", PeerHash.FNV1A_32);
    LIBMEMCACHED_HASHES.put("murmur", PeerHash.MURMUR);
    LIBMEMCACHED_HASHES.put("jenkins", PeerHash.JENKINS);
    LIBMEMCACHED_HASHES.put("murmur3", PeerHash.MURMUR3);
    // spymemcached DefaultHashAlgorithm
    SPYMEMCACHED_HASHES.put("native_hash", PeerHash.JAVA_NATIVE);
    SPYMEMCACHED_HASHES.put("crc_hash", PeerHash.CRC32_15);
    SPYMEMCACHED_HASHES.put("fnv1_64_hash", PeerHash.JAVA_FNV1_64);
    SPYMEMCACHED_HASHES.put("fnv1a_64_hash", PeerHash.JAVA_FNV1A_64);
    SPYMEMCACHED_HASHES.put("fnv1_32_hash", PeerHash.JAVA_FNV1_32);
    SPYMEMCACHED_HASHES.put("fnv1a_32_hash", PeerHash.JAVA_FNV1A_32);
    SPYMEMCACHED_HASHES.put("ketama_hash", PeerHash.MD5);
    // Xmemcached HashAlgorithm (the ones it shares with spymemcached)
    XMEMCACHED_HASHES.put("native_hash", PeerHash.JAVA_NATIVE);
    XMEMCACHED_HASHES.put("crc32_hash", PeerHash.CRC32_15);
    XMEMCACHED_HASHES.put("fnv1_64_hash", PeerHash.JAVA_FNV1_64);
    XMEMCACHED_HASHES.put("fnv1a_64_hash", PeerHash.JAVA_FNV1A_64);
    XMEMCACHED_HASHES.put("fnv1_32_hash", PeerHash.JAVA_FNV1_32);
    XMEMCACHED_HASHES.put("fnv1a_32_hash", PeerHash.JAVA_FNV1A_32);
    XMEMCACHED_HASHES.put("ketama_hash", PeerHash.MD5);
  }

  private final String id;
  private final Peer peer;
  private final Distribution distribution;
  private final PeerHash hash;
  private final PeerHash pointHash;
  private final boolean libmemcachedFormat;

  private PeerMode(String id, Peer peer, Distribution distribution, PeerHash hash, boolean libmemcachedFormat) {
    this(id, peer, distribution, hash, hash, libmemcachedFormat);
  }

  private PeerMode(String id, Peer peer, Distribution distribution, PeerHash hash, PeerHash pointHash,
      boolean libmemcachedFormat) {
    this.id = id;
    this.peer = peer;
    this.distribution = distribution;
    this.hash = hash;
    this.pointHash = pointHash;
    this.libmemcachedFormat = libmemcachedFormat;
  }

  /**
   * The mode named {@code text}, ignoring case and surrounding blanks.
   *
   * @throws IllegalArgumentException naming the value and the accepted forms
   */
  public static PeerMode of(String text) {
    String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    String[] p = t.split(":", -1);
    switch (p[0]) {
      case "twemproxy":
        if (p.length == 3 && TWEMPROXY_HASHES.containsKey(p[1])) {
          if (p[2].equals("ketama")) {
            return new PeerMode(t, Peer.TWEMPROXY, Distribution.MD5_CONTINUUM, TWEMPROXY_HASHES.get(p[1]), false);
          }
          if (p[2].equals("modula")) {
            return new PeerMode(t, Peer.TWEMPROXY, Distribution.MODULA, TWEMPROXY_HASHES.get(p[1]), false);
          }
        }
        throw bad(text, "twemproxy:<hash>:<ketama|modula> with <hash> one of " + String.join(", ", TWEMPROXY_HASHES.keySet()));
      case "spymemcached":
        if (p.length == 3 && p[1].equals("array_mod") && SPYMEMCACHED_HASHES.containsKey(p[2])) {
          return new PeerMode(t, Peer.SPYMEMCACHED, Distribution.MODULA, SPYMEMCACHED_HASHES.get(p[2]), false);
        }
        if (p.length == 4 && p[1].equals("consistent") && SPYMEMCACHED_HASHES.containsKey(p[2])
            && (p[3].equals("spymemcached") || p[3].equals("libmemcached"))) {
          PeerHash h = SPYMEMCACHED_HASHES.get(p[2]);
          return new PeerMode(t, Peer.SPYMEMCACHED,
              h == PeerHash.MD5 ? Distribution.MD5_CONTINUUM : Distribution.HASHED_CONTINUUM, h,
              p[3].equals("libmemcached"));
        }
        throw bad(text, "spymemcached:array_mod:<alg> or spymemcached:consistent:<alg>:<spymemcached|libmemcached>"
            + " with <alg> one of " + String.join(", ", SPYMEMCACHED_HASHES.keySet()));
      case "xmemcached":
        if (p.length == 3 && XMEMCACHED_HASHES.containsKey(p[2])) {
          PeerHash h = XMEMCACHED_HASHES.get(p[2]);
          if (p[1].equals("array")) {
            return new PeerMode(t, Peer.XMEMCACHED, Distribution.MODULA, h, false);
          }
          if (p[1].equals("ketama")) {
            return new PeerMode(t, Peer.XMEMCACHED,
                h == PeerHash.MD5 ? Distribution.MD5_CONTINUUM : Distribution.HASHED_CONTINUUM, h, false);
          }
        }
        throw bad(text, "xmemcached:<array|ketama>:<alg> with <alg> one of " + String.join(", ", XMEMCACHED_HASHES.keySet()));
      case "libmemcached":
        if (p.length == 3 && LIBMEMCACHED_HASHES.containsKey(p[1])) {
          PeerHash h = LIBMEMCACHED_HASHES.get(p[1]);
          switch (p[2]) {
            case "modula":
              return new PeerMode(t, Peer.LIBMEMCACHED, Distribution.MODULA, h, false);
            case "consistent":
              return new PeerMode(t, Peer.LIBMEMCACHED, Distribution.HASHED_CONTINUUM, h, false);
            case "consistent_weighted":
              return new PeerMode(t, Peer.LIBMEMCACHED, Distribution.MD5_CONTINUUM, h, false);
            default:
              break;
          }
        }
        if (p.length == 4 && LIBMEMCACHED_HASHES.containsKey(p[1]) && p[2].equals("consistent")
            && p[3].startsWith(POINTS) && LIBMEMCACHED_HASHES.containsKey(p[3].substring(POINTS.length()))) {
          String points = p[3].substring(POINTS.length());
          if (points.equals(p[1])) {
            return of(p[0] + ":" + p[1] + ":" + p[2]); // one hash for both: the plain consistent mode
          }
          return new PeerMode(t, Peer.LIBMEMCACHED, Distribution.HASHED_CONTINUUM, LIBMEMCACHED_HASHES.get(p[1]),
              LIBMEMCACHED_HASHES.get(points), false);
        }
        throw bad(text, "libmemcached:<hash>:<modula|consistent|consistent_weighted> or"
            + " libmemcached:<hash>:consistent:points=<hash> with <hash> one of "
            + String.join(", ", LIBMEMCACHED_HASHES.keySet()));
      case "jedis":
        if (t.equals("jedis:sharded:murmur_hash")) {
          return new PeerMode(t, Peer.JEDIS, Distribution.SHARDED, PeerHash.MURMUR64A, false);
        }
        throw bad(text, "jedis:sharded:murmur_hash");
      default:
        throw bad(text, "a mode starting with twemproxy:, libmemcached:, spymemcached:, xmemcached: or jedis:");
    }
  }

  private static IllegalArgumentException bad(String text, String expected) {
    return new IllegalArgumentException("unknown compat mode '" + text + "'; expected " + expected);
  }

  /** Every mode, for memcached ({@code redis == false}) or Redis fleets, in a stable order. */
  public static List<PeerMode> all(boolean redis) {
    List<PeerMode> modes = new ArrayList<>();
    for (String h : TWEMPROXY_HASHES.keySet()) {
      modes.add(of("twemproxy:" + h + ":ketama"));
      modes.add(of("twemproxy:" + h + ":modula"));
    }
    if (redis) {
      modes.add(of("jedis:sharded:murmur_hash"));
      return Collections.unmodifiableList(modes);
    }
    for (String h : LIBMEMCACHED_HASHES.keySet()) {
      modes.add(of("libmemcached:" + h + ":modula"));
      modes.add(of("libmemcached:" + h + ":consistent"));
      modes.add(of("libmemcached:" + h + ":consistent_weighted"));
      for (String points : LIBMEMCACHED_HASHES.keySet()) {
        if (!points.equals(h)) {
          modes.add(of("libmemcached:" + h + ":consistent:" + POINTS + points));
        }
      }
    }
    for (String h : SPYMEMCACHED_HASHES.keySet()) {
      modes.add(of("spymemcached:array_mod:" + h));
      modes.add(of("spymemcached:consistent:" + h + ":spymemcached"));
      modes.add(of("spymemcached:consistent:" + h + ":libmemcached"));
    }
    for (String h : XMEMCACHED_HASHES.keySet()) {
      modes.add(of("xmemcached:array:" + h));
      modes.add(of("xmemcached:ketama:" + h));
    }
    return Collections.unmodifiableList(modes);
  }

  /** The canonical name, lower case, as {@link #of} reads it. */
  public String id() {
    return id;
  }

  public Peer peer() {
    return peer;
  }

  Distribution distribution() {
    return distribution;
  }

  /** The key hash of this mode. */
  public PeerHash hash() {
    return hash;
  }

  /**
   * The hash of the continuum's points where each point is hashed on its own ({@code
   * HASHED_CONTINUUM}): the key hash, except for {@code libmemcached:<hash>:consistent:points=<hash2>}.
   */
  PeerHash pointHash() {
    return pointHash;
  }

  boolean libmemcachedFormat() {
    return libmemcachedFormat;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PeerMode && ((PeerMode) o).id.equals(id);
  }

  @Override
  public int hashCode() {
    return Objects.hashCode(id);
  }

  @Override
  public String toString() {
    return id;
  }
}
