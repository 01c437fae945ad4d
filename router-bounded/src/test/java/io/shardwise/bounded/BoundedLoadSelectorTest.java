package io.shardwise.bounded;

import static io.shardwise.bounded.BoundedLoadSelector.NO_NODE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.KeyHasher;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.List;
import org.junit.jupiter.api.Test;

class BoundedLoadSelectorTest {

  private static final long KEY = 42L;

  private final Selection selection = new Selection();

  @Test
  void picksThePrimaryWhileItIsUnderItsCap() {
    FakeRouter router = FakeRouter.fixed(4, 2, 0, 3, 1);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router);
    // total 8, four equal nodes: cap = ceil(1.25 * 9 / 4) = 3; the primary carries 2
    ArrayLoads loads = ArrayLoads.of(1, 1, 2, 4);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(2);
    assertThat(selection.node()).isEqualTo(2);
    assertThat(selection.primary()).isEqualTo(2);
    assertThat(selection.spilled()).isFalse();
    assertThat(selection.probes()).isEqualTo(1);
    assertThat(selection.skipped()).isZero();
    assertThat(selection.overCap()).isFalse();
    assertThat(selection.found()).isTrue();
  }

  @Test
  void primaryUnderItsCapIsPickedWithoutComputingThePreferenceOrder() {
    FakeRouter router = FakeRouter.fixed(4, 2, 0, 3, 1);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router);

    selector.select(KEY, ArrayLoads.zeros(4), selection);

    assertThat(router.preferenceOrderCalls).isZero();
  }

  @Test
  void spillsToTheFirstNodeInPreferenceOrderThatIsUnderItsCap() {
    FakeRouter router = FakeRouter.fixed(4, 2, 0, 3, 1);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router);
    // total 8, cap 3 for every node: node 2 is over, node 0 exactly at its cap, node 3 and
    // node 1 under it; node 3 comes first in the order, although node 1 is the lower index
    ArrayLoads loads = ArrayLoads.of(3, 1, 4, 0);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(3);
    assertThat(selection.primary()).isEqualTo(2);
    assertThat(selection.spilled()).isTrue();
    assertThat(selection.probes()).isEqualTo(3);
    assertThat(selection.overCap()).isFalse();
  }

  @Test
  void aNodeExactlyAtItsCapIsNotEligible() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.identity(4));
    // total 15, four equal nodes: cap = ceil(1.25 * 16 / 4) = 5
    assertThat(selector.cap(0, 15)).isEqualTo(5);

    assertThat(selector.select(KEY, ArrayLoads.of(4, 0, 0, 0).total(15), selection)).isEqualTo(0);
    assertThat(selector.select(KEY, ArrayLoads.of(5, 0, 0, 0).total(15), selection)).isEqualTo(1);
  }

  @Test
  void neverPicksANodeBeyondTheProbeLimit() {
    FakeRouter router = FakeRouter.identity(6);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router, 0.25, 3);
    // total 60, cap = ceil(1.25 * 61 / 6) = 13: the first three are over, the rest are empty
    ArrayLoads loads = ArrayLoads.of(20, 20, 20, 0, 0, 0);

    int picked = selector.select(KEY, loads, selection);

    assertThat(picked).isBetween(0, 2);
    assertThat(selection.probes()).isEqualTo(3);
    assertThat(selection.overCap()).isTrue();
  }

  @Test
  void fallsBackToTheLeastLoadedProbedNodeWhenAllAreOverCap() {
    BoundedLoadSelector selector =
        BoundedLoadSelector.of(FakeRouter.fixed(5, 4, 2, 0, 1, 3), 0.25, 4);
    // total 100, cap = ceil(1.25 * 101 / 5) = 26; the probed nodes 4, 2, 0, 1 all carry more;
    // node 3, the least loaded overall, is beyond the probe limit
    ArrayLoads loads = ArrayLoads.of(30, 28, 29, 0, 40).total(100);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(1);
    assertThat(selection.overCap()).isTrue();
    assertThat(selection.spilled()).isTrue();
    assertThat(selection.probes()).isEqualTo(4);
  }

  @Test
  void fallbackTieGoesToTheEarliestNodeInPreferenceOrder() {
    BoundedLoadSelector selector =
        BoundedLoadSelector.of(FakeRouter.fixed(4, 3, 1, 0, 2), 0.25, 4);
    // total 30, cap = ceil(1.25 * 31 / 4) = 10; nodes 1, 0 and 2 tie at 12, node 1 comes first
    ArrayLoads loads = ArrayLoads.of(12, 12, 12, 14).total(30);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(1);
    assertThat(selection.overCap()).isTrue();
  }

  @Test
  void fallbackKeepsThePrimaryWhenItIsTheLeastLoaded() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.identity(3), 0.25, 3);
    ArrayLoads loads = ArrayLoads.of(11, 11, 12).total(10);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(0);
    assertThat(selection.overCap()).isTrue();
    assertThat(selection.spilled()).isFalse();
  }

  @Test
  void unavailableNodesAreSkippedAndDoNotCountAgainstTheProbeLimit() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.identity(6), 0.25, 2);
    // total 10, cap = ceil(1.25 * 11 / 6) = 3; nodes 0 and 1 are down and empty, node 2 is over
    // its cap, node 3 is under it: the second probe, after two skips
    ArrayLoads loads = ArrayLoads.of(0, 0, 5, 1, 0, 0).total(10).down(0, 1);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(3);
    assertThat(selection.primary()).isEqualTo(0);
    assertThat(selection.spilled()).isTrue();
    assertThat(selection.skipped()).isEqualTo(2);
    assertThat(selection.probes()).isEqualTo(2);
    assertThat(selection.overCap()).isFalse();
  }

  @Test
  void unavailableNodeIsNotPickedEvenAsTheLeastLoaded() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.identity(3), 0.25, 3);
    ArrayLoads loads = ArrayLoads.of(20, 0, 30).total(10).down(1);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(0);
    assertThat(selection.overCap()).isTrue();
    assertThat(selection.probes()).isEqualTo(2);
    assertThat(selection.skipped()).isEqualTo(1);
  }

  @Test
  void unavailablePrimaryFailsOverToTheNextEligibleNode() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.fixed(3, 1, 2, 0));
    ArrayLoads loads = ArrayLoads.zeros(3).down(1);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(2);
    assertThat(selection.primary()).isEqualTo(1);
    assertThat(selection.spilled()).isTrue();
    assertThat(selection.skipped()).isEqualTo(1);
    assertThat(selection.probes()).isEqualTo(1);
  }

  @Test
  void walksTheWholeOrderWhenUnavailableNodesFillItsHead() {
    FakeRouter router = FakeRouter.fixed(12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router, 0.25, 3);
    ArrayLoads loads = ArrayLoads.zeros(12).down(11, 10, 9, 8, 7, 6, 5);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(4);
    assertThat(selection.skipped()).isEqualTo(7);
    assertThat(selection.probes()).isEqualTo(1);
  }

  @Test
  void returnsNoNodeWhenEveryNodeIsUnavailable() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.fixed(3, 2, 0, 1), 0.25, 1);
    ArrayLoads loads = ArrayLoads.zeros(3).down(0, 1, 2);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(NO_NODE);
    assertThat(selection.node()).isEqualTo(NO_NODE);
    assertThat(selection.found()).isFalse();
    assertThat(selection.spilled()).isFalse();
    assertThat(selection.primary()).isEqualTo(2);
    assertThat(selection.probes()).isZero();
    assertThat(selection.skipped()).isEqualTo(3);
    assertThat(selection.overCap()).isFalse();
  }

  @Test
  void aProbeLimitAboveTheNodeCountProbesEveryNodeOnce() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.identity(3), 0.25, 8);
    ArrayLoads loads = ArrayLoads.of(9, 8, 9).total(6);

    assertThat(selector.select(KEY, loads, selection)).isEqualTo(1);
    assertThat(selection.probes()).isEqualTo(3);
    assertThat(selection.overCap()).isTrue();
  }

  @Test
  void probeLimitOneNeverLeavesAnAvailablePrimary() {
    FakeRouter router = FakeRouter.identity(4);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router, 0.25, 1);

    assertThat(selector.select(KEY, ArrayLoads.of(50, 0, 0, 0), selection)).isEqualTo(0);
    assertThat(selection.overCap()).isTrue();
    assertThat(router.preferenceOrderCalls).isZero();
  }

  @Test
  void capsFollowTheNormalisedWeights() {
    FakeRouter router = FakeRouter.fixed(new int[] {2, 1, 0}, 1, 2, 5);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router);

    assertThat(selector.normalisedWeight(0)).isEqualTo(0.125);
    assertThat(selector.normalisedWeight(1)).isEqualTo(0.25);
    assertThat(selector.normalisedWeight(2)).isEqualTo(0.625);
    // total 15: ceil(1.25 * 16 * w) = ceil(2.5), ceil(5), ceil(12.5)
    assertThat(selector.cap(0, 15)).isEqualTo(3);
    assertThat(selector.cap(1, 15)).isEqualTo(5);
    assertThat(selector.cap(2, 15)).isEqualTo(13);
    for (int node = 0; node < 3; node++) {
      assertThat(selector.cap(node, 15))
          .isEqualTo(BoundedLoadSelector.cap(0.25, 15, selector.normalisedWeight(node)));
    }

    // the heavy primary keeps a load of 12 that would put a weight-1 node far over its cap
    assertThat(selector.select(KEY, ArrayLoads.of(0, 3, 12), selection)).isEqualTo(2);
    assertThat(selector.select(KEY, ArrayLoads.of(0, 2, 13), selection)).isEqualTo(1);
    assertThat(selector.select(KEY, ArrayLoads.of(0, 5, 10).total(15), selection)).isEqualTo(2);
    assertThat(selector.select(KEY, ArrayLoads.of(0, 5, 13).total(15), selection)).isEqualTo(0);
  }

  @Test
  void oneSelectionServesSelectorsOfDifferentShapes() {
    BoundedLoadSelector small = BoundedLoadSelector.of(FakeRouter.fixed(3, 2, 1, 0), 0.25, 2);
    BoundedLoadSelector large =
        BoundedLoadSelector.of(FakeRouter.fixed(6, 5, 4, 3, 2, 1, 0), 0.25, 5);

    assertThat(small.select(KEY, ArrayLoads.of(0, 0, 9), selection)).isEqualTo(1);
    assertThat(large.select(KEY, ArrayLoads.of(0, 0, 0, 0, 0, 9).down(4, 3), selection))
        .isEqualTo(2);
    assertThat(small.select(KEY, ArrayLoads.of(10, 9, 9).total(6).down(2), selection))
        .isEqualTo(1);
    assertThat(selection.overCap()).isTrue();
  }

  @Test
  void rejectsARouterWhosePreferenceOrderDoesNotStartWithItsPrimary() {
    BoundedLoadSelector selector =
        BoundedLoadSelector.of(FakeRouter.identity(3).withPrimary(1));
    ArrayLoads loads = ArrayLoads.of(0, 9, 0);

    assertThatThrownBy(() -> selector.select(KEY, loads, selection))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("fake(n=3) broke the Router contract")
        .hasMessageContaining("starting with node 0, but primary() is node 1");
  }

  @Test
  void rejectsANegativeTotalLoad() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.identity(3));

    assertThatThrownBy(() -> selector.select(KEY, ArrayLoads.zeros(3).total(-2), selection))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("total load must be >= 0 but was -2");
  }

  @Test
  void defaultsAreEpsilonAQuarterAndEightProbes() {
    FakeRouter router = FakeRouter.identity(3);
    BoundedLoadSelector selector = BoundedLoadSelector.of(router);

    assertThat(selector.epsilon()).isEqualTo(0.25).isEqualTo(BoundedLoadSelector.DEFAULT_EPSILON);
    assertThat(selector.probeLimit())
        .isEqualTo(8)
        .isEqualTo(BoundedLoadSelector.DEFAULT_PROBE_LIMIT);
    assertThat(selector.router()).isSameAs(router);
    assertThat(selector).hasToString("bounded(epsilon=0.25, probeLimit=8) over fake(n=3)");
  }

  @Test
  void rejectsBadEpsilonNamingTheValueAndTheRule() {
    Router router = FakeRouter.identity(3);
    assertThatThrownBy(() -> BoundedLoadSelector.of(router, -0.1, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be > 0 but was -0.1");
    assertThatThrownBy(() -> BoundedLoadSelector.of(router, 0.0, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be > 0 but was 0.0");
    assertThatThrownBy(() -> BoundedLoadSelector.of(router, Double.NaN, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be > 0 but was NaN");
    assertThatThrownBy(() -> BoundedLoadSelector.of(router, Double.NEGATIVE_INFINITY, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be > 0 but was -Infinity");
    assertThatThrownBy(() -> BoundedLoadSelector.of(router, Double.POSITIVE_INFINITY, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("epsilon must be finite but was Infinity");
  }

  @Test
  void rejectsBadProbeLimitNamingTheValueAndTheRule() {
    Router router = FakeRouter.identity(3);
    assertThatThrownBy(() -> BoundedLoadSelector.of(router, 0.25, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("probe limit must be >= 1 but was 0");
    assertThatThrownBy(() -> BoundedLoadSelector.of(router, 0.25, -3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("probe limit must be >= 1 but was -3");
  }

  @Test
  void rejectsARouterWithoutNodes() {
    Router empty =
        new Router() {
          @Override
          public List<Node> nodes() {
            return List.of();
          }

          @Override
          public KeyHasher hasher() {
            throw new UnsupportedOperationException();
          }

          @Override
          public int primary(long keyHash) {
            throw new UnsupportedOperationException();
          }

          @Override
          public int preferenceOrder(long keyHash, int[] out) {
            throw new UnsupportedOperationException();
          }

          @Override
          public String describe() {
            return "empty";
          }
        };

    assertThatThrownBy(() -> BoundedLoadSelector.of(empty))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("router must have at least one node but empty has none");
    assertThatThrownBy(() -> BoundedLoadSelector.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("router");
  }

  @Test
  void capOfANodeRejectsABadIndexOrTotal() {
    BoundedLoadSelector selector = BoundedLoadSelector.of(FakeRouter.identity(3));

    assertThatThrownBy(() -> selector.cap(3, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    assertThatThrownBy(() -> selector.cap(0, -1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("total load must be >= 0 but was -1");
  }
}
