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

  @Test
  void theRunOfAServerIsItsRunIdAndFlushesWithTheKeysOfEveryDatabase() {
    String info =
        "# Server\r\nredis_version:7.0.15\r\nrun_id:5f1c0ab7e0\r\nuptime_in_seconds:12\r\n"
            + "# Keyspace\r\ndb0:keys=120,expires=3,avg_ttl=0\r\ndb3:keys=7,expires=0,avg_ttl=0\r\n"
            + "# Commandstats\r\ncmdstat_get:calls=900,usec=10,usec_per_call=0.01,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_flushall:calls=2,usec=5,usec_per_call=2.50,rejected_calls=0,failed_calls=0\r\n"
            + "cmdstat_flushdb:calls=1,usec=5,usec_per_call=5.00,rejected_calls=4,failed_calls=0\r\n";
    io.shardwise.spi.ServerRun run = RedisNodeConnection.runOf(info);
    assertThat(run.id()).isEqualTo("5f1c0ab7e0, flushes 3");
    assertThat(run.items()).isEqualTo(127);
    assertThat(RedisNodeConnection.runOf("# Server\r\nredis_version:7.0.15\r\n")).as("no run_id").isNull();
  }
}
