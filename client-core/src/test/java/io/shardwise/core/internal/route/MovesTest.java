package io.shardwise.core.internal.route;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.TopologyChange;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.TopologyOptions;
import io.shardwise.core.internal.health.Member;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.routing.ServerList;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The pure routing decision for keys that moved, with one replica per key (a replica set of one):
 * phases, sources, clears and former owners.
 */
class MovesTest {

  private static final long SETTLE = 1_000;
  private static final long WARM = 10_000;
  private static final TopologyOptions OPTIONS =
      TopologyOptions.defaults().withSettle(Duration.ofNanos(SETTLE)).withWarmUp(Duration.ofNanos(WARM));

  /** Members by address, shared by every placement built here, as the client shares them. */
  private final Map<String, Member> members = new HashMap<>();
  private final Topology five = placement("a:1,b:2,c:3,d:4,e:5");
  private final Topology six = placement("a:1,b:2,c:3,d:4,e:5,f:6");
  /** Six servers, one added to five at time 0. */
  private final Topology added = six.withHistory(new Transition[] {change(five, six, 0)});
  private final String moved = movedKey(five, six);

  private Topology placement(String servers) {
    Router r = RouterSpec.of("hrw").build(ServerList.parse(servers));
    Member[] ms = new Member[r.size()];
    for (int i = 0; i < ms.length; i++) {
      Node n = r.nodes().get(i);
      ms[i] = members.computeIfAbsent(Member.identity(n), id -> new Member(n, null));
    }
    return new Topology(r, HashTag.NONE, ms, null);
  }

  private static Transition change(Topology before, Topology after, long start) {
    TopologyChange c = new TopologyChange(before.nodes, after.nodes, List.of(), List.of(), 0.5, Instant.now(), Duration.ZERO);
    return new Transition(before, c, start, OPTIONS);
  }

  private static Member owner(Topology t, String key) {
    return t.members[t.primary(key)];
  }

  /** The key's only replica in the placement that serves it. */
  private static Member servingNode(Moves.Move move, String key) {
    assertThat(move.serving().replicas).isEqualTo(1);
    return owner(move.serving(), key);
  }

  /** {@code members} without {@code m}: the nodes a write taken by {@code m} deletes or marks. */
  private static List<Member> besides(Member[] members, Member m) {
    return java.util.Arrays.stream(members).filter(x -> x != m).toList();
  }

  /** A key that {@code before} and {@code after} put on different servers. */
  private static String movedKey(Topology before, Topology after) {
    for (int i = 0; ; i++) {
      if (owner(before, "k" + i) != owner(after, "k" + i)) {
        return "k" + i;
      }
    }
  }

  @Test
  void withoutHistoryThereIsNothingToDecide() {
    assertThat(Moves.route(placement("a:1,b:2,c:3"), "k", 0)).isNull();
  }

  @Test
  void aSettlingKeyIsServedByThePreviousPlacementAndItsWritesClearTheNewOwner() {
    Topology t = added;
    String key = moved;
    Moves.Move move = Moves.route(t, key, SETTLE - 1);
    assertThat(move.serving()).isNotSameAs(t);
    assertThat(servingNode(move, key)).isSameAs(owner(five, key));
    assertThat(move.sources()).isEmpty();
    assertThat(move.clears()).containsExactly(owner(six, key));
    assertThat(move.copies()).isFalse();
  }

  @Test
  void aWarmingKeyIsReadOnItsNewOwnerThenItsPreviousOneWhichItsWritesClear() {
    Topology t = added;
    String key = moved;
    Moves.Move early = Moves.route(t, key, SETTLE);
    assertThat(early.serving()).isSameAs(t);
    assertThat(servingNode(early, key)).isSameAs(owner(six, key));
    assertThat(early.sources()).containsExactly(owner(five, key));
    assertThat(early.clears()).containsExactly(owner(five, key));
    assertThat(early.formerOwners()).isEmpty();
    assertThat(early.copies()).as("no copy in the first settle of warming").isFalse();
    assertThat(Moves.route(t, key, 2 * SETTLE).copies()).isTrue();
  }

  @Test
  void afterTheWarmUpThePreviousOwnerIsOnlyMarked() {
    Topology t = added;
    String key = moved;
    Moves.Move move = Moves.route(t, key, SETTLE + WARM);
    assertThat(move.sources()).isEmpty();
    assertThat(move.clears()).isEmpty();
    assertThat(move.formerOwners()).containsExactly(owner(five, key));
    assertThat(t.readsHistory(SETTLE + WARM)).isFalse();
    assertThat(t.readsHistory(SETTLE + WARM - 1)).isTrue();
  }

  @Test
  void aKeyThatDidNotMoveTouchesNothingElse() {
    Topology t = added;
    String key = null;
    for (int i = 0; key == null; i++) {
      key = owner(five, "k" + i) == owner(six, "k" + i) ? "k" + i : null;
    }
    for (long now : new long[] {0, SETTLE, SETTLE + WARM}) {
      Moves.Move move = Moves.route(t, key, now);
      assertThat(move.plain(t)).as("at %d", now).isTrue();
    }
  }

  @Test
  void chainedChangesReadEveryPreviousOwnerStillWarmingMostRecentFirst() {
    Topology a = placement("a:1,b:2,c:3");
    Topology b = placement("a:1,b:2,c:3,d:4");
    Topology c = placement("a:1,b:2,c:3,d:4,e:5");
    String key = null;
    for (int i = 0; key == null; i++) {
      String k = "k" + i;
      boolean distinct = owner(a, k) != owner(b, k) && owner(b, k) != owner(c, k) && owner(a, k) != owner(c, k);
      key = distinct ? k : null;
    }
    // b came 2 SETTLE after a -> b; both warm at 3 SETTLE.
    Topology t = c.withHistory(new Transition[] {change(b, c, 2 * SETTLE), change(a, b, 0)});
    Moves.Move move = Moves.route(t, key, 3 * SETTLE);
    assertThat(move.sources()).containsExactly(owner(b, key), owner(a, key));
    assertThat(move.clears()).containsExactly(owner(b, key), owner(a, key));
    // While the second change settles, the key is served as under b, warmed from a, and cleared on c.
    Moves.Move settling = Moves.route(t, key, 2 * SETTLE);
    assertThat(servingNode(settling, key)).isSameAs(owner(b, key));
    assertThat(settling.sources()).containsExactly(owner(a, key));
    assertThat(settling.clears()).containsExactly(owner(c, key), owner(a, key));
    // Once the first change is only remembered, its previous owner is marked.
    Moves.Move later = Moves.route(t, key, SETTLE + WARM + 1);
    assertThat(later.sources()).containsExactly(owner(b, key));
    assertThat(later.formerOwners()).containsExactly(owner(a, key));
  }

  @Test
  void aReversedChangeMarksTheServerThatHeldTheKeyInBetween() {
    String key = moved;
    // five -> six at 0, six -> five (the same placement as before) at 100 WARM.
    Topology back = five.withHistory(new Transition[] {change(six, five, 100 * WARM)});
    Moves.Move move = Moves.route(back, key, 100 * WARM + SETTLE + WARM);
    assertThat(move.formerOwners()).containsExactly(owner(six, key));
    Moves.Move warming = Moves.route(back, key, 100 * WARM + SETTLE);
    assertThat(warming.sources()).containsExactly(owner(six, key));
  }

  @Test
  void whileAReversalSettlesAKeyMovingBackIsReadOnTheServerThatHeldItBeforeAfterAMiss() {
    String key = moved;
    // five -> six at 0, six -> five when its settle ends (the reversal waited for it), the first
    // change still warming; and the same reversal once the first change is only remembered.
    for (long at : new long[] {SETTLE, SETTLE + WARM / 2, 2 * (SETTLE + WARM)}) {
      Topology back = five.withHistory(new Transition[] {change(six, five, at), change(five, six, 0)});
      Moves.Move settling = Moves.route(back, key, at + SETTLE - 1);
      assertThat(settling.serving()).as("at %d", at).isNotSameAs(back);
      assertThat(servingNode(settling, key)).isSameAs(owner(six, key));
      assertThat(settling.sources()).as("at %d", at).containsExactly(owner(five, key));
      assertThat(settling.clears()).containsExactly(owner(five, key));
      assertThat(settling.copies()).isFalse();
      Moves.Move warming = Moves.route(back, key, at + SETTLE);
      assertThat(servingNode(warming, key)).isSameAs(owner(five, key));
      assertThat(warming.sources()).containsExactly(owner(six, key));
    }
    // A change that only adds a server: its new owner held nothing before and is not read.
    assertThat(Moves.route(added, key, SETTLE - 1).sources()).isEmpty();
  }

  @Test
  void theServerThatTakesTheWriteIsNeverAmongItsDeletes() {
    Topology t = added;
    String key = moved;
    Moves.Move move = Moves.route(t, key, SETTLE);
    Member previous = owner(five, key);
    // The new owner is out and the write fails over to the previous owner: nothing is deleted there.
    assertThat(besides(move.clears(), previous)).isEmpty();
    assertThat(besides(move.clears(), owner(six, key))).containsExactly(previous);
    Moves.Move remembered = Moves.route(t, key, SETTLE + WARM);
    assertThat(besides(remembered.formerOwners(), previous)).isEmpty();
  }
}
