package io.shardwise.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BatchReplyTest {

  @Test
  void aKeyIsConfirmedOnlyWhenTheReplyHasAValueForItAndNoFailure() {
    IOException lost = new IOException("no reply");
    BatchReply<Boolean> reply = BatchReply.of(Map.of("a", true, "b", false), Map.of("c", lost));

    assertThat(reply.confirmed("a")).isTrue();
    assertThat(reply.confirmed("b")).as("deleted, though absent").isTrue();
    assertThat(reply.confirmed("c")).isFalse();
    assertThat(reply.confirmed("never-asked")).as("silence is not a confirmation").isFalse();
    assertThat(reply.failure("c")).isSameAs(lost);
    assertThat(reply.failure("a")).isNull();
    assertThat(reply.failures()).containsOnlyKeys("c");
    assertThat(reply.hasFailures()).isTrue();
  }

  @Test
  void theValueOfAKeyThatFailedCannotBeReadAsAMiss() {
    BatchReply<String> reply = BatchReply.of(Map.of("hit", "v"), Map.of("failed", new IOException("timeout")));

    assertThat(reply.value("hit")).isEqualTo("v");
    assertThat(reply.value("miss")).isNull();
    assertThatThrownBy(() -> reply.value("failed"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("the request for this key failed: failed")
        .hasCauseInstanceOf(IOException.class);
  }

  @Test
  void aKeyCannotBothHaveAValueAndHaveFailed() {
    assertThatThrownBy(() -> BatchReply.of(Map.of("k", true), Map.of("k", new IOException("x"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key has both a value and a failure: k");
  }

  @Test
  void aReplyWithoutFailuresAnsweredEveryKey() {
    BatchReply<Boolean> reply = BatchReply.of(Map.of("a", true));

    assertThat(reply.hasFailures()).isFalse();
    assertThat(reply.failures()).isEmpty();
    assertThat(reply.values()).containsExactly(Map.entry("a", true));
    assertThat(BatchReply.<Boolean>empty().values()).isEmpty();
    assertThat(reply).hasToString("BatchReply[1 values, 0 failed]");
  }
}
