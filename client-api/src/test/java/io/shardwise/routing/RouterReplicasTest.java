package io.shardwise.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The default {@link Router#replicas} of routers that do not override it. */
class RouterReplicasTest {

  /** Primary {@code hash mod n}, then the nodes before it in the list, wrapping: p, p-1, ... */
  private static final class BackwardRouter implements Router {
    private final List<Node> nodes = new ArrayList<>();

    BackwardRouter(int n) {
      for (int i = 0; i < n; i++) {
        nodes.add(Node.of("127.0.0.1", 11211 + i));
      }
    }

    @Override
    public List<Node> nodes() {
      return nodes;
    }

    @Override
    public KeyHasher hasher() {
      return Murmur3.INSTANCE;
    }

    @Override
    public int primary(long keyHash) {
      return (int) Long.remainderUnsigned(keyHash, nodes.size());
    }

    @Override
    public int preferenceOrder(long keyHash, int[] out) {
      int n = nodes.size();
      int k = Math.min(out.length, n);
      for (int a = 0; a < k; a++) {
        out[a] = Math.floorMod(primary(keyHash) - a, n);
      }
      return k;
    }

    @Override
    public String describe() {
      return "backward";
    }
  }

  @Test
  void replicasAreTheFirstNNodesOfThePreferenceOrderInAnyBufferLongEnough() {
    Router router = new BackwardRouter(5);
    for (long hash = 0; hash < 12; hash++) {
      int[] order = new int[5];
      router.preferenceOrder(hash, order);
      for (int n = 1; n <= 7; n++) {
        int count = Math.min(n, 5);
        for (int length : new int[] {count, count + 1, 9}) {
          int[] out = new int[length];
          Arrays.fill(out, -1);
          assertThat(router.replicas(hash, n, out)).isEqualTo(count);
          assertThat(Arrays.copyOf(out, count)).isEqualTo(Arrays.copyOf(order, count));
          assertThat(out[0]).isEqualTo(router.primary(hash));
          for (int i = count; i < length; i++) {
            assertThat(out[i]).as("entry %d past the replicas", i).isEqualTo(-1);
          }
        }
      }
    }
    int[] three = new int[3];
    router.replicas(7, 3, three);
    assertThat(three).containsExactly(2, 1, 0);
  }

  @Test
  void rejectsFewerThanOneReplicaAndABufferShorterThanTheReplicas() {
    Router router = new BackwardRouter(5);
    assertThatThrownBy(() -> router.replicas(1, 0, new int[5]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be >= 1 but was 0");
    assertThatThrownBy(() -> router.replicas(1, -3, new int[5]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be >= 1 but was -3");
    assertThatThrownBy(() -> router.replicas(1, 3, new int[2]))
        .isInstanceOf(IndexOutOfBoundsException.class);
    assertThat(router.replicas(1, 9, new int[5])).as("more replicas than nodes: every node").isEqualTo(5);
    assertThatThrownBy(() -> router.replicas(1, 9, new int[4]))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void replicaCountIsTheLesserOfReplicasAndNodes() {
    assertThat(Router.replicaCount(1, 5, 1)).isEqualTo(1);
    assertThat(Router.replicaCount(3, 5, 8)).isEqualTo(3);
    assertThat(Router.replicaCount(8, 5, 5)).isEqualTo(5);
    assertThatThrownBy(() -> Router.replicaCount(0, 5, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("replicas must be >= 1 but was 0");
    assertThatThrownBy(() -> Router.replicaCount(3, 5, 2))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
