package io.shardwise.core.internal.exec;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.MultiResult;
import io.shardwise.client.ShardwiseException;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A multi-key write's outcome per key, when one result is copied into another. */
class MultiWritesTest {

  @Test
  void aKeyThePartLeftOutFailsAndIsNeverCountedAsWritten() {
    MultiResult<Boolean> part =
        MultiResult.of(Map.of("written", true), Set.of(), Map.of("failed", new ShardwiseException("refused")));
    MultiResult.Builder<Boolean> into = MultiResult.builder(3);
    for (String key : new String[] {"written", "failed", "left-out"}) {
      MultiWrites.copyOutcome(part, key, into);
    }
    MultiResult<Boolean> result = into.build();
    assertThat(result.values()).containsOnlyKeys("written");
    assertThat(result.errors()).containsOnlyKeys("failed", "left-out");
    assertThat(result.errors().get("failed")).hasMessage("refused");
    assertThat(result.errors().get("left-out")).hasMessageContaining("not known to be written");
  }
}
