package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslVerifyMode;
import io.shardwise.client.Secret;
import io.shardwise.routing.Node;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Credentials and TLS options: merging, validation, and that no password ever shows. */
class RedisSecurityOptionsTest {

  private static final String FLEET = "Fleet-secret-1";
  private static final String NODE = "Node-secret-2";
  private static final String STORE = "Store-secret-3";

  private static RedisBackendOptions secured() {
    return RedisBackendOptions.builder()
        .username("orders")
        .password(Secret.of(FLEET))
        .nodeCredentials("cache-c", null, Secret.of(NODE))
        .nodeCredentials("127.0.0.4:6379", "other", null)
        .tls(
            RedisTlsOptions.builder()
                .trustStore(Path.of("/etc/redis/trust.p12"), Secret.of(STORE))
                .keyStore(Path.of("/etc/redis/client.p12"), Secret.of(STORE))
                .build())
        .build();
  }

  @Test
  void defaultsHaveNoCredentialsAndNoTls() {
    RedisBackendOptions options = RedisBackendOptions.defaults();
    assertThat(options.username()).isEmpty();
    assertThat(options.password()).isEmpty();
    assertThat(options.nodeCredentials()).isEmpty();
    assertThat(options.tls()).isEmpty();
    assertThat(options.credentialsFor(Node.of("127.0.0.1", 6379))).isEmpty();
    assertThat(RedisTlsOptions.defaults().verifyHostname()).isTrue();
    assertThat(RedisTlsOptions.defaults().caFile()).isEmpty();
  }

  @Test
  void toStringShowsWhereSecretsComeFromNeverTheSecrets() {
    RedisBackendOptions options = secured();
    String text = options.toString();
    assertThat(text)
        .contains("username=orders")
        .contains("password=****** (literal)")
        .contains("cache-c=RedisAuth[username=(default), password=****** (literal)]")
        .contains("trustStore /etc/redis/trust.p12")
        .contains("keyStorePassword=******")
        .doesNotContain(FLEET)
        .doesNotContain(NODE)
        .doesNotContain(STORE);
    assertThat(options.mutate().build().toString()).isEqualTo(text);
    try (RedisBackend backend =
        RedisBackend.create(RedisBackendOptions.builder().password(Secret.of(FLEET)).build())) {
      assertThat(backend.toString()).doesNotContain(FLEET);
      RedisURI uri = backend.redisUri(Node.of("127.0.0.1", 6379));
      assertThat(uri.toString()).doesNotContain(FLEET);
      assertThat(uri.getCredentialsProvider().toString()).doesNotContain(FLEET);
    }
  }

  @Test
  void nodeCredentialsOverrideTheFleetsPartByPartByNameThenAddress() {
    RedisBackendOptions options = secured();
    RedisAuth fleet = options.credentialsFor(Node.of("127.0.0.1", 6379)).orElseThrow();
    assertThat(fleet.username()).contains("orders");
    assertThat(fleet.password()).contains(Secret.of(FLEET));

    RedisAuth byName = options.credentialsFor(Node.named("cache-c", "127.0.0.3", 6379, 1)).get();
    assertThat(byName.username()).contains("orders");
    assertThat(byName.password()).contains(Secret.of(NODE));

    RedisAuth byAddress = options.credentialsFor(Node.of("127.0.0.4", 6379)).get();
    assertThat(byAddress.username()).contains("other");
    assertThat(byAddress.password()).contains(Secret.of(FLEET));
  }

  @Test
  void nodeWithAUserNameButNoPasswordFailsAtConnect() {
    RedisBackendOptions options =
        RedisBackendOptions.builder()
            .nodeCredentials("a", "app", null)
            .nodeCredentials("b", null, Secret.of(NODE))
            .build();
    assertThatThrownBy(() -> options.credentialsFor(Node.named("a", "127.0.0.1", 6379, 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("redis node a: user name 'app' is set but no password");
    try (RedisBackend backend = RedisBackend.create(options)) {
      assertThatThrownBy(() -> backend.connect(Node.named("a", "127.0.0.1", 6379, 1)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void badCredentialValuesFailWithTheReason() {
    assertThatThrownBy(() -> RedisBackendOptions.builder().username("my app"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "username must not contain spaces or control characters but has U+0020 at index 2:"
                + " 'my app'");
    assertThatThrownBy(() -> RedisBackendOptions.builder().username(""))
        .hasMessageContaining("must not be empty");
    assertThatThrownBy(() -> RedisBackendOptions.builder().nodeCredentials("", "a", null))
        .hasMessage("node must not be empty");
    assertThatThrownBy(() -> RedisAuth.of(null, null))
        .hasMessage("credentials need a user name, a password or both");
    RedisBackendOptions removed =
        RedisBackendOptions.builder()
            .nodeCredentials("a", "x", Secret.of(NODE))
            .nodeCredentials("a", null, null)
            .build();
    assertThat(removed.nodeCredentials()).isEmpty();
  }

  @Test
  void tlsTrustAndClientCertificateComeFromOneSourceEach() {
    assertThatThrownBy(
            () ->
                RedisTlsOptions.builder()
                    .caFile(Path.of("ca.pem"))
                    .trustStore(Path.of("trust.p12"), null)
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("TLS trust comes from a CA file or a trust store, not both");
    assertThatThrownBy(
            () ->
                RedisTlsOptions.builder()
                    .keyStore(Path.of("client.p12"), null)
                    .certificate(Path.of("client.pem"), Path.of("client.key"))
                    .build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("the client certificate comes from a key store or PEM files");
    RedisTlsOptions tls = RedisTlsOptions.builder().caFile(Path.of("ca.pem")).build();
    assertThat(tls.mutate().verifyHostname(false).build().verifyHostname()).isFalse();
    assertThat(tls.mutate().build()).isEqualTo(tls);
  }

  @Test
  void uriCarriesTheCredentialsProviderAndTheVerifyMode() {
    RedisBackendOptions options =
        RedisBackendOptions.builder()
            .username("app")
            .password(Secret.of(FLEET))
            .build();
    try (RedisBackend backend = RedisBackend.create(options)) {
      RedisURI uri = backend.redisUri(Node.of("127.0.0.1", 6390));
      assertThat(uri.isSsl()).isFalse();
      RedisCredentialsProvider provider = uri.getCredentialsProvider();
      assertThat(provider)
          .isInstanceOf(RedisCredentialsProvider.ImmediateRedisCredentialsProvider.class);
      RedisCredentials credentials =
          ((RedisCredentialsProvider.ImmediateRedisCredentialsProvider) provider)
              .resolveCredentialsNow();
      assertThat(credentials.getUsername()).isEqualTo("app");
      assertThat(new String(credentials.getPassword())).isEqualTo(FLEET);
      assertThat(credentials.toString()).doesNotContain(FLEET);
    }
    RedisBackendOptions tls = RedisBackendOptions.builder().tls(true).build();
    try (RedisBackend backend = RedisBackend.create(tls)) {
      RedisURI uri = backend.redisUri(Node.of("127.0.0.1", 6390));
      assertThat(uri.isSsl()).isTrue();
      assertThat(uri.getVerifyMode()).isEqualTo(SslVerifyMode.FULL);
    }
    RedisBackendOptions chainOnly =
        RedisBackendOptions.builder()
            .tls(RedisTlsOptions.builder().verifyHostname(false).build())
            .build();
    try (RedisBackend backend = RedisBackend.create(chainOnly)) {
      assertThat(backend.redisUri(Node.of("127.0.0.1", 6390)).getVerifyMode())
          .isEqualTo(SslVerifyMode.CA);
    }
  }

  @Test
  void securityFailuresAreNoNodeFailures() {
    try (RedisBackend backend = RedisBackend.create()) {
      Node node = Node.of("127.0.0.1", 6390);
      for (SecurityFailure.Kind kind : SecurityFailure.Kind.values()) {
        assertThat(
                backend.isNodeFailure(
                    new java.util.concurrent.CompletionException(
                        new SecurityFailure(kind, "x", null).toException(node, "GET"))))
            .isFalse();
      }
      assertThat(backend.isNodeFailure(new RedisUnavailableException("down", null))).isTrue();
    }
  }
}
