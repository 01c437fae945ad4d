package io.shardwise.ketama;

import io.shardwise.routing.Node;
import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * The ketama implementations Shardwise places keys exactly like. All of them hash MD5 and take
 * four little-endian 32-bit points per digest; they differ in the string they hash for a server,
 * in how many digests a server gets, and in who wins when two servers produce the same point.
 *
 * <table>
 *   <caption>What each mode reproduces</caption>
 *   <tr><th>mode</th><th>server string S</th><th>digests per server</th><th>equal points</th></tr>
 *   <tr><td>{@link #LIBKETAMA}</td><td>{@code host:port} as written</td>
 *       <td>{@code floorf(pct * 40.0 * n)}: double product rounded to float</td><td>first in list</td></tr>
 *   <tr><td>{@link #LIBMEMCACHED}</td><td>{@code host}, or {@code host:port} unless the port is 11211</td>
 *       <td>{@code floor((float)(pct * 160 / 4 * n + 1e-10))}, float arithmetic</td><td>first in list</td></tr>
 *   <tr><td>{@link #TWEMPROXY}</td><td>the server's name if given, else as libmemcached</td>
 *       <td>as libmemcached</td><td>first in list</td></tr>
 *   <tr><td>{@link #SPYMEMCACHED}</td><td>{@code InetSocketAddress.toString()} without the leading {@code /}</td>
 *       <td>40, or the libmemcached formula when weights are in use</td><td>last in list</td></tr>
 * </table>
 *
 * <p>Sources: libketama {@code ketama.c} ({@code ketama_create_continuum}), libmemcached 1.x
 * {@code hosts.cc} ({@code update_continuum}, KETAMA_WEIGHTED), twemproxy {@code nc_ketama.c}
 * and {@code nc_conf.c}, spymemcached 2.12 {@code KetamaNodeLocator} and {@code
 * KetamaNodeKeyFormatter}. Checked against key-to-server vectors produced by the real
 * implementations ({@code KetamaVectorsTest}).
 */
public enum KetamaCompatibility {

  /** The original libketama (Last.fm); the default. */
  LIBKETAMA("libketama"),

  /** libmemcached with {@code MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED} (and its MD5 key hash). */
  LIBMEMCACHED("libmemcached"),

  /** twemproxy (nutcracker) with {@code hash: md5} and {@code distribution: ketama}. */
  TWEMPROXY("twemproxy"),

  /**
   * spymemcached's {@code KetamaNodeLocator} with {@code KETAMA_HASH} and the default {@code
   * SPYMEMCACHED} key format. Without weights (every weight 1) it is the plain locator with 40
   * digests per server, as {@code KetamaConnectionFactory} builds it; when any weight differs
   * from 1, or when forced with {@code spymemcached-weighted}, it is the weighted locator.
   */
  SPYMEMCACHED("spymemcached");

  private final String id;

  KetamaCompatibility(String id) {
    this.id = id;
  }

  /** The name used in configuration and on the command line. */
  public String id() {
    return id;
  }

  /**
   * The mode with this {@link #id()}, ignoring case.
   *
   * @throws IllegalArgumentException for an unknown name, listing the known ones
   */
  public static KetamaCompatibility of(String name) {
    String key = name == null ? "" : name.strip().toLowerCase(Locale.ROOT);
    for (KetamaCompatibility mode : values()) {
      if (mode.id.equals(key)) {
        return mode;
      }
    }
    throw new IllegalArgumentException(
        "unknown ketama compatibility mode '"
            + name
            + "'; expected one of libketama, libmemcached, twemproxy, spymemcached");
  }

  /** The string this mode hashes, with {@code "-" + j}, for digest {@code j} of {@code node}. */
  String serverString(Node node) {
    switch (this) {
      case LIBKETAMA:
        return node.address();
      case LIBMEMCACHED:
        return libmemcachedHost(node);
      case TWEMPROXY:
        return node.hasExplicitName() ? node.name() : libmemcachedHost(node);
      case SPYMEMCACHED:
        String s = new InetSocketAddress(node.host(), node.port()).toString();
        return s.startsWith("/") ? s.substring(1) : s;
      default:
        throw new AssertionError(this);
    }
  }

  private static String libmemcachedHost(Node node) {
    return node.port() == 11211 ? node.host() : node.host() + ":" + node.port();
  }

  /**
   * Number of MD5 digests (4 points each) for a server of weight {@code weight} out of {@code
   * totalWeight} among {@code servers} servers, with the float rounding of this mode.
   */
  int digests(int weight, long totalWeight, int servers, boolean spymemcachedWeighted) {
    float pct = (float) weight / (float) totalWeight;
    switch (this) {
      case LIBKETAMA:
        // floorf(pct * 40.0 * (float) n): 40.0 is a double, the product is rounded to float by floorf.
        return (int) Math.floor((float) (pct * 40.0 * (float) servers));
      case SPYMEMCACHED:
        if (!spymemcachedWeighted) {
          return 40;
        }
        return weightedDigests(pct, servers);
      case LIBMEMCACHED:
      case TWEMPROXY:
        return weightedDigests(pct, servers);
      default:
        throw new AssertionError(this);
    }
  }

  /** {@code floor((float) (pct * 160 / 4 * (float) n + 0.0000000001))}, float until the add. */
  private static int weightedDigests(float pct, int servers) {
    float perServer = pct * 160f / 4f * (float) servers;
    return (int) Math.floor((float) (perServer + 0.0000000001));
  }

  Continuum.Ties ties() {
    return this == SPYMEMCACHED ? Continuum.Ties.LAST_IN_LIST : Continuum.Ties.FIRST_IN_LIST;
  }
}
