package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.Secret;
import io.shardwise.spi.InvalidSettingsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code shardwise.memcached.*} keys as the provider reads them: SASL valid and invalid, the
 * password's references resolved, and no secret in any problem.
 */
class MemcachedBackendProviderTest {

  private static final String PASSWORD = "Sasl-secret-1Zx";

  private final MemcachedBackendProvider provider = new MemcachedBackendProvider();

  @TempDir Path dir;

  private static Map<String, String> settings(String... keyValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put(keyValues[i], keyValues[i + 1]);
    }
    return settings;
  }

  private List<String> problems(String... keyValues) {
    List<String> problems = provider.validate(settings(keyValues));
    assertThat(problems).allSatisfy(line -> assertThat(line).doesNotContain(PASSWORD));
    return problems;
  }

  private MemcachedOptions created(String... keyValues) {
    MemcachedBackend backend =
        (MemcachedBackend) provider.create(settings(keyValues), Duration.ofMillis(300));
    try {
      return backend.options();
    } finally {
      backend.close();
    }
  }

  @Test
  void theSaslKeysAreKnownAndThePasswordIsSecret() {
    assertThat(provider.keys())
        .containsExactly("protocol", "max-reconnect-delay", "sasl.username", "sasl.password");
    assertThat(provider.secretKeys()).containsExactly("sasl.password");
  }

  @Test
  void saslWithTheBinaryProtocol() {
    MemcachedOptions options =
        created("protocol", "binary", "sasl.username", "app", "sasl.password", PASSWORD);
    assertThat(options.sasl()).isTrue();
    assertThat(options.saslUsername()).hasValue("app");
    assertThat(options.saslPassword()).hasValue(Secret.of(PASSWORD));
    assertThat(options.protocol()).isEqualTo(MemcachedProtocol.BINARY);
    assertThat(options.toString()).doesNotContain(PASSWORD);
    assertThat(created().sasl()).isFalse();
  }

  @Test
  void thePasswordIsASecretReference() throws Exception {
    Path file = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
    Secret fromFile =
        created("protocol", "binary", "sasl.username", "app", "sasl.password", "file:" + file)
            .saslPassword()
            .orElseThrow();
    assertThat(fromFile.reveal()).isEqualTo(PASSWORD);
    assertThat(fromFile.source()).isEqualTo("file:" + file);
    String variable =
        System.getenv().entrySet().stream()
            .filter(e -> !e.getValue().isEmpty() && !e.getKey().isEmpty())
            .map(Map.Entry::getKey)
            .sorted()
            .findFirst()
            .orElseThrow();
    assertThat(
            created(
                    "protocol",
                    "binary",
                    "sasl.username",
                    "app",
                    "sasl.password",
                    "env:" + variable)
                .saslPassword()
                .orElseThrow()
                .reveal())
        .isEqualTo(System.getenv(variable));
    assertThat(
            problems(
                "protocol", "binary",
                "sasl.username", "app",
                "sasl.password", "env:SHARDWISE_TEST_NO_SUCH_VARIABLE"))
        .containsExactly(
            "shardwise.memcached.sasl.password: secret reference"
                + " env:SHARDWISE_TEST_NO_SUCH_VARIABLE: the environment variable"
                + " SHARDWISE_TEST_NO_SUCH_VARIABLE is not set; expected a password, env:NAME,"
                + " file:/path or literal:TEXT");
  }

  @Test
  void saslNeedsTheBinaryProtocolNamingBothKeys() {
    assertThat(problems("sasl.username", "app", "sasl.password", PASSWORD))
        .containsExactly(
            "shardwise.memcached.sasl.username: SASL needs shardwise.memcached.protocol=binary, but"
                + " shardwise.memcached.protocol is not set (default text); memcached speaks SASL"
                + " only over the binary protocol");
    assertThat(problems("protocol", "text", "sasl.username", "app", "sasl.password", PASSWORD))
        .containsExactly(
            "shardwise.memcached.sasl.username: SASL needs shardwise.memcached.protocol=binary, but"
                + " shardwise.memcached.protocol is text; memcached speaks SASL only over the"
                + " binary protocol");
    // A wrong protocol is reported once, as itself.
    assertThat(problems("protocol", "bin", "sasl.username", "app", "sasl.password", PASSWORD))
        .containsExactly(
            "shardwise.memcached.protocol: 'bin' is not allowed; expected one of text, binary");
  }

  @Test
  void saslNeedsAUserNameAndAPassword() {
    assertThat(problems("protocol", "binary", "sasl.username", "app"))
        .containsExactly(
            "shardwise.memcached.sasl.password: missing; shardwise.memcached.sasl.username is set,"
                + " and SASL needs a user name and a password");
    assertThat(problems("protocol", "binary", "sasl.password", PASSWORD))
        .containsExactly(
            "shardwise.memcached.sasl.username: missing; shardwise.memcached.sasl.password is set,"
                + " and SASL needs a user name and a password");
    assertThat(problems("protocol", "binary", "sasl.username", "a\tb", "sasl.password", PASSWORD))
        .containsExactly(
            "shardwise.memcached.sasl.username: SASL username must not contain control characters"
                + " but has U+0009 at index 1; expected a user name without control characters");
  }

  @Test
  void createThrowsEveryProblemWithoutTheSecret() {
    assertThatThrownBy(
            () ->
                provider.create(
                    settings("sasl.username", "app", "sasl.password", PASSWORD),
                    Duration.ofMillis(250)))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("shardwise.memcached.protocol=binary")
        .message()
        .doesNotContain(PASSWORD);
  }
}
