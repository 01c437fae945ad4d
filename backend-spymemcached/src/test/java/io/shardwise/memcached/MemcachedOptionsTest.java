package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.spi.KeyRules;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MemcachedOptionsTest {

  @Test
  void defaults() {
    MemcachedOptions options = MemcachedOptions.defaults();

    assertThat(options.protocol()).isEqualTo(MemcachedProtocol.TEXT);
    assertThat(options.operationTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(options.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(options.maxReconnectDelay()).isEqualTo(Duration.ofSeconds(30));
    assertThat(options.daemonThreads()).isTrue();
    assertThat(options).isEqualTo(MemcachedOptions.builder().build());
  }

  @Test
  void mutateCopiesEveryOption() {
    MemcachedOptions options =
        MemcachedOptions.builder()
            .protocol(MemcachedProtocol.BINARY)
            .operationTimeout(Duration.ofMillis(80))
            .connectTimeout(Duration.ZERO)
            .maxReconnectDelay(Duration.ofSeconds(7))
            .daemonThreads(false)
            .build();

    assertThat(options.mutate().build()).isEqualTo(options).hasSameHashCodeAs(options);
    assertThat(options.mutate().operationTimeout(Duration.ofMillis(81)).build())
        .isNotEqualTo(options);
    assertThat(options.toString())
        .isEqualTo(
            "MemcachedOptions[protocol=BINARY, operationTimeout=80ms, connectTimeout=0ms,"
                + " maxReconnectDelay=7s, daemonThreads=false]");
  }

  @Test
  void reconnectDelayIsRoundedUpToWholeSeconds() {
    assertThat(
            MemcachedOptions.builder()
                .maxReconnectDelay(Duration.ofMillis(1500))
                .build()
                .maxReconnectDelay())
        .isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void badValuesAreRejectedWithTheValue() {
    MemcachedOptions.Builder builder = MemcachedOptions.builder();
    assertThatThrownBy(() -> builder.operationTimeout(Duration.ZERO))
        .hasMessage("operationTimeout must be >= 1ms but was PT0S");
    assertThatThrownBy(() -> builder.connectTimeout(Duration.ofMillis(-1)))
        .hasMessage("connectTimeout must be >= 0 but was PT-0.001S");
    assertThatThrownBy(() -> builder.maxReconnectDelay(Duration.ofMillis(999)))
        .hasMessage("maxReconnectDelay must be >= 1s but was PT0.999S");
    assertThatThrownBy(() -> builder.protocol(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void backendDescribesMemcached() {
    try (MemcachedBackend backend = MemcachedBackend.create()) {
      assertThat(backend.name()).isEqualTo("memcached");
      assertThat(backend.keyRules()).isEqualTo(KeyRules.MEMCACHED);
      assertThat(backend.defaultMaxValueBytes()).isEqualTo(Integer.MAX_VALUE);
      assertThat(backend.storesFlags()).isTrue();
      assertThat(backend.options()).isEqualTo(MemcachedOptions.defaults());
    }
  }

  @Test
  void theBinaryProtocolHasItsOwnKeyRules() {
    try (MemcachedBackend backend =
        MemcachedBackend.create(MemcachedOptions.builder().protocol(MemcachedProtocol.BINARY).build())) {
      assertThat(backend.keyRules()).isEqualTo(KeyRules.MEMCACHED_BINARY);
    }
  }

  @Test
  void onlyUnansweredRequestsAreNodeFailures() {
    try (MemcachedBackend backend = MemcachedBackend.create()) {
      MemcachedTimeoutException timeout = new MemcachedTimeoutException("t", Duration.ofMillis(1));
      assertThat(backend.isNodeFailure(timeout)).isTrue();
      assertThat(backend.isNodeFailure(new MemcachedUnavailableException("down", null))).isTrue();
      assertThat(backend.isNodeFailure(new java.util.concurrent.CompletionException(timeout)))
          .isTrue();
      assertThat(
              backend.isNodeFailure(new MemcachedServerErrorException("e", "SERVER_ERROR x", null)))
          .isFalse();
      assertThat(backend.isNodeFailure(new IllegalArgumentException("bad flags"))).isFalse();
    }
  }
}
