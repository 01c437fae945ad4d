package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class MetaTtlOperationTest {

  @Test
  void readsTheTimeLeftFromAMetaGetReply() {
    assertThat(MetaTtlOperation.remaining("HD t100")).isEqualTo(Duration.ofSeconds(100));
    assertThat(MetaTtlOperation.remaining("OK t7")).as("memcached 1.6's first meta replies").isEqualTo(Duration.ofSeconds(7));
    assertThat(MetaTtlOperation.remaining("HD t-1")).as("no expiry").isEqualTo(Duration.ZERO);
    assertThat(MetaTtlOperation.remaining("HD t0")).as("about to expire").isEqualTo(Duration.ofSeconds(1));
    assertThat(MetaTtlOperation.remaining("EN")).isSameAs(MetaTtlOperation.ABSENT);
    assertThat(MetaTtlOperation.remaining("ERROR")).as("no meta commands").isNull();
    assertThat(MetaTtlOperation.remaining("HD")).as("no t flag in the reply").isNull();
    assertThat(MetaTtlOperation.remaining("HD tx")).isNull();
  }

  @Test
  void aServerHasMetaCommandsFromMemcached16On() {
    assertThat(ItemSizeLimit.hasMetaCommands("VERSION 1.6.18")).isTrue();
    assertThat(ItemSizeLimit.hasMetaCommands("VERSION 1.10.0")).isTrue();
    assertThat(ItemSizeLimit.hasMetaCommands("VERSION 2.0")).isTrue();
    assertThat(ItemSizeLimit.hasMetaCommands("VERSION 1.5.22")).isFalse();
    assertThat(ItemSizeLimit.hasMetaCommands("VERSION 1.4.25-debian")).isFalse();
    assertThat(ItemSizeLimit.hasMetaCommands("ERROR")).isFalse();
    assertThat(ItemSizeLimit.hasMetaCommands("VERSION twemproxy")).isFalse();
  }
}
