package io.shardwise.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.ShardwiseException;
import io.shardwise.routing.Node;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A cache's generation, replicated on several nodes of an in-memory fleet. */
class GenerationTest {

  private static final String BASE = "books:generation";

  private final FakeFleet fleet = new FakeFleet(5);

  private Generation process() {
    return new Generation(fleet, BASE, Duration.ZERO);
  }

  private int nodeOf(Generation.Replica r) {
    return fleet.indexOf(r.node());
  }

  private long held(Generation.Replica r) {
    Long v = fleet.raw(nodeOf(r), r.key());
    return v == null ? -1 : v;
  }

  @Test
  void threeReplicasOnDistinctNodesAndEveryProcessPicksTheSame() {
    List<Generation.Replica> replicas = process().replicas();
    assertThat(replicas).hasSize(3);
    Set<Node> nodes = new HashSet<>();
    for (Generation.Replica r : replicas) {
      assertThat(r.key()).startsWith(BASE + "#");
      assertThat(fleet.nodeFor(r.key())).isEqualTo(r.node());
      assertThat(fleet.nodeFor(r.lockKey()))
          .as("the lock lives beside its replica")
          .isEqualTo(r.node());
      nodes.add(r.node());
    }
    assertThat(nodes).hasSize(3);
    assertThat(process().replicas()).isEqualTo(replicas);
    assertThat(new Generation(new FakeFleet(2), BASE, Duration.ZERO).replicas()).hasSize(2);
    assertThat(new Generation(new FakeFleet(1), BASE, Duration.ZERO).replicas()).hasSize(1);
  }

  @Test
  void theFirstReadCreatesOneGenerationFromTheClockOnEveryReplica() {
    long before = System.currentTimeMillis();
    Generation g = process();
    long first = g.current().join();
    assertThat(first).isGreaterThanOrEqualTo(Math.max(before, Generation.FLOOR));
    for (Generation.Replica r : g.replicas()) {
      assertThat(held(r)).isEqualTo(first);
      assertThat(fleet.raw(nodeOf(r), r.lockKey())).as("the creation lock is released").isNull();
    }
    assertThat(process().current().join()).as("another process reads it").isEqualTo(first);
  }

  @Test
  void losingAnyOneReplicaNodeKeepsTheGenerationAndAFreshProcessNeverMakesANewerOne() {
    long first = process().current().join();
    for (Generation.Replica r : process().replicas()) {
      int node = nodeOf(r);
      fleet.fail(node, false);
      assertThat(process().current().join()).as("node %d failing", node).isEqualTo(first);
      fleet.fail(node, true);
      assertThat(process().current().join()).as("node %d ejected", node).isEqualTo(first);
      fleet.restore(node, true);
      Generation fresh = process();
      assertThat(fresh.current().join()).as("node %d back empty", node).isEqualTo(first);
      fresh.awaitRepairs();
      assertThat(held(r)).as("the lost replica is put back").isEqualTo(first);
    }
  }

  @Test
  void aProcessThatKnowsTheGenerationPutsALostReplicaBackAtOnce() {
    Generation g = process();
    long first = g.current().join();
    Generation.Replica r = g.replicas().get(1);
    fleet.restore(nodeOf(r), true);
    assertThat(g.current().join()).isEqualTo(first);
    assertThat(held(r)).isEqualTo(first);
  }

  @Test
  void aClearDuringAnOutageIsKeptAndTheReplicaThatMissedItIsRaised() {
    Generation here = process();
    long first = here.current().join();
    for (Generation.Replica r : here.replicas()) {
      int node = nodeOf(r);
      fleet.fail(node, true);
      long cleared = here.advance().join();
      assertThat(cleared).isGreaterThan(first);
      assertThat(here.current().join()).isEqualTo(cleared);
      assertThat(held(r)).as("node %d missed the clear", node).isLessThan(cleared);
      fleet.restore(node, false);
      Generation other = process();
      assertThat(other.current().join()).as("node %d back behind", node).isEqualTo(cleared);
      other.awaitRepairs();
      assertThat(held(r)).as("raised").isEqualTo(cleared);
      first = cleared;
    }
  }

  @Test
  void concurrentClearsEachMakeANewGeneration() {
    Generation a = process();
    Generation b = process();
    long first = a.current().join();
    assertThat(b.current().join()).isEqualTo(first);
    long afterA = a.advance().join();
    long afterB = b.advance().join();
    assertThat(afterA).isEqualTo(first + 1);
    assertThat(afterB).isEqualTo(first + 2);
    assertThat(a.current().join()).isEqualTo(first + 2);
  }

  @Test
  void aReplicaIsRepairedByOneProcessAtATime() {
    long first = process().current().join();
    long cleared = process().advance().join();
    Generation.Replica r = process().replicas().get(0);
    int node = nodeOf(r);
    fleet.put(node, r.key(), first);
    fleet.put(node, r.lockKey(), 1); // another process is repairing it
    Generation p = process();
    assertThat(p.current().join()).isEqualTo(cleared);
    p.awaitRepairs();
    assertThat(held(r)).as("left to the lock's holder").isEqualTo(first);
    fleet.remove(node, r.lockKey());
    assertThat(p.current().join()).isEqualTo(cleared);
    p.awaitRepairs();
    assertThat(held(r)).isEqualTo(cleared);
    assertThat(fleet.raw(node, r.lockKey())).isNull();
  }

  @Test
  void placeholdersAreNotGenerations() {
    Generation g = process();
    Generation.Replica lost = g.replicas().get(2);
    long first = g.current().join();
    fleet.put(nodeOf(lost), lost.key(), 3); // a placeholder some clears advanced
    Generation fresh = process();
    assertThat(fresh.current().join()).isEqualTo(first);
    fresh.awaitRepairs();
    assertThat(held(lost)).isEqualTo(first);
  }

  @Test
  void aProcessNeverGoesBackAndRaisesTheFleetToWhatItKnows() {
    Generation g = process();
    long first = g.current().join();
    long cleared = g.advance().join();
    for (Generation.Replica r : g.replicas()) {
      fleet.put(nodeOf(r), r.key(), first); // every replica lost the clear (e.g. restored)
    }
    assertThat(g.current().join()).isEqualTo(cleared);
    g.awaitRepairs();
    for (Generation.Replica r : g.replicas()) {
      assertThat(held(r)).isEqualTo(cleared);
    }
  }

  @Test
  void aClearThatReachesOnlyReplicasBehindThisProcessStillMakesANewGeneration() {
    Generation g = process();
    long first = g.current().join();
    long cleared = g.advance().join();
    List<Generation.Replica> replicas = g.replicas();
    fleet.put(nodeOf(replicas.get(0)), replicas.get(0).key(), first);
    fleet.fail(nodeOf(replicas.get(1)), true);
    fleet.fail(nodeOf(replicas.get(2)), true);
    long again = g.advance().join();
    assertThat(again).isGreaterThan(cleared);
    assertThat(held(replicas.get(0))).isEqualTo(again);
  }

  @Test
  void failsOnlyWhenNoReplicaAnswers() {
    Generation g = process();
    long first = g.current().join();
    List<Generation.Replica> replicas = g.replicas();
    fleet.fail(nodeOf(replicas.get(0)), false);
    fleet.fail(nodeOf(replicas.get(1)), false);
    assertThat(g.current().join()).isEqualTo(first);
    fleet.fail(nodeOf(replicas.get(2)), false);
    assertThatThrownBy(() -> g.current().join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(ShardwiseException.class)
        .cause()
        .hasMessageContaining("no counter of the generation " + BASE + " answered")
        .hasMessageContaining(replicas.get(2).key());
    assertThatThrownBy(() -> g.advance().join()).hasCauseInstanceOf(ShardwiseException.class);
  }

  @Test
  void aProcessWaitsForAnotherOneCreatingTheGeneration() throws Exception {
    Generation g = process();
    List<Generation.Replica> replicas = g.replicas();
    Generation.Replica first = replicas.get(0);
    fleet.put(nodeOf(first), first.lockKey(), 1);
    long created = Generation.FLOOR + 12345;
    ScheduledExecutorService other = Executors.newSingleThreadScheduledExecutor();
    try {
      other.schedule(
          () -> {
            for (Generation.Replica r : replicas) {
              fleet.put(nodeOf(r), r.key(), created);
            }
          },
          200,
          TimeUnit.MILLISECONDS);
      assertThat(g.current().get(10, TimeUnit.SECONDS)).isEqualTo(created);
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void aGenerationIsReusedForTheRefreshAndOneReadServesConcurrentCallers() {
    Generation g = new Generation(fleet, BASE, Duration.ofHours(1));
    long first = g.current().join();
    int sent = fleet.requests.get();
    for (int i = 0; i < 10; i++) {
      assertThat(g.current().join()).isEqualTo(first);
    }
    assertThat(fleet.requests.get()).isEqualTo(sent);
    assertThat(g.advance().join()).isEqualTo(first + 1);
    assertThat(g.current().join()).as("its own clear at once").isEqualTo(first + 1);
  }
}
