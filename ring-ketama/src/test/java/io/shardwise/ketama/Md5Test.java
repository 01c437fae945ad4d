package io.shardwise.ketama;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Md5Test {

  @Test
  void digestEqualsTheJdkMd5ForEveryLengthUpTo300() throws Exception {
    MessageDigest jdk = MessageDigest.getInstance("MD5");
    SplittableRandom random = new SplittableRandom(3);
    Md5 md5 = new Md5();
    int[] words = new int[4];
    for (int len = 0; len <= 300; len++) {
      for (int trial = 0; trial < 10; trial++) {
        byte[] msg = new byte[len + 5];
        for (int i = 0; i < msg.length; i++) {
          msg[i] = (byte) random.nextInt();
        }
        jdk.update(msg, 3, len);
        ByteBuffer expected = ByteBuffer.wrap(jdk.digest()).order(ByteOrder.LITTLE_ENDIAN);
        md5.digest(msg, 3, len, words);
        for (int w = 0; w < 4; w++) {
          assertThat(words[w]).as("length %d word %d", len, w).isEqualTo(expected.getInt(4 * w));
        }
        assertThat(md5.firstWord(msg, 3, len)).isEqualTo(words[0]);
      }
    }
  }

  @Test
  void stringKeysHashAsTheirUtf8Bytes() throws Exception {
    String[] keys = {"", "key:0", "user:-1234567890123456789", "ключ:é", "😀".repeat(40), "k".repeat(5000)};
    for (String key : keys) {
      byte[] digest = MessageDigest.getInstance("MD5").digest(key.getBytes(StandardCharsets.UTF_8));
      int expected = ByteBuffer.wrap(digest).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
      assertThat(Md5.forCurrentThread().firstWord(key, 0, key.length())).as(key).isEqualTo(expected);
    }
  }

  @Test
  void knownAnswerFromRfc1321() {
    // MD5("abc") = 900150983cd24fb0d6963f7d28e17f72
    byte[] abc = "abc".getBytes(StandardCharsets.US_ASCII);
    int[] words = new int[4];
    new Md5().digest(abc, 0, 3, words);
    assertThat(Integer.toHexString(Integer.reverseBytes(words[0]))).isEqualTo("90015098");
    assertThat(Integer.toHexString(Integer.reverseBytes(words[3]))).isEqualTo("28e17f72");
  }
}
