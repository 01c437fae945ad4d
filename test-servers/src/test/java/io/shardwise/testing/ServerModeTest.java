package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ServerModeTest {

  @Test
  void parsesTheThreeModesIgnoringCaseAndSpaces() {
    assertThat(ServerMode.parse("local")).isEqualTo(ServerMode.LOCAL);
    assertThat(ServerMode.parse(" Docker ")).isEqualTo(ServerMode.DOCKER);
    assertThat(ServerMode.parse("AUTO")).isEqualTo(ServerMode.AUTO);
  }

  @Test
  void rejectsAnUnknownModeNamingTheValue() {
    assertThatThrownBy(() -> ServerMode.parse("podman"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("shardwise.test.servers must be one of local, docker, auto but was 'podman'");
  }

  @Test
  void systemPropertyWinsOverEnvironmentWhichWinsOverAuto() {
    assertThat(ServerMode.fromSettings("local", "docker")).isEqualTo(ServerMode.LOCAL);
    assertThat(ServerMode.fromSettings(null, "docker")).isEqualTo(ServerMode.DOCKER);
    assertThat(ServerMode.fromSettings(" ", "")).isEqualTo(ServerMode.AUTO);
    assertThat(ServerMode.fromSettings(null, null)).isEqualTo(ServerMode.AUTO);
  }
}
