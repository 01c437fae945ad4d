package io.shardwise.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MultiResultTest {

  private static final ShardwiseException FAILED = new ShardwiseException("node down");

  @Test
  void partsKeepTheOrderTheKeysWereAddedIn() {
    MultiResult<String> r =
        MultiResult.<String>builder()
            .hit("k3", "v3")
            .miss("k2")
            .hit("k1", "v1")
            .error("k5", FAILED)
            .miss("k4")
            .hit("k0", null)
            .build();
    assertThat(r.values().keySet()).containsExactly("k3", "k1", "k0");
    assertThat(r.values()).containsEntry("k0", null);
    assertThat(r.misses()).containsExactly("k2", "k4");
    assertThat(r.errors()).containsOnlyKeys("k5");
    assertThat(r.keyCount()).isEqualTo(6);
  }

  @Test
  void aKeyReportedTwiceIsRefusedWhicheverPartsItIsIn() {
    for (List<String> parts :
        List.of(
            List.of("hit", "hit"), List.of("hit", "miss"), List.of("hit", "error"),
            List.of("miss", "hit"), List.of("miss", "miss"), List.of("miss", "error"),
            List.of("error", "hit"), List.of("error", "miss"), List.of("error", "error"))) {
      MultiResult.Builder<String> b = MultiResult.<String>builder().hit("other", "v");
      report(b, parts.get(0));
      assertThatThrownBy(() -> report(b, parts.get(1)))
          .as("%s", parts)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("key 'k' is reported twice");
    }
  }

  private static void report(MultiResult.Builder<String> b, String part) {
    switch (part) {
      case "hit" -> b.hit("k", "v");
      case "miss" -> b.miss("k");
      default -> b.error("k", FAILED);
    }
  }

  @Test
  void aBuilderBuildsOnce() {
    MultiResult.Builder<String> b = MultiResult.<String>builder().miss("k");
    b.build();
    assertThatThrownBy(b::build).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> b.miss("j")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void ofCopiesItsArgumentsAndChecksThemLikeTheBuilder() {
    Map<String, String> values = new LinkedHashMap<>(Map.of("a", "1"));
    Set<String> misses = new LinkedHashSet<>(Set.of("b"));
    MultiResult<String> r = MultiResult.of(values, misses, Map.of("c", FAILED));
    values.put("d", "4");
    misses.add("e");
    assertThat(r.keyCount()).isEqualTo(3);
    assertThat(r).isEqualTo(MultiResult.<String>builder().hit("a", "1").miss("b").error("c", FAILED).build());
    assertThatThrownBy(() -> MultiResult.of(Map.of("a", "1"), Set.of("a"), Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> r.values().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
  }
}
