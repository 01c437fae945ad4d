package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.client.Secret;
import io.shardwise.routing.Node;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class MemcachedSaslOptionsTest {

  private static final String PASSWORD = "Mc-secret-1";

  private static MemcachedOptions sasl() {
    return MemcachedOptions.builder()
        .protocol(MemcachedProtocol.BINARY)
        .sasl("app", Secret.of(PASSWORD))
        .build();
  }

  @Test
  void saslIsOffByDefault() {
    MemcachedOptions options = MemcachedOptions.defaults();
    assertThat(options.sasl()).isFalse();
    assertThat(options.saslUsername()).isEmpty();
    assertThat(options.saslPassword()).isEmpty();
  }

  @Test
  void saslNeedsTheBinaryProtocolWhateverTheOrderOfTheSetters() {
    assertThatThrownBy(
            () -> MemcachedOptions.builder().sasl("app", Secret.of(PASSWORD)).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "SASL authentication needs the binary protocol, but the protocol is TEXT: memcached"
                + " speaks SASL only over the binary protocol (a server started with -S refuses"
                + " text commands); set protocol(MemcachedProtocol.BINARY)");
    assertThat(
            MemcachedOptions.builder()
                .sasl("app", Secret.of(PASSWORD))
                .protocol(MemcachedProtocol.BINARY)
                .build()
                .sasl())
        .isTrue();
    assertThatThrownBy(() -> sasl().mutate().protocol(MemcachedProtocol.TEXT).build())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void toStringNamesTheUserAndTheSourceButNotThePassword() {
    assertThat(sasl().toString())
        .contains("sasl=app:****** (literal)")
        .doesNotContain(PASSWORD);
    try (MemcachedBackend backend = MemcachedBackend.create(sasl())) {
      assertThat(backend.toString()).doesNotContain(PASSWORD);
    }
  }

  @Test
  void equalityIncludesTheCredentials() {
    assertThat(sasl()).isEqualTo(sasl()).hasSameHashCodeAs(sasl());
    assertThat(sasl().mutate().sasl("app", Secret.of("other")).build()).isNotEqualTo(sasl());
    assertThat(sasl().mutate().sasl(null, null).build().sasl()).isFalse();
  }

  @Test
  void badCredentialsFailAtOnce() {
    MemcachedOptions.Builder builder = MemcachedOptions.builder();
    assertThatThrownBy(() -> builder.sasl("", Secret.of(PASSWORD)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("SASL username must not be empty");
    assertThatThrownBy(() -> builder.sasl("app", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> builder.sasl("a\tb", Secret.of(PASSWORD)))
        .hasMessageContaining("U+0009");
  }

  @Test
  void authenticationRefusalsAreNoNodeFailures() {
    try (MemcachedBackend backend = MemcachedBackend.create()) {
      assertThat(
              backend.isNodeFailure(
                  new CompletionException(
                      new NodeAuthenticationException(Node.of("127.0.0.1", 11211), "x", null))))
          .isFalse();
    }
  }
}
