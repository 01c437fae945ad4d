package io.shardwise.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class DistinctKeysTest {

  @Test
  void holdsWhatALinkedHashSetOfTheSameKeysHolds() {
    SplittableRandom random = new SplittableRandom(11);
    for (int n : new int[] {0, 1, 2, 3, 16, 100, 1000, 5003}) {
      for (int range : new int[] {n / 4 + 1, n + 1, 10 * n + 1}) {
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          keys.add("k" + random.nextInt(range));
        }
        Set<String> reference = new LinkedHashSet<>(keys);
        DistinctKeys distinct = DistinctKeys.of(keys.toArray(new String[0]));
        assertThat(distinct).hasSize(reference.size());
        assertThat(new ArrayList<>(distinct)).isEqualTo(new ArrayList<>(reference));
        assertThat(distinct).isEqualTo(reference);
        assertThat(distinct.hashCode()).isEqualTo(reference.hashCode());
        for (String key : keys) {
          assertThat(distinct.contains(new String(key.toCharArray()))).isTrue();
        }
        for (int i = 0; i < 50; i++) {
          assertThat(distinct.contains("absent" + i)).isFalse();
        }
        assertThat(distinct.contains(null)).isFalse();
        assertThat(distinct.contains(7)).isFalse();
      }
    }
  }

  @Test
  void keysOfTheSameHashAreKeptApart() {
    // "Aa" and "BB" have the same String.hashCode, and so do all their concatenations.
    String[] keys = {"AaAa", "AaBB", "BBAa", "AaAa", "BBBB", "BBAa", "Aa", "BB"};
    DistinctKeys distinct = DistinctKeys.of(keys);
    assertThat(distinct).containsExactly("AaAa", "AaBB", "BBAa", "BBBB", "Aa", "BB");
    assertThat(distinct.contains("BBBB")).isTrue();
    assertThat(distinct.contains("AAAA")).isFalse();
  }
}
