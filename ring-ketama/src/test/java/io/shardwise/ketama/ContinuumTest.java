package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ContinuumTest {

  @Test
  void lookupAgreesWithATreeMapOnAMillionKeys() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      nodes.add(Node.of("127.0.0.1", 11211 + i, 1 + i % 3));
    }
    HashRingRouter ring = HashRingRouter.create(nodes, 160);
    KetamaRouter ketama = KetamaRouter.create(nodes, KetamaCompatibility.LIBMEMCACHED);
    TreeMap<Long, Integer> ringReference = reference(ring);
    TreeMap<Long, Integer> ketamaReference = reference(ketama);

    SplittableRandom random = new SplittableRandom(1);
    for (int i = 0; i < 1_000_000; i++) {
      long h = random.nextLong();
      assertThat(ring.primary(h)).isEqualTo(ceilingOwner(ringReference, h));
      long h32 = h >>> 32;
      assertThat(ketama.primary(h32)).isEqualTo(ceilingOwner(ketamaReference, h32 << 32));
    }
    // The edges of the circle, and every point itself.
    for (long h : new long[] {0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE}) {
      assertThat(ring.primary(h)).isEqualTo(ceilingOwner(ringReference, h));
    }
    for (Map.Entry<Long, Integer> e : ringReference.entrySet()) {
      long point = e.getKey() ^ Long.MIN_VALUE;
      assertThat(ring.primary(point)).isEqualTo(e.getValue());
      assertThat(ring.primary(point + 1)).isEqualTo(ceilingOwner(ringReference, point + 1));
    }
  }

  /** Unsigned positions as a TreeMap of signed keys: flip the sign bit. */
  private static TreeMap<Long, Integer> reference(HashRingRouter router) {
    return reference(continuumOf(router));
  }

  private static TreeMap<Long, Integer> reference(KetamaRouter router) {
    return reference(continuumOf(router));
  }

  private static TreeMap<Long, Integer> reference(Continuum c) {
    TreeMap<Long, Integer> map = new TreeMap<>();
    for (int i = 0; i < c.size(); i++) {
      map.put(c.position(i) ^ Long.MIN_VALUE, c.owner(i));
    }
    return map;
  }

  private static int ceilingOwner(TreeMap<Long, Integer> map, long unsignedPosition) {
    Map.Entry<Long, Integer> e = map.ceilingEntry(unsignedPosition ^ Long.MIN_VALUE);
    return (e == null ? map.firstEntry() : e).getValue();
  }

  static Continuum continuumOf(Object router) {
    try {
      var field = router.getClass().getDeclaredField("continuum");
      field.setAccessible(true);
      return (Continuum) field.get(router);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void equalPointsGoToTheFirstOrTheLastNodeInListOrder() {
    long[] positions = {100, 50, 100, 200, 100};
    int[] owners = {0, 1, 1, 2, 2};
    Continuum first = new Continuum(positions.clone(), owners.clone(), 5, 3, Continuum.Ties.FIRST_IN_LIST);
    Continuum last = new Continuum(positions.clone(), owners.clone(), 5, 3, Continuum.Ties.LAST_IN_LIST);
    assertThat(first.size()).isEqualTo(3);
    assertThat(first.ownerOf(99)).isEqualTo(0);
    assertThat(first.ownerOf(100)).isEqualTo(0);
    assertThat(last.ownerOf(100)).isEqualTo(2);
    assertThat(last.ownerOf(51)).isEqualTo(2);
    assertThat(first.ownerOf(50)).isEqualTo(1);
    assertThat(first.ownerOf(201)).as("wraps to the first point").isEqualTo(1);
    assertThat(first.ownerOf(-1L)).as("2^64 - 1 wraps").isEqualTo(1);
  }

  @Test
  void ownershipIsTheExactArcShare() {
    long quarter = 1L << 62;
    Continuum c =
        new Continuum(new long[] {quarter, 2 * quarter, 3 * quarter}, new int[] {0, 1, 0}, 3, 2,
            Continuum.Ties.FIRST_IN_LIST);
    double[] share = c.ownership();
    // Node 0 owns (3q, 2^64) + [0, q] = 2q and (2q, 3q] = q: three quarters.
    assertThat(share[0]).isEqualTo(0.75);
    assertThat(share[1]).isEqualTo(0.25);
    Continuum single = new Continuum(new long[] {5}, new int[] {0}, 1, 1, Continuum.Ties.FIRST_IN_LIST);
    assertThat(single.ownership()[0]).isEqualTo(1.0);
  }

  @Test
  void preferenceOrderListsNodesAsTheWalkMeetsThemThenPointlessNodes() {
    Continuum c =
        new Continuum(new long[] {10, 20, 30, 40}, new int[] {2, 2, 0, 1}, 4, 4,
            Continuum.Ties.FIRST_IN_LIST);
    int[] out = new int[4];
    assertThat(c.preferenceOrder(15, out)).isEqualTo(4);
    assertThat(out).containsExactly(2, 0, 1, 3);
    int[] two = new int[2];
    assertThat(c.preferenceOrder(35, two)).isEqualTo(2);
    assertThat(two).containsExactly(1, 2);
  }
}
