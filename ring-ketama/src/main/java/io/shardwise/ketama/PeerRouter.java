package io.shardwise.ketama;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * Places keys exactly like a peer client or proxy configured as a {@link PeerMode} names: the
 * peer's key hash, its servers' points or its modulo table, and its rule for equal points.
 *
 * <ul>
 *   <li><b>twemproxy ketama</b> ({@code nc_ketama.c}): the MD5 continuum of {@link
 *       KetamaCompatibility#TWEMPROXY}, keys hashed with the configured hash.
 *   <li><b>twemproxy modula</b> ({@code nc_modula.c}): each server repeated {@code weight} times,
 *       the servers in twemproxy's order (sorted by name, see {@link #peerOrder()}), not the
 *       configuration's; a key goes to entry {@code hash % total weight}.
 *   <li><b>spymemcached {@code ArrayModNodeLocator}</b>: {@code hash % n}; no weights.
 *   <li><b>spymemcached {@code KetamaNodeLocator}</b>: with {@code KETAMA_HASH}, 40 MD5 digests of
 *       four points per server; with another hash, 160 points {@code hash(S + "-" + i)}; with
 *       weights, the weighted MD5 formula whatever the key hash. S is {@code
 *       InetSocketAddress.toString()} without the leading slash ({@code SPYMEMCACHED} format) or
 *       {@code getHostName()} plus {@code ":port"} unless the port is 11211 ({@code LIBMEMCACHED}
 *       format): {@code getHostName()} looks up the reverse name of an IP address, so the string
 *       is whatever the resolver of the building machine answers (spymemcached does the same, once
 *       per node). Equal points: the last server in the list wins.
 *   <li><b>Xmemcached {@code ArrayMemcachedSessionLocator}</b>: as twemproxy modula.
 *   <li><b>Xmemcached {@code KetamaMemcachedSessionLocator}</b>: {@code 160 * weight} points per
 *       server over S = the connected address's {@code toString()} once its host name is known, {@code
 *       name/10.0.0.1:11211}, where for an IP address the name is its reverse lookup (the IP
 *       itself when there is none); equal points go to the servers sorted by S, entry {@code point
 *       % count}.
 *   <li><b>libmemcached modula</b> ({@code hash.cc}): {@code hash % n}; no weights.
 *   <li><b>libmemcached consistent</b> ({@code hosts.cc}, {@code update_continuum}): 100 points per
 *       server, {@code hash(S + "-" + i)} with the key hash, S = {@code host}, or {@code
 *       host:port} unless the port is 11211; no weights. libmemcached builds the points when a
 *       server is added and when the distribution is set, with the key hash of that moment; a key
 *       hash set later ({@code MEMCACHED_BEHAVIOR_HASH}) changes the keys' hash only, so the
 *       points keep the earlier one: {@code consistent:points=<hash>} hashes the points with that
 *       hash. {@code consistent_weighted}: the MD5 continuum of {@link
 *       KetamaCompatibility#LIBMEMCACHED}, keys with the configured hash. Equal points: the first
 *       server in the list.
 *   <li><b>Jedis {@code ShardedJedis}</b>: {@code 160 * weight} points per shard, MurmurHash64A of
 *       {@code "SHARD-" + i + "-NODE-" + n}, or {@code name + "*" + n} for a named shard, ordered as
 *       signed longs; equal points: the last shard wins.
 * </ul>
 *
 * <p>The preference order (failover) walks the continuum clockwise, or for modula takes the next
 * servers of the list; the peers' own failover rules differ and are not reproduced, as for
 * {@link KetamaRouter}. Immutable; {@link #primary(long)} allocates nothing.
 */
public final class PeerRouter implements Router {

  private static final int DEFAULT_PORT = 11211;
  /** Most continuum points a router builds (160 per unit of weight: a total weight of 100,000). */
  private static final int MAX_POINTS = 16_000_000;

  private final List<Node> nodes;
  private final PeerMode mode;
  private final Hasher hasher;
  private final Continuum continuum;
  private final int[] slots;
  private final boolean signed;
  /** Each node's position in the peer's own server order (see {@link #peerOrder()}). */
  private final int[] peerRank;

  private PeerRouter(List<Node> nodes, PeerMode mode) {
    this.nodes = ServerList.validate(nodes);
    this.mode = Objects.requireNonNull(mode, "mode");
    this.hasher = new Hasher(mode);
    this.signed = mode.distribution() == PeerMode.Distribution.SHARDED;
    int n = this.nodes.size();
    Integer[] order = peerOrder();
    this.peerRank = new int[n];
    for (int r = 0; r < n; r++) {
      peerRank[order[r]] = r;
    }
    if (mode.distribution() == PeerMode.Distribution.MODULA) {
      boolean weightsAllowed = mode.peer() != PeerMode.Peer.SPYMEMCACHED && mode.peer() != PeerMode.Peer.LIBMEMCACHED;
      long total = 0;
      for (Node node : this.nodes) {
        if (!weightsAllowed && node.weight() != 1) {
          throw new IllegalArgumentException(
              "compat mode " + mode.id() + " has no weights (the peer's modulo distribution ignores"
                  + " them) but " + node + " has weight " + node.weight());
        }
        total += node.weight();
      }
      if (total > 1 << 20) {
        throw new IllegalArgumentException("compat mode " + mode.id()
            + " repeats each server weight times; the weights add up to " + total + ", more than " + (1 << 20));
      }
      this.slots = new int[(int) total];
      int s = 0;
      for (int i : order) {
        for (int w = 0; w < this.nodes.get(i).weight(); w++) {
          slots[s++] = i;
        }
      }
      this.continuum = null;
    } else {
      this.slots = null;
      this.continuum = buildContinuum();
    }
  }

  /**
   * The order of the servers in the modulo table. twemproxy sorts its servers by name ({@code
   * conf_validate_server}: {@code array_sort} with {@code conf_server_name_cmp}, shorter names
   * first, then {@code strncmp}), where the name is the one given or the ketama server string, and
   * keeps that order: its modula table follows it, not the configuration file. The others keep
   * the list order.
   */
  private Integer[] peerOrder() {
    int n = nodes.size();
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    if (mode.peer() == PeerMode.Peer.TWEMPROXY) {
      byte[][] names = new byte[n][];
      for (int i = 0; i < n; i++) {
        names[i] = serverString(nodes.get(i)).getBytes(StandardCharsets.UTF_8);
      }
      Arrays.sort(order, (x, y) -> names[x].length != names[y].length
          ? Integer.compare(names[x].length, names[y].length)
          : Arrays.compareUnsigned(names[x], names[y]));
      for (int i = 0; i + 1 < n; i++) {
        if (Arrays.equals(names[order[i]], names[order[i + 1]])) {
          throw new IllegalArgumentException("compat mode " + mode.id() + ": twemproxy refuses two servers"
              + " with the same name, but " + nodes.get(order[i]) + " and " + nodes.get(order[i + 1])
              + " are both '" + serverString(nodes.get(order[i])) + "'");
        }
      }
    }
    return order;
  }

  /** The router for {@code nodes} placing keys as {@code mode} does. */
  public static PeerRouter create(List<Node> nodes, PeerMode mode) {
    return new PeerRouter(nodes, mode);
  }

  /** The router for {@code nodes} and the mode named {@code mode} ({@link PeerMode#of}). */
  public static PeerRouter create(List<Node> nodes, String mode) {
    return new PeerRouter(nodes, PeerMode.of(mode));
  }

  public PeerMode mode() {
    return mode;
  }

  private Continuum buildContinuum() {
    int n = nodes.size();
    long totalWeight = 0;
    boolean anyWeight = false;
    for (Node node : nodes) {
      totalWeight += node.weight();
      anyWeight |= node.weight() != 1;
    }
    long[] positions = new long[1024];
    int[] owners = new int[1024];
    int count = 0;
    int[] words = new int[4];
    Md5 md5 = new Md5();
    String[] strings = new String[n];
    for (int i = 0; i < n; i++) {
      Node node = nodes.get(i);
      String s = serverString(node);
      strings[i] = s;
      int weight = node.weight();
      int digests;
      int hashedPoints = 0;
      switch (mode.peer()) {
        case TWEMPROXY:
          digests = KetamaCompatibility.TWEMPROXY.digests(weight, totalWeight, n, false);
          break;
        case SPYMEMCACHED:
          if (anyWeight) {
            digests = KetamaCompatibility.SPYMEMCACHED.digests(weight, totalWeight, n, true);
          } else if (mode.distribution() == PeerMode.Distribution.MD5_CONTINUUM) {
            digests = 40;
          } else {
            digests = 0;
            hashedPoints = 160;
          }
          break;
        case XMEMCACHED:
          if (mode.distribution() == PeerMode.Distribution.MD5_CONTINUUM) {
            digests = 160 * weight / 4;
          } else {
            digests = 0;
            hashedPoints = 160 * weight;
          }
          break;
        case JEDIS:
          digests = 0;
          hashedPoints = 160 * weight;
          break;
        case LIBMEMCACHED:
          if (mode.distribution() == PeerMode.Distribution.MD5_CONTINUUM) {
            digests = KetamaCompatibility.LIBMEMCACHED.digests(weight, totalWeight, n, true);
          } else {
            if (weight != 1) {
              throw new IllegalArgumentException("compat mode " + mode.id() + " has no weights (libmemcached"
                  + " weighs servers only with consistent_weighted) but " + node + " has weight " + weight);
            }
            digests = 0;
            hashedPoints = 100; // MEMCACHED_POINTS_PER_SERVER
          }
          break;
        default:
          throw new AssertionError(mode);
      }
      long need = (long) count + 4L * digests + hashedPoints;
      if (need > MAX_POINTS) {
        throw new IllegalArgumentException("compat mode " + mode.id() + " gives a server points in"
            + " proportion to its weight; these weights need " + need + " points, more than " + MAX_POINTS);
      }
      if (need > positions.length) {
        int size = (int) Math.min(MAX_POINTS, Math.max(need, positions.length * 2L));
        positions = Arrays.copyOf(positions, size);
        owners = Arrays.copyOf(owners, size);
      }
      for (int j = 0; j < digests; j++) {
        byte[] b = (s + "-" + j).getBytes(StandardCharsets.UTF_8);
        md5.digest(b, 0, b.length, words);
        for (int h = 0; h < 4; h++) {
          positions[count] = words[h] & 0xFFFFFFFFL;
          owners[count++] = i;
        }
      }
      for (int j = 0; j < hashedPoints; j++) {
        String point;
        if (mode.peer() == PeerMode.Peer.JEDIS) {
          point = node.hasExplicitName() ? node.name() + "*" + j : "SHARD-" + i + "-NODE-" + j;
        } else {
          point = s + "-" + j;
        }
        positions[count] = mode.pointHash().hash(point);
        owners[count++] = i;
      }
    }
    // Order every point as the peer does (unsigned 32-bit in the high half, or signed 64-bit
    // flipped to unsigned), settle equal points by the peer's rule, then build the continuum.
    long[] keys = new long[count];
    for (int p = 0; p < count; p++) {
      keys[p] = continuumPosition(positions[p]);
    }
    Integer[] order = new Integer[count];
    for (int p = 0; p < count; p++) {
      order[p] = p;
    }
    final long[] k = keys;
    Arrays.sort(order, (x, y) -> {
      int c = Long.compareUnsigned(k[x], k[y]);
      return c != 0 ? c : Integer.compare(x, y);
    });
    long[] unique = new long[count];
    int[] uniqueOwners = new int[count];
    int u = 0;
    for (int a = 0; a < count; ) {
      int b = a;
      while (b < count && k[order[b]] == k[order[a]]) {
        b++;
      }
      unique[u] = k[order[a]];
      uniqueOwners[u] = tieWinner(order, a, b, owners, strings, positions[order[a]]);
      u++;
      a = b;
    }
    return new Continuum(unique, uniqueOwners, u, n, Continuum.Ties.FIRST_IN_LIST);
  }

  /** The owner of the points {@code order[a, b)}, which are equal, as the peer decides. */
  private int tieWinner(Integer[] order, int a, int b, int[] owners, String[] strings, long rawPoint) {
    if (b - a == 1) {
      return owners[order[a]];
    }
    switch (mode.peer()) {
      case TWEMPROXY:
      case LIBMEMCACHED: {
        // glibc's qsort (a merge sort) keeps equal points in the order they were added and the
        // binary search takes the first of them: the first server in the peer's own order, which
        // for twemproxy is its name order (peerOrder), for libmemcached the list.
        int best = -1;
        for (int p = a; p < b; p++) {
          int owner = owners[order[p]];
          if (best < 0 || peerRank[owner] < peerRank[best]) {
            best = owner;
          }
        }
        return best;
      }
      case SPYMEMCACHED:
      case JEDIS: {
        // TreeMap.put: the point's last writer, the last server in the list.
        int best = -1;
        for (int p = a; p < b; p++) {
          best = Math.max(best, owners[order[p]]);
        }
        return best;
      }
      case XMEMCACHED: {
        // KetamaMemcachedSessionLocator: every session that produced the point, one entry per
        // point, sorted by socket string; the entry point % count serves the key.
        Integer[] entries = new Integer[b - a];
        for (int p = a; p < b; p++) {
          entries[p - a] = owners[order[p]];
        }
        Arrays.sort(entries, (x, y) -> strings[x].compareTo(strings[y]));
        return entries[(int) (rawPoint % entries.length)];
      }
      default:
        throw new AssertionError(mode);
    }
  }

  private long continuumPosition(long peerValue) {
    return signed ? peerValue ^ Long.MIN_VALUE : peerValue << 32;
  }

  /** The string the peer hashes, with {@code "-" + j}, for the points of {@code node}. */
  String serverString(Node node) {
    switch (mode.peer()) {
      case TWEMPROXY:
        return KetamaCompatibility.TWEMPROXY.serverString(node);
      case LIBMEMCACHED:
        return KetamaCompatibility.LIBMEMCACHED.serverString(node);
      case SPYMEMCACHED:
        if (mode.libmemcachedFormat()) {
          // KetamaNodeKeyFormatter LIBMEMCACHED: getHostName() (a reverse lookup for an address).
          String host = new InetSocketAddress(node.host(), node.port()).getHostName();
          return node.port() == DEFAULT_PORT ? host : host + ":" + node.port();
        }
        return KetamaCompatibility.SPYMEMCACHED.serverString(node);
      case XMEMCACHED:
        // MemcachedConnector keeps String.valueOf(session.getRemoteSocketAddress()), an address
        // whose host name has been looked up by then: "name/ip:port", where name is the reverse
        // name of an IP address (observed with 2.4.8 on 127.0.0.1: "localhost/127.0.0.1:port").
        InetSocketAddress address = new InetSocketAddress(node.host(), node.port());
        address.getHostName();
        return String.valueOf(address);
      case JEDIS:
        return node.hasExplicitName() ? node.name() : node.address();
      default:
        throw new AssertionError(mode);
    }
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public int size() {
    return nodes.size();
  }

  @Override
  public KeyHasher hasher() {
    return hasher;
  }

  /** {@code keyHash} is the value of the mode's {@link PeerHash}. */
  @Override
  public int primary(long keyHash) {
    if (slots != null) {
      return slots[(int) Long.remainderUnsigned(keyHash, slots.length)];
    }
    return continuum.ownerOf(continuumPosition(keyHash));
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    if (slots != null) {
      return nextInList(keyHash, out, Math.min(out.length, nodes.size()));
    }
    return continuum.preferenceOrder(continuumPosition(keyHash), out);
  }

  /**
   * The first {@code n} servers of the order: for a continuum the distinct servers met clockwise
   * from the key, for modula the primary and the servers after it in the list. Allocation free.
   */
  @Override
  public int replicas(long keyHash, int n, int[] out) {
    if (slots != null) {
      return nextInList(keyHash, out, Router.replicaCount(n, nodes.size(), out.length));
    }
    return continuum.replicas(continuumPosition(keyHash), n, out);
  }

  /** The modula order's first {@code k} nodes: the primary, then the next ones of the list. */
  private int nextInList(long keyHash, int[] out, int k) {
    int n = nodes.size();
    int node = primary(keyHash);
    for (int a = 0; a < k; a++) {
      out[a] = node;
      node = node + 1 == n ? 0 : node + 1;
    }
    return k;
  }

  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    if (slots != null) {
      int n = nodes.size();
      Objects.checkFromIndexSize(0, n, walked.length);
      int node = primary(keyHash);
      for (int a = 0; a < n; a++) {
        walked[a] = node;
        if (available.test(node)) {
          return a;
        }
        node = node + 1 == n ? 0 : node + 1;
      }
      return n;
    }
    return continuum.walkToAvailable(continuumPosition(keyHash), available, walked);
  }

  @Override
  public String describe() {
    return "compat(" + mode.id() + ")";
  }

  @Override
  public String toString() {
    return describe() + nodes;
  }

  /** The mode's key hash as a {@link KeyHasher}. */
  private static final class Hasher implements KeyHasher {
    private final PeerHash hash;
    private final String name;

    Hasher(PeerMode mode) {
      this.hash = mode.hash();
      this.name = "peer-" + mode.hash().name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String name() {
      return name;
    }

    @Override
    public long hash(byte[] key, int offset, int length) {
      return hash.hash(key, offset, length);
    }

    @Override
    public long hash(String key, int start, int end) {
      return hash.hash(key, start, end);
    }

    @Override
    public String toString() {
      return name;
    }
  }
}
