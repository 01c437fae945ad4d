package io.shardwise.routing;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Murmur3Test {

  private static final HashFunction GUAVA = Hashing.murmur3_128();

  @Test
  void equalsGuavaMurmur3OnBytesOfEveryLengthUpTo300() {
    SplittableRandom random = new SplittableRandom(42);
    for (int len = 0; len <= 300; len++) {
      for (int trial = 0; trial < 20; trial++) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
          b[i] = (byte) random.nextInt();
        }
        assertThat(Murmur3.INSTANCE.hash(b)).as("length %d", len).isEqualTo(GUAVA.hashBytes(b).asLong());
      }
    }
  }

  @Test
  void hashesAnArraySliceLikeACopyOfIt() {
    byte[] b = "xxuser:42yy".getBytes(StandardCharsets.UTF_8);
    assertThat(Murmur3.INSTANCE.hash(b, 2, 7))
        .isEqualTo(GUAVA.hashString("user:42", StandardCharsets.UTF_8).asLong());
  }

  @Test
  void hashesAStringAsItsUtf8Bytes() {
    String[] keys = {"", "a", "user:42", "ключ", "キー:1", "emoji😀key", "x".repeat(1000)};
    for (String key : keys) {
      assertThat(Murmur3.INSTANCE.hash(key))
          .as(key)
          .isEqualTo(GUAVA.hashString(key, StandardCharsets.UTF_8).asLong())
          .isEqualTo(Murmur3.INSTANCE.hash(key.getBytes(StandardCharsets.UTF_8)));
    }
  }

  @Test
  void oneNonAsciiCharAnywhereInAnAsciiKeyIsHashedAsUtf8() {
    // 'Ł' (U+0141) has an ASCII low byte ('A'): reading chars as bytes must not mistake it for
    // one. U+00E9 is Latin-1, U+20AC needs three bytes, U+1F600 a surrogate pair.
    String[] odd = {"\u0141", "\u00e9", "\u0080", "\u00ff", "\u20ac", "\ud83d\ude00", "\ud83d"};
    for (int length = 0; length <= 40; length++) {
      String ascii = "k".repeat(length);
      assertThat(Murmur3.INSTANCE.hash(ascii))
          .isEqualTo(GUAVA.hashString(ascii, StandardCharsets.UTF_8).asLong());
      for (int at = 0; at < length; at++) {
        for (String c : odd) {
          String key = ascii.substring(0, at) + c + ascii.substring(at + 1);
          assertThat(Murmur3.INSTANCE.hash(key))
              .as("length %d, %s at %d", length, c, at)
              .isEqualTo(GUAVA.hashString(key, StandardCharsets.UTF_8).asLong());
        }
      }
    }
  }

  @Test
  void randomStringsOfEveryLengthEqualGuava() {
    SplittableRandom random = new SplittableRandom(7);
    for (int length = 0; length <= 100; length++) {
      for (int trial = 0; trial < 50; trial++) {
        char[] chars = new char[length];
        for (int i = 0; i < length; i++) {
          // Mostly ASCII, sometimes any char below U+0800.
          chars[i] = (char) (random.nextInt(8) == 0 ? random.nextInt(0x800) : random.nextInt(0x80));
        }
        String key = new String(chars);
        assertThat(Murmur3.INSTANCE.hash(key))
            .as(key)
            .isEqualTo(GUAVA.hashString(key, StandardCharsets.UTF_8).asLong());
      }
    }
  }

  @Test
  void hashesAStringRangeLikeTheSubstring() {
    String key = "{user:42}:profile";
    assertThat(Murmur3.INSTANCE.hash(key, 1, 8)).isEqualTo(Murmur3.INSTANCE.hash("user:42"));
  }

  @Test
  void keysLongerThanTheKeptScratchBufferStillHashCorrectly() {
    String key = "k".repeat(100_000) + "é";
    assertThat(Murmur3.INSTANCE.hash(key))
        .isEqualTo(GUAVA.hashString(key, StandardCharsets.UTF_8).asLong());
  }
}
