package io.shardwise.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class InsertionOrderMapTest {

  @Test
  void readsLikeALinkedHashMapOfTheSameEntriesWhateverItsStartingRoom() {
    SplittableRandom random = new SplittableRandom(7);
    for (int expected : new int[] {0, 1, 3, 100, 5000}) {
      for (int n : new int[] {0, 1, 2, 5, 13, 100, 1000, 4099}) {
        InsertionOrderMap<String> map = new InsertionOrderMap<>(expected);
        Map<String, String> reference = new LinkedHashMap<>();
        while (reference.size() < n) {
          String key = "k" + random.nextInt(1_000_000);
          String value = random.nextInt(10) == 0 ? null : "v" + key;
          boolean added = map.add(key, value);
          assertThat(added).isEqualTo(!reference.containsKey(key));
          if (added) {
            reference.put(key, value); // not putIfAbsent, which replaces a null value
          }
        }
        assertThat(map.size()).isEqualTo(n);
        assertThat(map.isEmpty()).isEqualTo(n == 0);
        assertThat(new ArrayList<>(map.keySet())).isEqualTo(new ArrayList<>(reference.keySet()));
        assertThat(new ArrayList<>(map.values())).isEqualTo(new ArrayList<>(reference.values()));
        assertThat(new ArrayList<>(map.entrySet())).isEqualTo(new ArrayList<>(reference.entrySet()));
        List<String> seen = new ArrayList<>();
        map.forEach((k, v) -> seen.add(k + "=" + v));
        assertThat(seen).hasSize(n);
        assertThat(map).isEqualTo(reference);
        assertThat(reference).isEqualTo(map);
        assertThat(map.hashCode()).isEqualTo(reference.hashCode());
        assertThat(map.keySet()).isEqualTo(reference.keySet());
        for (String key : reference.keySet()) {
          assertThat(map.get(key)).isEqualTo(reference.get(key));
          assertThat(map.containsKey(key)).isTrue();
          assertThat(map.keySet().contains(key)).isTrue();
          // another String object with the same characters
          assertThat(map.containsKey(new String(key.toCharArray()))).isTrue();
        }
        for (int i = 0; i < 100; i++) {
          String absent = "a" + i;
          assertThat(map.containsKey(absent)).isFalse();
          assertThat(map.get(absent)).isNull();
        }
      }
    }
  }

  @Test
  void keysOfTheSameHashAreKeptApart() {
    // "Aa" and "BB" have the same String.hashCode, and so do all their concatenations.
    List<String> keys = List.of("AaAa", "AaBB", "BBAa", "BBBB", "Aa", "BB");
    InsertionOrderMap<Integer> map = new InsertionOrderMap<>(2);
    for (int i = 0; i < keys.size(); i++) {
      assertThat(map.add(keys.get(i), i)).isTrue();
    }
    assertThat(map.add("BBAa", 9)).isFalse();
    for (int i = 0; i < keys.size(); i++) {
      assertThat(map.get(keys.get(i))).isEqualTo(i);
    }
    assertThat(map.keySet()).containsExactlyElementsOf(keys);
  }

  @Test
  void anythingButAStringKeyIsAbsentAndItCannotBeChangedFromOutside() {
    InsertionOrderMap<String> map = new InsertionOrderMap<>(4);
    map.add("k", "v");
    assertThat(map.get(null)).isNull();
    assertThat(map.containsKey(null)).isFalse();
    assertThat(map.containsKey(1)).isFalse();
    assertThat(map.containsValue("v")).isTrue();
    assertThat(map.toString()).isEqualTo("{k=v}");
    assertThatThrownBy(() -> map.put("j", "w")).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> map.keySet().iterator().remove()).isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> map.entrySet().iterator().next().setValue("w"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
