package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.CachedValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MgetReplyTest {

  @Test
  void holdsWhatAHashMapOfTheHitsHolds() {
    SplittableRandom random = new SplittableRandom(3);
    for (int n : new int[] {0, 1, 2, 7, 100, 1000}) {
      for (int range : new int[] {n / 3 + 1, 100 * n + 1}) {
        List<String> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        Map<String, CachedValue> reference = new HashMap<>();
        Map<String, byte[]> stored = new HashMap<>();
        for (int i = 0; i < n; i++) {
          String key = "k" + random.nextInt(range);
          // a key asked twice gets the same answer twice, as from one MGET
          if (!stored.containsKey(key)) {
            stored.put(key, random.nextInt(4) == 0 ? null : ("v" + key).getBytes(StandardCharsets.UTF_8));
          }
          byte[] value = stored.get(key);
          keys.add(key);
          values.add(value);
          if (value != null) {
            reference.put(key, CachedValue.of(value, 0));
          }
        }
        MgetReply reply = new MgetReply(keys, values);
        assertThat(reply).isEqualTo(reference);
        assertThat(reference).isEqualTo(reply);
        assertThat(reply.hashCode()).isEqualTo(reference.hashCode());
        assertThat(reply.size()).isEqualTo(reference.size());
        assertThat(reply.isEmpty()).isEqualTo(reference.isEmpty());
        assertThat(reply.entrySet()).hasSize(reference.size());
        assertThat(new HashMap<>(reply)).isEqualTo(reference);
        for (String key : keys) {
          assertThat(reply.containsKey(key)).isEqualTo(reference.containsKey(key));
          assertThat(reply.get(new String(key.toCharArray()))).isEqualTo(reference.get(key));
        }
        assertThat(reply.get("absent")).isNull();
        assertThat(reply.containsKey(null)).isFalse();
        assertThat(reply.get(42)).isNull();
      }
    }
  }

  @Test
  void keysOfTheSameHashAreKeptApart() {
    // "Aa" and "BB" have the same String.hashCode.
    byte[] a = {1};
    byte[] b = {2};
    MgetReply reply = new MgetReply(List.of("Aa", "BB", "AaBB"), Arrays.asList(a, b, null));
    assertThat(reply.get("Aa")).isEqualTo(CachedValue.of(a, 0));
    assertThat(reply.get("BB")).isEqualTo(CachedValue.of(b, 0));
    assertThat(reply.containsKey("AaBB")).isFalse();
    assertThat(reply).containsOnlyKeys("Aa", "BB");
  }

  @Test
  void itIsReadOnlyAndRefusesAReplyOfAnotherLength() {
    MgetReply reply = new MgetReply(List.of("k"), List.of(new byte[] {1}));
    assertThatThrownBy(() -> reply.put("j", CachedValue.of(new byte[0], 0)))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThatThrownBy(() -> new MgetReply(List.of("k", "j"), List.of(new byte[] {1})))
        .isInstanceOf(IllegalStateException.class);
  }
}
