package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Murmur3;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Router#replicas} of the rings, every ketama mode and every compat mode: the first N
 * nodes of the preference order, and for a ring the next distinct servers clockwise, checked
 * against a walk over a {@code TreeMap} of points computed here from the documented formulas.
 */
class ReplicasTest {

  /** A router as configured: a label, how to build it, and whether it takes weights. */
  record Placement(String label, Function<List<Node>, Router> build, boolean weights) {
    @Override
    public String toString() {
      return label;
    }
  }

  static List<Placement> placements() {
    List<Placement> all = new ArrayList<>();
    all.add(new Placement("ring(V=160)", HashRingRouter::create, true));
    all.add(new Placement("ring(V=1)", nodes -> HashRingRouter.create(nodes, 1), true));
    for (KetamaCompatibility mode : KetamaCompatibility.values()) {
      all.add(new Placement("ketama(" + mode.id() + ")", nodes -> KetamaRouter.create(nodes, mode), true));
    }
    all.add(new Placement("ketama(spymemcached-weighted)", KetamaRouter::spymemcachedWeighted, true));
    Set<PeerMode> modes = new LinkedHashSet<>(PeerMode.all(false));
    modes.addAll(PeerMode.all(true));
    for (PeerMode mode : modes) {
      all.add(new Placement("compat(" + mode.id() + ")", nodes -> PeerRouter.create(nodes, mode), takesWeights(mode)));
    }
    return all;
  }

  /** The compat modes whose peers ignore weights refuse them (see PeerRouter). */
  private static boolean takesWeights(PeerMode mode) {
    String id = mode.id();
    return !id.startsWith("spymemcached:array_mod:")
        && !(id.startsWith("libmemcached:") && !id.endsWith(":consistent_weighted"));
  }

  /**
   * {@code n} servers on 127.0.0.1 (the modes that hash a reverse-DNS name find it in the hosts
   * file), ports from 11211 so that the modes dropping port 11211 from the hashed string do so.
   */
  static List<Node> nodes(int n, boolean weighted) {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      nodes.add(Node.of("127.0.0.1", 11211 + i, weighted ? 1 + i % 4 : 1));
    }
    return nodes;
  }

  static Stream<Arguments> placementsAndFleets() {
    return placements().stream()
        .flatMap(p -> Stream.of(false, true)
            .filter(w -> !w || p.weights())
            .flatMap(w -> IntStream.of(1, 2, 5, 13).mapToObj(n -> Arguments.of(p, n, w))));
  }

  @ParameterizedTest(name = "{0} n={1} weighted={2}")
  @MethodSource("placementsAndFleets")
  void replicasAreDistinctNodesThatPrefixThePreferenceOrderFromThePrimary(
      Placement placement, int size, boolean weighted) {
    Router router = placement.build().apply(nodes(size, weighted));
    int[] order = new int[size];
    int[] out = new int[size + 4];
    int[] longer = new int[size + 4];
    for (int k = 0; k < 100; k++) {
      long hash = router.hasher().hash("key:" + k);
      router.preferenceOrder(hash, order);
      for (int n : new int[] {1, 2, 3, size, size + 2}) {
        int expected = Math.min(n, size);
        Arrays.fill(out, -1);
        assertThat(router.replicas(hash, n, out)).isEqualTo(expected);
        int[] replicas = Arrays.copyOf(out, expected);
        assertThat(replicas[0]).isEqualTo(router.primary(hash));
        assertThat(replicas).doesNotHaveDuplicates();
        assertThat(replicas).as("n=%d", n).isEqualTo(Arrays.copyOf(order, expected));
        assertThat(Arrays.copyOfRange(out, expected, out.length)).as("past the replicas").containsOnly(-1);
        router.replicas(hash, n + 1, longer);
        assertThat(Arrays.copyOf(longer, expected)).as("n=%d is a prefix of n+1", n).isEqualTo(replicas);
      }
    }
    assertThatThrownBy(() -> router.replicas(1L, 0, new int[size]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be >= 1 but was 0");
    assertThatThrownBy(() -> router.replicas(1L, size, new int[size - 1]))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void compatModesWhosePeersIgnoreWeightsRefuseThem() {
    int refused = 0;
    for (Placement p : placements()) {
      if (!p.weights()) {
        assertThatThrownBy(() -> p.build().apply(nodes(3, true)))
            .as(p.label())
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("has weight 2");
        refused++;
      }
    }
    assertThat(refused).isPositive();
  }

  @Test
  void ringReplicasAreTheNextDistinctServersClockwise() {
    for (boolean weighted : new boolean[] {false, true}) {
      List<Node> nodes = nodes(7, weighted);
      HashRingRouter ring = HashRingRouter.create(nodes, 40);
      // Point j of a node: fmix64(seed + (j + 1) * golden), seed the Murmur3 hash of its name.
      TreeMap<Long, Integer> points = new TreeMap<>();
      for (int i = 0; i < nodes.size(); i++) {
        long seed = Murmur3.INSTANCE.hash(nodes.get(i).name());
        for (int j = 0; j < 40 * nodes.get(i).weight(); j++) {
          long point = Murmur3.fmix64(seed + (j + 1) * 0x9E3779B97F4A7C15L);
          points.putIfAbsent(point ^ Long.MIN_VALUE, i); // unsigned order; first in list wins
        }
      }
      for (int k = 0; k < 2_000; k++) {
        long hash = Murmur3.INSTANCE.hash("key:" + k);
        assertReplicasWalkClockwise(ring, points, hash ^ Long.MIN_VALUE, hash);
      }
    }
  }

  @Test
  void ketamaReplicasAreTheNextDistinctServersOnTheMd5Continuum() throws NoSuchAlgorithmException {
    List<Node> nodes = nodes(7, false);
    MessageDigest md5 = MessageDigest.getInstance("MD5");
    for (KetamaCompatibility mode : List.of(KetamaCompatibility.LIBKETAMA, KetamaCompatibility.SPYMEMCACHED)) {
      KetamaRouter router = KetamaRouter.create(nodes, mode);
      // 40 digests of "host:port-j" per server, four little-endian words each; equal points go to
      // the first server of the list (libketama) or the last (spymemcached).
      TreeMap<Long, Integer> points = new TreeMap<>();
      for (int i = 0; i < nodes.size(); i++) {
        assertThat(router.pointsOf(i)).isEqualTo(160);
        for (int j = 0; j < 40; j++) {
          byte[] d = md5.digest((nodes.get(i).address() + "-" + j).getBytes(StandardCharsets.UTF_8));
          for (int h = 0; h < 4; h++) {
            long point = littleEndianWord(d, h);
            if (mode == KetamaCompatibility.LIBKETAMA) {
              points.putIfAbsent(point, i);
            } else {
              points.put(point, i);
            }
          }
        }
      }
      for (int k = 0; k < 2_000; k++) {
        byte[] key = ("key:" + k).getBytes(StandardCharsets.UTF_8);
        long hash = littleEndianWord(md5.digest(key), 0);
        assertThat(router.hasher().hash(key)).isEqualTo(hash);
        assertReplicasWalkClockwise(router, points, hash, hash);
      }
    }
  }

  private static long littleEndianWord(byte[] d, int h) {
    return (d[4 * h] & 0xFFL)
        | (d[4 * h + 1] & 0xFFL) << 8
        | (d[4 * h + 2] & 0xFFL) << 16
        | (d[4 * h + 3] & 0xFFL) << 24;
  }

  /** From the first point at or after {@code position}, wrapping: each owner once, N of them. */
  private static void assertReplicasWalkClockwise(
      Router router, TreeMap<Long, Integer> points, long position, long keyHash) {
    Set<Integer> met = new LinkedHashSet<>();
    for (Map<Long, Integer> arc : List.of(points.tailMap(position, true), points.headMap(position, false))) {
      met.addAll(arc.values());
    }
    int[] clockwise = met.stream().mapToInt(Integer::intValue).toArray();
    assertThat(clockwise).hasSize(router.size());
    int[] out = new int[router.size()];
    for (int n = 1; n <= router.size(); n++) {
      assertThat(router.replicas(keyHash, n, out)).isEqualTo(n);
      assertThat(Arrays.copyOf(out, n)).as("n=%d", n).isEqualTo(Arrays.copyOf(clockwise, n));
    }
  }

  /** Ketama modes and peers whose walk keeps the old servers' order when one joins. */
  private static final List<String> INSERTING =
      List.of(
          "ring(V=160)",
          "ketama(libketama)",
          "ketama(libmemcached)",
          "ketama(twemproxy)",
          "ketama(spymemcached)",
          "ketama(spymemcached-weighted)");

  /** The rows of {@link #INSERTING}, and a compat mode of each peer and distribution. */
  private static final List<String> MEASURED =
      Stream.concat(
              INSERTING.stream(),
              Stream.of(
                  "compat(twemproxy:fnv1a_64:ketama)",
                  "compat(twemproxy:fnv1a_64:modula)",
                  "compat(libmemcached:default:consistent)",
                  "compat(libmemcached:default:consistent_weighted)",
                  "compat(spymemcached:array_mod:native_hash)",
                  "compat(spymemcached:consistent:ketama_hash:spymemcached)",
                  "compat(xmemcached:ketama:ketama_hash)",
                  "compat(jedis:sharded:murmur_hash)"))
          .toList();

  @Test
  void addingASixthServerChangesTheReplicaSetsOfAFractionOfKeys() {
    List<Placement> measured =
        placements().stream().filter(p -> MEASURED.contains(p.label())).toList();
    assertThat(measured).extracting(Placement::label).containsExactlyInAnyOrderElementsOf(MEASURED);
    List<Node> six = nodes(6, false);
    List<Node> five = six.subList(0, 5);
    String[] keys = IntStream.range(0, 100_000).mapToObj(k -> "key:" + k).toArray(String[]::new);
    for (Placement p : measured) {
      Router before = p.build().apply(five);
      Router after = p.build().apply(six);
      StringBuilder line = new StringBuilder();
      for (int n = 1; n <= 3; n++) {
        int[] old = new int[n];
        int[] next = new int[n];
        int changed = 0;
        for (String key : keys) {
          before.replicas(before.hasher().hash(key), n, old);
          after.replicas(after.hasher().hash(key), n, next);
          Arrays.sort(old);
          Arrays.sort(next);
          if (!Arrays.equals(old, next)) {
            changed++;
          }
        }
        line.append(String.format(Locale.ROOT, "  N=%d %6.2f%%", n, 100.0 * changed / keys.length));
      }
      System.out.printf(Locale.ROOT, "replica sets changed, 5 -> 6 servers, %-58s%s%n", p.label(), line);
      if (INSERTING.contains(p.label())) {
        int[] old = new int[5];
        int[] full = new int[6];
        for (int k = 0; k < 5_000; k++) {
          before.preferenceOrder(before.hasher().hash(keys[k]), old);
          after.preferenceOrder(after.hasher().hash(keys[k]), full);
          assertThat(IntStream.of(full).filter(i -> i != 5).toArray())
              .as("%s: the new server only joins the order", p.label())
              .isEqualTo(old);
        }
      }
    }
  }
}
