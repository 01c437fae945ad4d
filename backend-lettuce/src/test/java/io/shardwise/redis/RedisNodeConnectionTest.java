package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisNodeConnectionTest {

  @Test
  void runIdIsTheRunIdFieldOfInfoServer() {
    // The start of "INFO server" from redis-server 7.0.15.
    String info =
        "# Server\r\n"
            + "redis_version:7.0.15\r\n"
            + "redis_git_sha1:00000000\r\n"
            + "redis_mode:standalone\r\n"
            + "os:Linux 6.1.0 x86_64\r\n"
            + "process_id:4242\r\n"
            + "process_supervised:no\r\n"
            + "run_id:23c945ad556c4f11570fc7324b8f676a0d49109c\r\n"
            + "tcp_port:6379\r\n";
    assertThat(RedisNodeConnection.runIdIn(info))
        .isEqualTo("23c945ad556c4f11570fc7324b8f676a0d49109c");
    assertThat(RedisNodeConnection.runIdIn(info.replace("\r\n", "\n")))
        .isEqualTo("23c945ad556c4f11570fc7324b8f676a0d49109c");
  }

  /**
   * Lettuce's report that the handshake ended before its connect listener ran, as it comes: bare,
   * or wrapped by {@code connectAsync} in a {@code RedisConnectionException}.
   */
  @Test
  void aLostHandshakeOutcomeIsRecognizedBareOrWrapped() {
    IllegalStateException lost = new IllegalStateException("RedisHandshakeHandler not registered");
    assertThat(RedisNodeConnection.isOutcomeLost(lost)).isTrue();
    assertThat(
            RedisNodeConnection.isOutcomeLost(
                new io.lettuce.core.RedisConnectionException("Unable to connect to 127.0.0.1:6379", lost)))
        .isTrue();
    assertThat(RedisNodeConnection.isOutcomeLost(new IllegalStateException("Connection closed"))).isFalse();
    assertThat(
            RedisNodeConnection.isOutcomeLost(
                new io.lettuce.core.RedisConnectionException(
                    "Unable to connect to 127.0.0.1:6379", new java.io.IOException("Connection refused"))))
        .isFalse();
  }

  @Test
  void runIdIsNullWhenTheReplyHasNone() {
    assertThat(RedisNodeConnection.runIdIn("# Server\r\nredis_version:7.0.15\r\n")).isNull();
    assertThat(RedisNodeConnection.runIdIn("# Server\r\nrun_id:\r\n")).isNull();
    // A field whose name only ends in run_id is another field.
    assertThat(RedisNodeConnection.runIdIn("master_run_id:abc\r\n")).isNull();
    assertThat(RedisNodeConnection.runIdIn("")).isNull();
    assertThat(RedisNodeConnection.runIdIn(null)).isNull();
  }
}
