package io.shardwise.core.internal.change;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CachedValue;
import io.shardwise.client.ClientMetrics;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.health.Sender;
import io.shardwise.routing.Node;
import io.shardwise.spi.NodeConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The copy protocol's rule for a read that may copy what it reads: see {@link WarmUp}. */
class WarmUpTest {

  private static final WarmUp.CopyRequests REQUESTS = new WarmUp.CopyRequests("ttl", "add", "undo");
  private static final CachedValue VALUE = CachedValue.of("v1".getBytes(StandardCharsets.UTF_8), 0);

  private final WarmUp warmUp = new WarmUp(Duration.ofSeconds(10), new ClientMetrics() {}, null);
  private final Member a = new Member(Node.of("a", 1), null);
  private final Member b = new Member(Node.of("b", 2), null);
  private final Member c = new Member(Node.of("c", 3), null);
  /** The reply to the first copy's add: held until the test completes it. */
  private final CompletableFuture<Boolean> firstAdd = new CompletableFuture<>();
  private final List<String> sent = new ArrayList<>();

  private final Sender sender =
      new Sender() {
        @Override
        @SuppressWarnings("unchecked")
        public <T> CompletableFuture<T> send(Member m, String operation, Function<NodeConnection, CompletableFuture<T>> op) {
          sent.add(operation + " " + m.node.name());
          return switch (operation) {
            case "ttl" -> (CompletableFuture<T>) CompletableFuture.completedFuture((Duration) null);
            case "add" -> sent.size() == 2 ? (CompletableFuture<T>) firstAdd : (CompletableFuture<T>) CompletableFuture.completedFuture(Boolean.TRUE);
            default -> (CompletableFuture<T>) CompletableFuture.completedFuture(Boolean.TRUE);
          };
        }
      };

  private CompletableFuture<Boolean> copy(long generation, Member from, Member to) {
    return warmUp.copy("k", VALUE, generation, from, to, sender, REQUESTS, ttl -> Duration.ofSeconds(10), m -> {});
  }

  @Test
  void aReadThatBeginsWhileACopyOfItsKeyIsUnderWayCopiesNothingOn() {
    CompletableFuture<Boolean> first = copy(warmUp.readGeneration("k"), a, b);
    assertThat(sent).containsExactly("ttl a:1", "add b:2");

    // b may now hold the copy, which a write of the key could still undo: a read that begins now,
    // and reads it there, copies nothing on, even once the write has moved the generation for the
    // last time.
    long during = warmUp.readGeneration("k");
    assertThat(during).isEqualTo(WarmUp.NO_COPY);
    assertThat(copy(during, b, c)).isCompletedWithValue(false);
    assertThat(sent).as("nothing sent for the second copy").containsExactly("ttl a:1", "add b:2");
    assertThat(warmUp.readGeneration("another key")).isEqualTo(warmUp.generation("another key"));

    firstAdd.complete(true);
    assertThat(first).isCompletedWithValue(true);
    long after = warmUp.readGeneration("k");
    assertThat(after).isEqualTo(warmUp.generation("k"));
    assertThat(copy(after, b, c)).isCompletedWithValue(true);
    assertThat(sent).containsExactly("ttl a:1", "add b:2", "ttl b:2", "add c:3");
  }

  @Test
  void eachCopyThatEndsIsToldWhenItsAddHasAnswered() {
    List<String> ended = new ArrayList<>();
    warmUp.onCopyEnded(ended::add);
    CompletableFuture<Boolean> first = copy(warmUp.readGeneration("k"), a, b);
    assertThat(ended).as("the add has not answered").isEmpty();
    firstAdd.complete(true);
    assertThat(first).isCompletedWithValue(true);
    assertThat(ended).containsExactly("k");
  }
}
