package io.shardwise.ketama;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.function.IntPredicate;

/**
 * The ketama MD5 continuum (libketama, Last.fm 2007), placing keys exactly like one of the
 * implementations named by {@link KetamaCompatibility}. A server's digest {@code j} is {@code
 * MD5(S + "-" + j)} and gives four points; a key goes to the first point at or after the first
 * word of {@code MD5(key)}, wrapping.
 *
 * <p>The preference order walks the continuum clockwise from the key and lists servers as they
 * are met: the server a key moves to when the ones before it are removed, as in every ketama
 * implementation that ejects servers. A server whose weight is too small to earn a digest (the
 * formulas floor) owns no point; it is listed last.
 */
public final class KetamaRouter implements Router {

  private final List<Node> nodes;
  private final KetamaCompatibility compatibility;
  private final boolean weighted;
  private final int[] digests;
  private final String[] serverStrings;
  private final Continuum continuum;

  private KetamaRouter(List<Node> nodes, KetamaCompatibility compatibility, boolean forceWeighted) {
    this.nodes = ServerList.validate(nodes);
    this.compatibility = Objects.requireNonNull(compatibility, "compatibility");
    int n = this.nodes.size();
    long totalWeight = 0;
    boolean anyWeight = false;
    for (Node node : this.nodes) {
      totalWeight += node.weight();
      anyWeight |= node.weight() != 1;
    }
    this.weighted = forceWeighted || anyWeight;

    this.digests = new int[n];
    this.serverStrings = new String[n];
    int totalPoints = 0;
    for (int i = 0; i < n; i++) {
      Node node = this.nodes.get(i);
      serverStrings[i] = compatibility.serverString(node);
      digests[i] = compatibility.digests(node.weight(), totalWeight, n, weighted);
      totalPoints += 4 * digests[i];
    }

    long[] positions = new long[totalPoints];
    int[] owners = new int[totalPoints];
    int[] words = new int[4];
    Md5 md5 = new Md5();
    int p = 0;
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < digests[i]; j++) {
        byte[] s = (serverStrings[i] + "-" + j).getBytes(StandardCharsets.UTF_8);
        md5.digest(s, 0, s.length, words);
        for (int h = 0; h < 4; h++) {
          // Ketama points are 32-bit; the continuum is 64-bit, so they sit in the high half.
          positions[p] = (words[h] & 0xFFFFFFFFL) << 32;
          owners[p] = i;
          p++;
        }
      }
    }
    this.continuum = new Continuum(positions, owners, totalPoints, n, compatibility.ties());
  }

  /** A libketama-compatible router. */
  public static KetamaRouter create(List<Node> nodes) {
    return new KetamaRouter(nodes, KetamaCompatibility.LIBKETAMA, false);
  }

  /** A router compatible with {@code compatibility}. */
  public static KetamaRouter create(List<Node> nodes, KetamaCompatibility compatibility) {
    return new KetamaRouter(nodes, compatibility, false);
  }

  /**
   * A spymemcached-compatible router that uses the weighted locator's point count even when all
   * weights are 1 (spymemcached given a weights map: 39 instead of 40 digests for some server
   * counts).
   */
  public static KetamaRouter spymemcachedWeighted(List<Node> nodes) {
    return new KetamaRouter(nodes, KetamaCompatibility.SPYMEMCACHED, true);
  }

  /**
   * A router for a compatibility name as used in configuration: one of {@code libketama}, {@code
   * libmemcached}, {@code twemproxy}, {@code spymemcached}, or {@code spymemcached-weighted}.
   */
  public static KetamaRouter create(List<Node> nodes, String compatibility) {
    if (compatibility != null && compatibility.strip().equalsIgnoreCase("spymemcached-weighted")) {
      return spymemcachedWeighted(nodes);
    }
    return create(nodes, KetamaCompatibility.of(compatibility));
  }

  public KetamaCompatibility compatibility() {
    return compatibility;
  }

  /** Number of continuum points node {@code i} was given (4 per digest, before ties). */
  public int pointsOf(int i) {
    return 4 * digests[i];
  }

  /** The string hashed (with {@code "-" + j}) for node {@code i}'s digests. */
  public String serverString(int i) {
    return serverStrings[i];
  }

  /** Each node's exact share of the 32-bit circle. */
  public double[] ownership() {
    return continuum.ownership();
  }

  @Override
  public List<Node> nodes() {
    return nodes;
  }

  @Override
  public KeyHasher hasher() {
    return KetamaHasher.INSTANCE;
  }

  /** {@code keyHash} is the unsigned 32-bit ketama hash ({@link KetamaHasher}). */
  @Override
  public int primary(long keyHash) {
    return continuum.ownerOf(keyHash << 32);
  }

  @Override
  public int preferenceOrder(long keyHash, int[] out) {
    return continuum.preferenceOrder(keyHash << 32, out);
  }

  /** The first {@code n} distinct servers clockwise from the key. Allocation free. */
  @Override
  public int replicas(long keyHash, int n, int[] out) {
    return continuum.replicas(keyHash << 32, n, out);
  }

  /**
   * Walks the continuum clockwise from the key to the first point whose owner is available:
   * about {@code 1 / (1 - f)} points with a fraction f of the nodes out. Allocation free.
   */
  @Override
  public int walkToAvailable(long keyHash, IntPredicate available, int[] walked) {
    return continuum.walkToAvailable(keyHash << 32, available, walked);
  }

  @Override
  public String describe() {
    String mode = compatibility.id();
    if (compatibility == KetamaCompatibility.SPYMEMCACHED && weighted) {
      mode += "-weighted";
    }
    return "ketama(" + mode + ")";
  }

  @Override
  public String toString() {
    return describe() + nodes;
  }
}
