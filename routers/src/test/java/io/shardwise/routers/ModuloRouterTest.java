package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ModuloRouterTest {

  @Test
  void primaryIsTheHashModuloNTakenUnsigned() {
    Router router = new ModuloRouter(Fleets.nodes(7));
    for (long key : Fleets.keyHashes(1, 10_000)) {
      BigInteger unsigned = new BigInteger(Long.toUnsignedString(key));
      assertThat(router.primary(key)).isEqualTo(unsigned.mod(BigInteger.valueOf(7)).intValue());
    }
    // 2^64 - 1 = 7 * 2635249153387078802 + 1
    assertThat(router.primary(-1L)).isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(ints = {5, 10, 50, 100})
  void growingByOneNodeMovesAboutNOverNPlusOneOfTheKeys(int n) {
    Router before = new ModuloRouter(Fleets.nodes(n));
    Router after = new ModuloRouter(Fleets.nodes(n + 1));
    long[] keys = Fleets.keyHashes(n, 100_000);
    int moved = 0;
    for (long key : keys) {
      if (before.primary(key) != after.primary(key)) {
        moved++;
      }
    }
    double p = (double) n / (n + 1);
    Fleets.assertBinomial("keys moved", moved, keys.length, p);
  }

  @Test
  void failsOverToTheFollowingNodesInListOrder() {
    Router router = new ModuloRouter(Fleets.nodes(5));
    int[] out = new int[5];
    router.preferenceOrder(3, out);
    assertThat(out).containsExactly(3, 4, 0, 1, 2);
  }

  @Test
  void rejectsWeightsNamingTheNodeAndTheWeight() {
    List<Node> nodes = List.of(Fleets.node(0).withWeight(4));
    assertThatThrownBy(() -> new ModuloRouter(nodes))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("modulo")
        .hasMessageContaining("'127.0.0.1:11211' has weight 4");
  }
}
