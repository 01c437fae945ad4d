package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.CachedValue;
import org.junit.jupiter.api.Test;

class ItemSizeLimitTest {

  /** Largest values measured on memcached 1.6.18 (text and binary protocols alike). */
  @Test
  void theRuleGivesTheLargestValuesMeasuredOnARealServer() {
    ItemSizeLimit.Settings defaults = ItemSizeLimit.Settings.DEFAULTS;
    assertThat(defaults.maxValueBytes(1, 0)).isEqualTo(1_048_516);
    assertThat(defaults.maxValueBytes(1, 7)).isEqualTo(1_048_512);
    assertThat(defaults.maxValueBytes(250, 0)).isEqualTo(1_048_267);
    assertThat(defaults.maxValueBytes(250, 7)).isEqualTo(1_048_263);
    ItemSizeLimit.Settings twoMegabytesWithoutCas =
        new ItemSizeLimit.Settings(2 * 1024 * 1024, false, "test", true);
    assertThat(twoMegabytesWithoutCas.maxValueBytes(1, 0)).isEqualTo(2_097_100);
    assertThat(twoMegabytesWithoutCas.maxValueBytes(250, 7)).isEqualTo(2_096_847);
  }

  @Test
  void valuesAreCheckedAgainstTheSmallestServerAndForgottenServersNoLongerCount() {
    ItemSizeLimit limit = new ItemSizeLimit();
    assertThat(limit.smallest()).isEqualTo(ItemSizeLimit.Settings.DEFAULTS);
    Object small = new Object();
    Object large = new Object();
    limit.add(small);
    limit.add(large);
    assertThat(limit.smallest()).isEqualTo(ItemSizeLimit.Settings.DEFAULTS);

    CachedValue value = CachedValue.of(new byte[1_048_517], 0);
    assertThatThrownBy(() -> limit.check("k", value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "memcached stores values of at most 1048516 bytes under a 1-byte key with flags 0"
                + " (item size 1048576 of memcached's default less 60 bytes of item header, key,"
                + " flags, CRLF and CAS); got 1048517 for k");
    assertThatCode(() -> limit.check("k", CachedValue.of(new byte[1_048_516], 0)))
        .doesNotThrowAnyException();
    // A 2-byte character counts as 2 bytes of key.
    assertThatThrownBy(() -> limit.check("é", CachedValue.of(new byte[1_048_516], 0)))
        .hasMessageStartingWith("memcached stores values of at most 1048515 bytes under a 2-byte key");

    limit.remove(small);
    limit.remove(large);
    assertThat(limit.smallest()).isEqualTo(ItemSizeLimit.Settings.DEFAULTS);
  }
}
