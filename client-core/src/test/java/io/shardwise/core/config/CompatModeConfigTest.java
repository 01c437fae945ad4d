package io.shardwise.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.core.RouterSpec;
import io.shardwise.ketama.PeerRouter;
import io.shardwise.routing.ServerList;
import io.shardwise.spi.InvalidSettingsException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code shardwise.router=compat} and {@code shardwise.compat.mode}. */
class CompatModeConfigTest {

  private static Map<String, String> settings(String... keyValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("shardwise.backend", "memory");
    settings.put("shardwise.servers", "127.0.0.1:11211,127.0.0.1:11212,127.0.0.1:11213");
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put("shardwise." + keyValues[i], keyValues[i + 1]);
    }
    return settings;
  }

  @Test
  void compatModeIsReadWrittenBackAndBuildsThePeerRouter() {
    ShardwiseConfig config =
        ShardwiseConfig.from(settings("router", "compat", "compat.mode", "Twemproxy:MURMUR:modula"));
    assertThat(config.router()).isEqualTo(RouterSpec.of("compat").withCompatMode("twemproxy:murmur:modula"));
    assertThat(config.settings())
        .containsEntry("shardwise.router", "compat")
        .containsEntry("shardwise.compat.mode", "twemproxy:murmur:modula");
    PeerRouter router = (PeerRouter) config.router().build(ServerList.parse("127.0.0.1:11211,127.0.0.1:11212"));
    assertThat(router.describe()).isEqualTo("compat(twemproxy:murmur:modula)");
  }

  @Test
  void compatWithoutAModeTakesTwemproxysDefaults() {
    ShardwiseConfig config = ShardwiseConfig.from(settings("router", "compat"));
    assertThat(config.router().compatMode().id()).isEqualTo("twemproxy:fnv1a_64:ketama");
  }

  @Test
  void badModeOrModeForAnotherRouterIsRefusedWithTheValue() {
    assertThatThrownBy(() -> ShardwiseConfig.from(settings("router", "compat", "compat.mode", "twemproxy:sha1:ketama")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("shardwise.compat.mode")
        .hasMessageContaining("'twemproxy:sha1:ketama'")
        .hasMessageContaining("one_at_a_time");
    assertThatThrownBy(() -> ShardwiseConfig.from(settings("router", "ketama", "compat.mode", "twemproxy:md5:ketama")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("shardwise.compat.mode: applies to router compat only");
    assertThatThrownBy(
            () -> ShardwiseConfig.from(
                settings("router", "compat", "compat.mode", "spymemcached:array_mod:native_hash",
                    "servers", "127.0.0.1:11211:2,127.0.0.1:11212")))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("has weight 2");
  }
}
