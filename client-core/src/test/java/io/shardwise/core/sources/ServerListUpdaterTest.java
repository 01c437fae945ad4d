package io.shardwise.core.sources;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.TopologyChange;
import io.shardwise.routing.Node;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ServerListUpdaterTest {

  private static final Node A = Node.of("127.0.0.1", 1);
  private static final Node B = Node.of("127.0.0.1", 2);
  private static final Node C = Node.of("127.0.0.1", 3);

  private final FakeTopology fleet = new FakeTopology(List.of(A, B));
  private final ServerListUpdater updater = fleet.updater();

  @Test
  void aNewListIsAppliedAndTheSameListIsSkipped() {
    assertThat(updater.offer("test", List.of(A, B)).join()).isEmpty();
    assertThat(fleet.calls()).as("the list in force is not offered").isEmpty();

    Optional<TopologyChange> change = updater.offer("test", List.of(A, B, C)).join();
    assertThat(change.orElseThrow().added()).containsExactly(C);
    assertThat(fleet.current()).containsExactly(A, B, C);
    assertThat(updater.offer("test", List.of(A, B, C)).join()).isEmpty();
    assertThat(fleet.calls()).containsExactly(List.of(A, B, C));

    updater.offer("test", List.of(B, A, C)).join();
    assertThat(fleet.calls()).as("order matters to list-order routers").hasSize(2);
  }

  @Test
  void emptyAndDuplicateListsAreRefusedBeforeTheClientSeesThem() {
    assertThat(updater.offer("test", List.of()).join()).isEmpty();
    assertThat(updater.offer("test", List.of(A, C, A)).join()).isEmpty();
    assertThat(fleet.calls()).isEmpty();
    assertThat(fleet.current()).containsExactly(A, B);
    assertThat(updater.lastProblem())
        .hasValue(
            "test: server list must not name a server twice but 127.0.0.1:1 is entry 1 and"
                + " entry 3");
    assertThat(updater.warnings()).isEqualTo(2);
  }

  @Test
  void aListTheClientRefusesIsWarnedOnceAndNotOfferedAgainUntilItChanges() {
    fleet.answer = FakeTopology.Answer.REFUSE;
    for (int i = 0; i < 3; i++) {
      assertThat(updater.offer("dns name x:1", List.of(A, B, C)).join()).isEmpty();
    }
    assertThat(fleet.calls()).hasSize(1);
    assertThat(fleet.current()).containsExactly(A, B);
    assertThat(updater.warnings()).isEqualTo(1);
    assertThat(updater.lastProblem().orElseThrow())
        .isEqualTo(
            "dns name x:1: the client refused 3 servers: jump cannot route weighted servers");

    fleet.answer = FakeTopology.Answer.APPLY;
    assertThat(updater.offer("dns name x:1", List.of(A, C)).join()).isPresent();
    assertThat(updater.lastProblem()).isEmpty();
    assertThat(fleet.current()).containsExactly(A, C);
  }

  @Test
  void aFailedChangeIsOfferedAgainAtTheNextRead() {
    fleet.answer = FakeTopology.Answer.FAIL;
    updater.offer("test", List.of(A, B, C)).join();
    updater.offer("test", List.of(A, B, C)).join();
    assertThat(fleet.calls()).hasSize(2);
    assertThat(updater.warnings()).as("the same reason twice: one line").isEqualTo(1);
    fleet.answer = FakeTopology.Answer.APPLY;
    updater.offer("test", List.of(A, B, C)).join();
    assertThat(fleet.current()).containsExactly(A, B, C);
  }

  @Test
  void readFailuresAreWarnedOncePerDistinctReasonUntilAListIsReadAgain() {
    updater.refuse("dns name x:1", "cannot be resolved");
    updater.refuse("dns name x:1", "cannot be resolved");
    updater.refuse("dns name x:1", "resolved to no address");
    updater.refuse("dns name x:1", "cannot be resolved");
    assertThat(updater.warnings()).isEqualTo(2);
    assertThat(fleet.current()).containsExactly(A, B);

    updater.offer("dns name x:1", List.of(A, B)).join(); // read again, unchanged
    updater.refuse("dns name x:1", "cannot be resolved");
    assertThat(updater.warnings()).isEqualTo(3);
  }
}
