package io.shardwise.core.internal.spill;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.Codecs;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.health.Sender;
import io.shardwise.routing.Node;
import io.shardwise.routing.Router;
import io.shardwise.spi.NodeConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The registry of spilled copies when it is full: a record the sweep forgets (it had no copy yet)
 * while a read is about to leave a copy for it must not get that copy, since no write would find
 * the copy to delete it.
 */
class SpillRegistryTest {

  private final List<String> sent = new CopyOnWriteArrayList<>();
  private final Sender sender =
      new Sender() {
        @Override
        public <T> CompletableFuture<T> send(
            Member m, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
          sent.add(operation + " " + m);
          return CompletableFuture.completedFuture(null);
        }
      };

  @Test
  void aRecordForgottenByTheSweepLeavesNoCopy() {
    List<Node> nodes = List.of(Node.of("a", 1), Node.of("b", 2), Node.of("c", 3));
    Router router = RouterSpec.DEFAULT.build(nodes);
    AtomicLong clock = new AtomicLong(1_000_000_000L);
    BoundedOptions options =
        BoundedOptions.builder().enabled(true).scope(BoundedOptions.Scope.ALL).maxSpilledKeys(1).build();
    BoundedReads reads = new BoundedReads(router, options, clock::get, i -> true, null);
    Member b = new Member(nodes.get(1), null);

    BoundedReads.Spill first = reads.spillFor("k1");
    long generation = first.generation.get();
    BoundedReads.Spill second = reads.spillFor("k2"); // full: the sweep forgets k1, which has no copy
    assertThat(second).isNotNull().isNotSameAs(first);
    assertThat(reads.spilled("k1")).as("k1 forgotten").isNull();

    reads.leaveCopy(first, generation, "k1", b, Codecs.utf8().encode("v"), sender);
    assertThat(sent).as("a copy for a forgotten record").isEmpty();

    reads.leaveCopy(second, second.generation.get(), "k2", b, Codecs.utf8().encode("v"), sender);
    assertThat(sent).containsExactly("addCopy b:2");
    assertThat(reads.spilled("k2").copies).containsExactly(b);
  }
}
