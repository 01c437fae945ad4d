package io.shardwise.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class KeyBytesTest {

  @Test
  void encodesExactlyLikeStringGetBytesForRandomUtf16IncludingBrokenSurrogates() {
    SplittableRandom random = new SplittableRandom(7);
    byte[] dst = new byte[3 * 64];
    for (int trial = 0; trial < 20_000; trial++) {
      char[] chars = new char[random.nextInt(64)];
      for (int i = 0; i < chars.length; i++) {
        switch (random.nextInt(5)) {
          case 0 -> chars[i] = (char) random.nextInt(0x80);
          case 1 -> chars[i] = (char) random.nextInt(0x800);
          case 2 -> chars[i] = (char) (0xD800 + random.nextInt(0x800)); // surrogates, paired or not
          default -> chars[i] = (char) random.nextInt(0x10000);
        }
      }
      String s = new String(chars);
      int n = KeyBytes.encodeUtf8(s, 0, s.length(), dst, 0);
      assertThat(Arrays.copyOf(dst, n)).as("%s", Arrays.toString(chars))
          .isEqualTo(s.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void scratchGrowsAndLargeRequestsGetTheirOwnArray() {
    assertThat(KeyBytes.scratch(10).length).isGreaterThanOrEqualTo(10);
    byte[] big = KeyBytes.scratch(1 << 20);
    assertThat(big.length).isEqualTo(1 << 20);
    assertThat(KeyBytes.scratch(1 << 20)).isNotSameAs(big);
  }
}
