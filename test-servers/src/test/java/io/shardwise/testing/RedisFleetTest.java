package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisFleetTest {

  @RegisterExtension
  static final ServerFleet<RedisServer> fleet =
      ServerFleet.redisBuilder().servers(3).ioTimeout(Duration.ofMillis(500)).build();

  @BeforeEach
  void allServersUpAndEmpty() {
    fleet.restoreAll();
    fleet.flushAll();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void startsThreeAnsweringServersOnDistinctLoopbackPorts() {
    assertThat(fleet.addresses()).hasSize(3).doesNotHaveDuplicates();
    for (RedisServer server : fleet.servers()) {
      assertThat(server.command("PING")).isEqualTo("PONG");
      assertThat(server.host()).isEqualTo("127.0.0.1");
      if (fleet.mode() == ServerMode.LOCAL) {
        assertThat(server.info("server"))
            .containsEntry("process_id", Long.toString(server.pid().getAsLong()))
            .containsEntry("tcp_port", Integer.toString(server.port()));
      }
    }
  }

  @Test
  void repliesAreParsedByType() {
    RedisServer server = fleet.server(0);
    assertThat(server.command("SET", "k", "v")).isEqualTo("OK");
    assertThat((byte[]) server.command("GET", "k")).isEqualTo(utf8("v"));
    assertThat(server.command("GET", "missing")).isNull();
    assertThat(server.command("INCR", "n")).isEqualTo(1L);
    server.command("RPUSH", "list", "a", "b");
    List<?> range = (List<?>) server.command("LRANGE", "list", "0", "-1");
    assertThat(range).hasSize(2);
    assertThat((byte[]) range.get(1)).isEqualTo(utf8("b"));
  }

  @Test
  void binaryValuesRoundTrip() {
    RedisServer server = fleet.server(1);
    byte[] binary = {0, '\r', '\n', (byte) 0xff, '$'};
    server.set("bin", binary);
    assertThat(server.get("bin")).isEqualTo(binary);
  }

  @Test
  void errorReplyIsThrownWithTheServersMessage() {
    assertThatThrownBy(() -> fleet.server(0).command("NOSUCHCOMMAND"))
        .isInstanceOf(ErrorReplyException.class)
        .hasMessageStartingWith("ERR unknown command");
  }

  @Test
  void infoKeyspaceAndFlushAll() {
    RedisServer server = fleet.server(2);
    server.set("a", utf8("1"));
    assertThat(server.info("keyspace").get("db0")).startsWith("keys=1,");

    fleet.flushAll();

    assertThat(server.client().dbSize()).isZero();
    assertThat(server.info("keyspace")).doesNotContainKey("db0");
  }

  @Test
  void killedServerRefusesConnectionsAndRestartsEmptyOnTheSamePort() {
    RedisServer server = fleet.server(1);
    server.set("lost", utf8("v"));
    int port = server.port();

    server.kill();

    assertThatThrownBy(() -> server.get("lost"))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(ConnectException.class);

    server.restart();

    assertThat(server.port()).isEqualTo(port);
    assertThat(server.get("lost")).isNull();
  }

  @Test
  void pausedServerTimesOutThenAnswersAfterResume() {
    RedisServer server = fleet.server(0);
    server.set("kept", utf8("v"));

    server.pause();

    assertThatThrownBy(() -> server.client(Duration.ofMillis(200)).ping())
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(SocketTimeoutException.class);

    server.resume();

    assertThat(server.get("kept")).isEqualTo(utf8("v"));
  }

  @Test
  void extraArgsReachTheServer() {
    try (ServerFleet<RedisServer> guarded =
        ServerFleet.redisBuilder().extraArgs("--requirepass", "s3cret").build().start()) {
      RedisServer server = guarded.server(0);
      assertThatThrownBy(() -> server.command("GET", "k")).hasMessageStartingWith("NOAUTH");
      assertThat(server.isAnswering()).isTrue();
    }
  }
}
