package io.shardwise.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HashTagTest {

  private final HashTag braces = HashTag.of("{}");
  private final KeyHasher hasher = Murmur3.INSTANCE;

  @Test
  void hashesOnlyTheFirstTag() {
    assertThat(braces.routingKey("{user:42}:profile")).isEqualTo("user:42");
    assertThat(braces.routingKey("a{b}c{d}")).isEqualTo("b");
    assertThat(braces.routingKey("x}{y}z")).isEqualTo("y");
    assertThat(braces.hash(hasher, "{user:42}:profile")).isEqualTo(hasher.hash("user:42"));
    assertThat(braces.hash(hasher, "{user:42}:cart")).isEqualTo(hasher.hash("user:42"));
  }

  @Test
  void emptyOrUnclosedTagsHashTheWholeKey() {
    for (String key : new String[] {"{}x", "{x", "x}", "plain", "", "{}{a}"}) {
      assertThat(braces.routingKey(key)).as(key).isEqualTo(key);
      assertThat(braces.hash(hasher, key)).as(key).isEqualTo(hasher.hash(key));
    }
  }

  @Test
  void bytesAndStringsSelectTheSameTag() {
    for (String key : new String[] {"{ключ}:1", "é{a}", "{}x", "{x", "a{é}b{c}"}) {
      byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
      assertThat(braces.hash(hasher, bytes)).as(key).isEqualTo(braces.hash(hasher, key));
    }
  }

  @Test
  void noneHashesTheWholeKey() {
    assertThat(HashTag.of("").isEnabled()).isFalse();
    assertThat(HashTag.NONE.hash(hasher, "{a}b")).isEqualTo(hasher.hash("{a}b"));
  }

  @Test
  void rejectsBadPairs() {
    assertThatThrownBy(() -> HashTag.of("{"))
        .hasMessage(
            "hash tag must be two characters, the opening and the closing one (e.g. {}), but was '{'");
    assertThatThrownBy(() -> HashTag.of("{{"))
        .hasMessage("hash tag must be two distinct printable ASCII characters but was '{{'");
    assertThatThrownBy(() -> HashTag.of("«»"))
        .hasMessage("hash tag must be two distinct printable ASCII characters but was '«»'");
  }
}
