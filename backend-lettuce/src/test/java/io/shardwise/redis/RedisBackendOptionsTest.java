package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.shardwise.routing.Node;
import io.shardwise.spi.KeyRules;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisBackendOptionsTest {

  @Test
  void defaultsAreTheDefaultConstants() {
    RedisBackendOptions options = RedisBackendOptions.defaults();
    assertThat(options.database()).isEqualTo(RedisBackendOptions.DEFAULT_DATABASE).isZero();
    assertThat(options.clientName()).isEmpty();
    assertThat(options.commandTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(options.connectTimeout()).isEqualTo(RedisBackendOptions.DEFAULT_CONNECT_TIMEOUT);
    assertThat(options.reconnectDelayMin()).isEqualTo(Duration.ofMillis(100));
    assertThat(options.reconnectDelayMax()).isEqualTo(Duration.ofSeconds(10));
    assertThat(options.clientResources()).isEmpty();
    assertThat(options.uriCustomizer()).isEmpty();
    assertThat(options.consolidateFlushes()).isTrue();
  }

  @Test
  void mutateChangesOnlyWhatIsSet() {
    RedisBackendOptions base = RedisBackendOptions.builder().database(3).clientName("app").build();
    RedisBackendOptions changed = base.mutate().commandTimeout(Duration.ofMillis(80)).build();
    assertThat(changed.database()).isEqualTo(3);
    assertThat(changed.clientName()).contains("app");
    assertThat(changed.commandTimeout()).isEqualTo(Duration.ofMillis(80));
    assertThat(base.commandTimeout()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void badValuesFailWithTheValueInTheMessage() {
    RedisBackendOptions.Builder b = RedisBackendOptions.builder();
    assertThatThrownBy(() -> b.database(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("database must be >= 0 but was -1");
    assertThatThrownBy(() -> b.commandTimeout(Duration.ZERO))
        .hasMessage("commandTimeout must be > 0 but was PT0S");
    assertThatThrownBy(() -> b.connectTimeout(Duration.ofMillis(-5)))
        .hasMessage("connectTimeout must be > 0 but was PT-0.005S");
    assertThatThrownBy(() -> b.commandTimeout(Duration.ofNanos(500_000)))
        .hasMessage("commandTimeout must be at least 1 ms but was PT0.0005S");
    assertThatThrownBy(() -> b.reconnectDelay(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessage("reconnectDelay max must be >= min but was PT1S < PT2S");
    assertThatThrownBy(() -> b.clientName("my app"))
        .hasMessage(
            "clientName must be printable ASCII without spaces but has U+0020 at index 2:"
                + " 'my app'");
    assertThatThrownBy(() -> b.clientName("")).hasMessageContaining("must not be empty");
  }

  @Test
  void theBackendsOwnResourcesConsolidateFlushesUnlessTurnedOff() {
    try (RedisBackend on = RedisBackend.create(RedisBackendOptions.defaults());
        RedisBackend off =
            RedisBackend.create(RedisBackendOptions.builder().consolidateFlushes(false).build())) {
      assertThat(on.resources().nettyCustomizer()).isSameAs(RedisBackend.CONSOLIDATED_FLUSHES);
      assertThat(off.resources().nettyCustomizer()).isNotSameAs(RedisBackend.CONSOLIDATED_FLUSHES);
    }
  }

  @Test
  void consolidateFlushesCannotBeSetBesideGivenClientResources() {
    ClientResources resources = DefaultClientResources.create();
    try {
      RedisBackendOptions.Builder given = RedisBackendOptions.builder().clientResources(resources);
      assertThat(given.build().consolidateFlushes()).isTrue();
      assertThatThrownBy(() -> given.consolidateFlushes(false).build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("FlushConsolidationHandler in the given ClientResources");
      assertThat(given.clientResources(null).build().consolidateFlushes()).isFalse();
    } finally {
      resources.shutdown();
    }
  }

  @Test
  void reconnectDelayCannotBeSetBesideGivenClientResources() {
    ClientResources resources = DefaultClientResources.create();
    try {
      assertThatThrownBy(
              () ->
                  RedisBackendOptions.builder()
                      .clientResources(resources)
                      .reconnectDelay(Duration.ofMillis(10), Duration.ofSeconds(1))
                      .build())
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("set the reconnect delay on the given ClientResources");
    } finally {
      resources.shutdown();
    }
  }

  @Test
  void clientOptionsRejectWhileDisconnectedAndTimeOutCommandsAndLeaveReconnectingToTheBackend() {
    ClientOptions options =
        RedisBackend.clientOptions(
            RedisBackendOptions.builder()
                .commandTimeout(Duration.ofMillis(120))
                .connectTimeout(Duration.ofMillis(700))
                .build(),
            Duration.ofMillis(120));
    assertThat(options.isAutoReconnect()).isFalse();
    assertThat(options.getDisconnectedBehavior())
        .isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
    assertThat(options.getConfiguredProtocolVersion()).isEqualTo(ProtocolVersion.RESP2);
    assertThat(options.getTimeoutOptions().isTimeoutCommands()).isTrue();
    assertThat(options.getSocketOptions().getConnectTimeout()).isEqualTo(Duration.ofMillis(700));
  }

  @Test
  void uriCarriesDatabaseClientNameAndConnectTimeoutThenTheCustomizer() {
    RedisBackendOptions options =
        RedisBackendOptions.builder()
            .database(5)
            .clientName("orders")
            .connectTimeout(Duration.ofMillis(300))
            .uriCustomizer(uri -> uri.withLibraryName("shardwise"))
            .build();
    try (RedisBackend backend = RedisBackend.create(options)) {
      RedisURI uri = backend.redisUri(Node.of("::1", 6390));
      assertThat(uri.getHost()).isEqualTo("::1");
      assertThat(uri.getPort()).isEqualTo(6390);
      assertThat(uri.getDatabase()).isEqualTo(5);
      assertThat(uri.getClientName()).isEqualTo("orders");
      assertThat(uri.getTimeout()).isEqualTo(Duration.ofMillis(300));
      assertThat(uri.getLibraryName()).isEqualTo("shardwise");
    }
  }

  @Test
  void reconnectDelayDoublesWithinBoundsWithJitter() {
    Delay delay = RedisBackend.reconnectDelay(Duration.ofMillis(100), Duration.ofSeconds(10));
    for (int round = 0; round < 100; round++) {
      assertThat(delay.createDelay(1)).isEqualTo(Duration.ofMillis(100));
      assertThat(delay.createDelay(2)).isBetween(Duration.ofMillis(100), Duration.ofMillis(200));
      assertThat(delay.createDelay(4)).isBetween(Duration.ofMillis(400), Duration.ofMillis(800));
      assertThat(delay.createDelay(30)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
      assertThat(delay.createDelay(1000)).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(10));
    }
  }

  @Test
  void backendDescribesRedis() {
    try (RedisBackend backend = RedisBackend.create()) {
      assertThat(backend.name()).isEqualTo("redis");
      assertThat(backend.keyRules()).isEqualTo(KeyRules.REDIS);
      assertThat(backend.defaultMaxValueBytes()).isEqualTo(512 * 1024 * 1024);
      assertThat(backend.storesFlags()).isFalse();
    }
  }

  @Test
  void ttlIsRoundedUpToWholeMilliseconds() {
    assertThat(RedisNodeConnection.ttlMillis(Duration.ZERO)).isZero();
    assertThat(RedisNodeConnection.ttlMillis(Duration.ofNanos(1))).isEqualTo(1);
    assertThat(RedisNodeConnection.ttlMillis(Duration.ofMillis(1500))).isEqualTo(1500);
    assertThat(RedisNodeConnection.ttlMillis(Duration.ofNanos(1_500_001))).isEqualTo(2);
    assertThat(RedisNodeConnection.ttlMillis(Duration.ofSeconds(Long.MAX_VALUE)))
        .isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> RedisNodeConnection.ttlMillis(Duration.ofSeconds(-1)))
        .hasMessage("ttl must be >= 0 (0 for no expiry) but was PT-1S");
  }
}
