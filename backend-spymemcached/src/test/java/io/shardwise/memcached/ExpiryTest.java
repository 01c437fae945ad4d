package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ExpiryTest {

  private static final long NOW = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond();

  @Test
  void zeroMeansNoExpiry() {
    assertThat(Expiry.exptime(Duration.ZERO, NOW)).isZero();
  }

  @Test
  void partialSecondsRoundUp() {
    assertThat(Expiry.exptime(Duration.ofNanos(1), NOW)).isEqualTo(1);
    assertThat(Expiry.exptime(Duration.ofMillis(999), NOW)).isEqualTo(1);
    assertThat(Expiry.exptime(Duration.ofSeconds(1), NOW)).isEqualTo(1);
    assertThat(Expiry.exptime(Duration.ofMillis(1001), NOW)).isEqualTo(2);
    assertThat(Expiry.exptime(Duration.ofMinutes(5), NOW)).isEqualTo(300);
  }

  @Test
  void upToThirtyDaysIsSentAsSecondsFromNow() {
    assertThat(Expiry.exptime(Duration.ofDays(30), NOW)).isEqualTo(2_592_000);
    assertThat(Expiry.exptime(Duration.ofDays(30).minusMillis(1), NOW)).isEqualTo(2_592_000);
  }

  @Test
  void beyondThirtyDaysIsSentAsAnAbsoluteUnixTime() {
    assertThat(Expiry.exptime(Duration.ofDays(30).plusMillis(1), NOW))
        .isEqualTo((int) (NOW + 2_592_001));
    assertThat(Expiry.exptime(Duration.ofDays(31), NOW)).isEqualTo((int) (NOW + 31 * 86_400));
    assertThat(Expiry.exptime(Duration.ofDays(365), NOW)).isEqualTo((int) (NOW + 365 * 86_400));
  }

  @Test
  void absoluteTimesAfter2038AreCappedAtTheLargestSigned32BitTime() {
    assertThat(Expiry.exptime(Duration.ofDays(365 * 100), NOW)).isEqualTo(Integer.MAX_VALUE);
    assertThat(Expiry.exptime(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999), NOW))
        .isEqualTo(Integer.MAX_VALUE);
    assertThat(Expiry.exptime(Duration.ofSeconds(Integer.MAX_VALUE - NOW - 1), NOW))
        .isEqualTo(Integer.MAX_VALUE - 1);
  }

  @Test
  void negativeTtlIsRejectedWithTheValue() {
    assertThatThrownBy(() -> Expiry.exptime(Duration.ofSeconds(-3), NOW))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ttl must be >= 0 (0 = no expiry) but was PT-3S");
  }
}
