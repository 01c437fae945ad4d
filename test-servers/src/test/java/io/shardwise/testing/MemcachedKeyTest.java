package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MemcachedKeyTest {

  @Test
  void acceptsKeysUpTo250BytesIncludingMultibyteCharacters() {
    assertThatCode(() -> MemcachedTextClient.checkKey("k".repeat(250))).doesNotThrowAnyException();
    assertThatCode(() -> MemcachedTextClient.checkKey("clé:ü")).doesNotThrowAnyException();
  }

  @Test
  void rejectsALongKeyGivingItsLength() {
    assertThatThrownBy(() -> MemcachedTextClient.checkKey("user:" + "x".repeat(307)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("memcached keys are 1 to 250 bytes; got 312: user:");
  }

  @Test
  void rejectsEmptyKeysSpacesAndControlCharacters() {
    assertThatThrownBy(() -> MemcachedTextClient.checkKey(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MemcachedTextClient.checkKey("a b"))
        .hasMessageContaining("may not contain spaces");
    assertThatThrownBy(() -> MemcachedTextClient.checkKey("a\r\nflush_all"))
        .hasMessageContaining("control characters");
  }

  @Test
  void itemComparesByContentAndPrintsUnsignedFlags() {
    MemcachedItem item = new MemcachedItem(-1, "v".getBytes(StandardCharsets.UTF_8));
    assertThat(item).isEqualTo(new MemcachedItem(-1, new byte[] {'v'}));
    assertThat(item.toString()).contains("flags=4294967295").contains("1 bytes: v");
    assertThat(item.valueUtf8()).isEqualTo("v");
  }
}
