package io.shardwise.routers;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Where fixed keys land today. These vectors were recorded from this implementation, not from an
 * outside reference: they exist so that a change of placement cannot go unnoticed. If one fails,
 * the change would move keys for every user; make it a new, named router instead.
 */
class PlacementContractTest {

  private static final List<Node> NODES =
      List.of(
          Node.of("127.0.0.1", 11211),
          Node.of("127.0.0.2", 11211),
          Node.named("cache-c", "127.0.0.3", 11211, 1),
          Node.of("cache-d.example", 11211),
          Node.of("::1", 11212),
          Node.of("127.0.0.6", 11211),
          Node.of("127.0.0.7", 11211));

  private static final int[] WEIGHTS = {4, 4, 3, 2, 5, 4, 4};

  private static List<Node> weighted() {
    List<Node> nodes = new ArrayList<>();
    for (int i = 0; i < NODES.size(); i++) {
      nodes.add(NODES.get(i).withWeight(WEIGHTS[i]));
    }
    return nodes;
  }

  /** Primaries of {@code key:0} .. {@code key:23}. */
  private static int[] primaries(Router router) {
    return IntStream.range(0, 24).map(i -> router.primary("key:" + i)).toArray();
  }

  @Test
  void rendezvousPlacementIsUnchanged() {
    Router router = new RendezvousRouter(NODES);
    assertThat(primaries(router))
        .containsExactly(3, 4, 1, 0, 1, 5, 2, 3, 3, 6, 4, 2, 4, 2, 3, 0, 6, 6, 4, 4, 0, 2, 6, 3);
    assertThat(router.preferenceOrder("user:42")).containsExactly(2, 6, 1, 3, 4, 5, 0);
  }

  @Test
  void weightedRendezvousPlacementIsUnchanged() {
    Router router = new RendezvousRouter(weighted());
    assertThat(primaries(router))
        .containsExactly(3, 4, 1, 0, 1, 5, 2, 3, 5, 6, 4, 0, 4, 2, 5, 0, 6, 6, 4, 4, 0, 4, 6, 3);
    assertThat(router.preferenceOrder("user:42")).containsExactly(2, 6, 1, 4, 5, 3, 0);
  }

  @Test
  void jumpPlacementIsUnchanged() {
    Router router = new JumpRouter(NODES);
    assertThat(primaries(router))
        .containsExactly(2, 3, 3, 5, 2, 4, 2, 6, 4, 3, 6, 2, 1, 4, 2, 1, 0, 2, 4, 1, 6, 4, 3, 1);
    assertThat(router.preferenceOrder("user:42")).containsExactly(2, 1, 4, 3, 5, 0, 6);
  }

  @Test
  void multiProbePlacementIsUnchanged() {
    Router router = new MultiProbeRouter(NODES);
    assertThat(primaries(router))
        .containsExactly(3, 0, 4, 4, 3, 2, 5, 1, 6, 5, 1, 1, 1, 1, 2, 4, 6, 5, 6, 2, 3, 3, 5, 1);
    assertThat(router.preferenceOrder("user:42")).containsExactly(4, 0, 1, 2, 6, 3, 5);
  }

  @Test
  void maglevPlacementIsUnchanged() {
    Router router = new MaglevRouter(NODES);
    assertThat(primaries(router))
        .containsExactly(1, 6, 3, 1, 4, 5, 0, 3, 5, 5, 1, 4, 4, 1, 0, 2, 2, 4, 4, 5, 2, 0, 4, 4);
    assertThat(router.preferenceOrder("user:42")).containsExactly(3, 6, 0, 5, 1, 2, 4);
  }

  @Test
  void weightedMaglevPlacementIsUnchanged() {
    Router router = new MaglevRouter(weighted());
    assertThat(primaries(router))
        .containsExactly(1, 6, 0, 1, 4, 5, 0, 3, 5, 5, 1, 4, 4, 1, 0, 1, 2, 4, 4, 5, 2, 0, 4, 4);
    assertThat(router.preferenceOrder("user:42")).containsExactly(5, 6, 4, 0, 1, 2, 3);
  }

  @Test
  void moduloPlacementIsUnchanged() {
    Router router = new ModuloRouter(NODES);
    assertThat(primaries(router))
        .containsExactly(0, 5, 0, 3, 6, 1, 0, 1, 5, 0, 6, 5, 4, 0, 1, 0, 0, 3, 2, 0, 3, 2, 1, 2);
    assertThat(router.preferenceOrder("user:42")).containsExactly(6, 0, 1, 2, 3, 4, 5);
  }
}
