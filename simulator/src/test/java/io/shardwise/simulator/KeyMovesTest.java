package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.shardwise.routing.Node;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyMovesTest {

  @Test
  void matchesServersByAddressAndNumbersNewOnesAfterTheOldList() {
    List<Node> before = List.of(Node.of("A", 1), Node.of("b", 2), Node.named("c", "c", 3, 2));
    List<Node> after = List.of(Node.named("renamed", "a", 1, 1), Node.of("d", 4), Node.of("c", 3, 3));
    KeyMoves moves = KeyMoves.between(before, after);
    assertThat(moves.servers()).extracting(Node::address).containsExactly("A:1", "b:2", "c:3", "d:4");
    assertThat(moves.serverAfter(0)).isZero();
    assertThat(moves.serverAfter(1)).isEqualTo(3);
    assertThat(moves.serverAfter(2)).isEqualTo(2);
    // Shares 1/4, 1/4, 1/2 -> 1/5, 0, 3/5 and 1/5 for d: 0.05 + 0.25 leave A and b.
    assertThat(moves.optimum()).isCloseTo(0.30, within(1e-12));

    moves.add(0, 0);
    moves.add(1, 1);
    moves.add(1, 2);
    moves.add(2, 1);
    assertThat(moves.keys()).isEqualTo(4);
    assertThat(moves.moved()).isEqualTo(3);
    assertThat(moves.ownedBefore(1)).isEqualTo(2);
    assertThat(moves.ownedAfter(3)).isEqualTo(2);
    // b lost 2 and c lost 0 net (1 out, 1 in): only b's two keys had to move.
    assertThat(moves.floor()).isEqualTo(2);
    assertThat(moves.flows())
        .containsExactly(
            new KeyMoves.Flow(1, 2, 1), new KeyMoves.Flow(1, 3, 1), new KeyMoves.Flow(2, 3, 1));
  }

  @Test
  void countsEveryFlowLikeAMapOfPairs() {
    int n = 300;
    List<Node> before = Fleet.of("x", new SplittableRandom(1)).nodes(n);
    List<Node> after = before.subList(0, n - 1);
    KeyMoves moves = KeyMoves.between(before, after);
    Map<List<Integer>, Long> expected = new HashMap<>();
    SplittableRandom random = new SplittableRandom(2);
    for (int k = 0; k < 30_000; k++) {
      int from = random.nextInt(n);
      int to = random.nextInt(n - 1);
      moves.add(from, to);
      if (from != to) {
        expected.merge(List.of(from, to), 1L, Long::sum);
      }
    }
    assertThat(moves.flows()).hasSize(expected.size());
    for (KeyMoves.Flow flow : moves.flows()) {
      assertThat(flow.keys()).isEqualTo(expected.get(List.of(flow.from(), flow.to())));
    }
    assertThat(moves.flows().get(0).keys()).isGreaterThanOrEqualTo(moves.flows().get(1).keys());
    assertThat(moves.moved()).isEqualTo(expected.values().stream().mapToLong(Long::longValue).sum());
  }
}
