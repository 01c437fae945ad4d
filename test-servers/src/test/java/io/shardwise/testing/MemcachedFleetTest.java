package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class MemcachedFleetTest {

  @RegisterExtension
  static final ServerFleet<MemcachedServer> fleet =
      ServerFleet.memcachedBuilder().servers(3).ioTimeout(Duration.ofMillis(500)).build();

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
    assertThat(fleet.size()).isEqualTo(3);
    assertThat(fleet.addresses())
        .hasSize(3)
        .doesNotHaveDuplicates()
        .allSatisfy(address -> assertThat(address).startsWith("127.0.0.1:"));
    for (MemcachedServer server : fleet.servers()) {
      assertThat(server.isRunning()).isTrue();
      assertThat(server.isAnswering()).isTrue();
      assertThat(server.kind()).isEqualTo(ServerKind.MEMCACHED);
      if (fleet.mode() == ServerMode.LOCAL) {
        assertThat(server.pid()).isPresent();
        assertThat(server.stats()).containsEntry("pid", Long.toString(server.pid().getAsLong()));
      }
    }
  }

  @Test
  void setThenGetReturnsTheBytesAndFlags() {
    MemcachedServer server = fleet.server(0);
    byte[] binary = {0, 1, 2, '\r', '\n', (byte) 0xff};
    server.set("raw:key", 0xCAFE, binary);
    server.set("raw:max-flags", -1, utf8("v"));

    assertThat(server.get("raw:key")).isEqualTo(new MemcachedItem(0xCAFE, binary));
    assertThat(server.get("raw:max-flags").flags()).isEqualTo(-1);
  }

  @Test
  void getOfAMissingKeyReturnsNull() {
    assertThat(fleet.server(1).get("never-set")).isNull();
  }

  @Test
  void serversAreIndependent() {
    fleet.server(0).set("only-on-0", 0, utf8("x"));
    assertThat(fleet.server(1).get("only-on-0")).isNull();
    assertThat(fleet.server(2).get("only-on-0")).isNull();
  }

  @Test
  void statsCountGetsHitsAndItems() {
    MemcachedServer server = fleet.server(2);
    Map<String, String> before = server.stats();
    server.set("counted", 0, utf8("1"));
    server.get("counted");
    server.get("absent");
    Map<String, String> after = server.stats();

    assertThat(Long.parseLong(after.get("cmd_get")) - Long.parseLong(before.get("cmd_get")))
        .isEqualTo(2);
    assertThat(Long.parseLong(after.get("get_hits")) - Long.parseLong(before.get("get_hits")))
        .isEqualTo(1);
    assertThat(after.get("curr_items")).isEqualTo("1");
  }

  @Test
  void deleteAndFlushAllRemoveItems() {
    MemcachedServer server = fleet.server(0);
    server.set("a", 0, utf8("1"));
    server.set("b", 0, utf8("2"));
    assertThat(server.delete("a")).isTrue();
    assertThat(server.delete("a")).isFalse();

    fleet.flushAll();

    assertThat(server.get("b")).isNull();
  }

  @Test
  void killedServerRefusesConnectionsUntilRestartedOnTheSamePort() {
    MemcachedServer server = fleet.server(1);
    server.set("lost", 0, utf8("v"));
    int port = server.port();

    server.kill();

    assertThat(server.isRunning()).isFalse();
    assertThat(server.isAnswering()).isFalse();
    assertThatThrownBy(() -> server.get("lost"))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(ConnectException.class);

    server.restart();

    assertThat(server.port()).isEqualTo(port);
    assertThat(server.isAnswering()).isTrue();
    assertThat(server.get("lost")).isNull();
  }

  @Test
  void pausedServerTimesOutThenAnswersAfterResume() {
    MemcachedServer server = fleet.server(2);
    server.set("kept", 7, utf8("v"));

    server.pause();

    assertThat(server.isPaused()).isTrue();
    assertThat(server.isRunning()).isTrue();
    server.pid().ifPresent(pid -> assertThat(LocalOs.processState(pid)).isIn('T', 't'));
    assertThatThrownBy(() -> server.client(Duration.ofMillis(200)).get("kept"))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(SocketTimeoutException.class);

    server.resume();

    assertThat(server.isPaused()).isFalse();
    assertThat(server.get("kept")).isEqualTo(new MemcachedItem(7, utf8("v")));
  }

  @Test
  void gracefulStopThenRestartServesAgain() {
    MemcachedServer server = fleet.server(0);
    server.stop();
    assertThat(server.isRunning()).isFalse();
    assertThat(server.pid()).isEmpty();

    server.restart();

    assertThat(server.isRunning()).isTrue();
    server.set("after-restart", 0, utf8("v"));
    assertThat(server.get("after-restart").valueUtf8()).isEqualTo("v");
  }

  @Test
  void restoreAllBringsBackKilledAndPausedServers() {
    fleet.server(0).kill();
    fleet.server(1).pause();

    fleet.restoreAll();

    assertThat(fleet.servers()).allSatisfy(server -> assertThat(server.isAnswering()).isTrue());
  }
}
