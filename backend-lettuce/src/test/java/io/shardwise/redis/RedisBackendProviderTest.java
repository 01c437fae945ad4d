package io.shardwise.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.Secret;
import io.shardwise.spi.InvalidSettingsException;
import io.shardwise.testing.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code shardwise.redis.*} keys as the provider reads them: every security key valid and
 * invalid, secret references resolved, and no secret in any problem.
 */
class RedisBackendProviderTest {

  private static final String PASSWORD = "Redis-secret-1Aq";
  private static final String STORE_PASSWORD = "Store-secret-2Ws";
  private static final String WRONG = "Wrong-secret-3Ed";
  private static final List<String> SECRETS = List.of(PASSWORD, STORE_PASSWORD, WRONG);

  @TempDir static Path dir;

  private static Path caFile;
  private static Path trustStore;
  private static Path keyStore;
  private static Path certificate;
  private static Path privateKey;
  private static Path passwordFile;
  private static Path garbage;

  private final RedisBackendProvider provider = new RedisBackendProvider();

  @BeforeAll
  static void files() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("Provider test CA");
    TestCertificates.Issued client = ca.issue("client");
    caFile = ca.writeCertificate(dir.resolve("ca.pem"));
    trustStore = ca.writeTrustStore(dir.resolve("trust.p12"), STORE_PASSWORD.toCharArray());
    keyStore = client.writeKeyStore(dir.resolve("client.p12"), STORE_PASSWORD.toCharArray());
    certificate = client.writeCertificate(dir.resolve("client.pem"));
    privateKey = client.writePrivateKey(dir.resolve("client.key"));
    passwordFile = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
    garbage = Files.writeString(dir.resolve("garbage.pem"), "not a certificate\n");
  }

  private static Map<String, String> settings(String... keyValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put(keyValues[i], keyValues[i + 1]);
    }
    return settings;
  }

  private List<String> problems(String... keyValues) {
    List<String> problems = provider.validate(settings(keyValues));
    for (String secret : SECRETS) {
      assertThat(problems).allSatisfy(line -> assertThat(line).doesNotContain(secret));
    }
    return problems;
  }

  private RedisBackendOptions created(String... keyValues) {
    try (RedisBackend backend =
        (RedisBackend) provider.create(settings(keyValues), Duration.ofMillis(300))) {
      return backend.options();
    }
  }

  /** A set environment variable with a non-empty value, for {@code env:} references. */
  static String someEnvironmentVariable() {
    return System.getenv().entrySet().stream()
        .filter(e -> !e.getValue().isEmpty() && !e.getKey().isEmpty())
        .map(Map.Entry::getKey)
        .sorted()
        .findFirst()
        .orElseThrow(() -> new AssertionError("the test needs an environment variable"));
  }

  @Test
  void everySecurityKeyIsKnownAndEveryPasswordIsSecret() {
    assertThat(provider.keys())
        .containsExactly(
            "database",
            "client-name",
            "username",
            "password",
            "consolidate-flushes",
            "tls.enabled",
            "tls.ca-file",
            "tls.trust-store",
            "tls.trust-store-password",
            "tls.key-store",
            "tls.key-store-password",
            "tls.certificate-file",
            "tls.private-key-file",
            "tls.private-key-password",
            "tls.verify-hostname");
    assertThat(provider.secretKeys())
        .containsExactlyInAnyOrder(
            "password",
            "tls.trust-store-password",
            "tls.key-store-password",
            "tls.private-key-password");
    assertThat(provider.keys()).containsAll(provider.secretKeys());
  }

  @Test
  void flushesAreConsolidatedUnlessTurnedOff() {
    assertThat(created().consolidateFlushes()).isTrue();
    assertThat(created("consolidate-flushes", "FALSE").consolidateFlushes()).isFalse();
    assertThat(created("consolidate-flushes", "true").consolidateFlushes()).isTrue();
    assertThat(problems("consolidate-flushes", "sometimes"))
        .containsExactly(
            "shardwise.redis.consolidate-flushes: 'sometimes' is not allowed; expected one of"
                + " true, false");
  }

  @Test
  void withoutSecurityKeysThereIsNoAuthAndNoTls() {
    assertThat(problems()).isEmpty();
    RedisBackendOptions options = created();
    assertThat(options.username()).isEmpty();
    assertThat(options.password()).isEmpty();
    assertThat(options.tls()).isEmpty();
  }

  @Test
  void usernameAndPassword() {
    RedisBackendOptions options = created("username", "orders", "password", PASSWORD);
    assertThat(options.username()).hasValue("orders");
    assertThat(options.password()).hasValue(Secret.of(PASSWORD));
    assertThat(options.toString()).doesNotContain(PASSWORD).contains("password=****** (literal)");
    assertThat(created("password", PASSWORD).username()).isEmpty();

    assertThat(problems("username", "orders"))
        .containsExactly(
            "shardwise.redis.username: 'orders' is set but shardwise.redis.password is not; AUTH"
                + " needs both (a password alone is the default user)");
    assertThat(problems("username", "two words", "password", PASSWORD))
        .containsExactly(
            "shardwise.redis.username: 'two words' is not allowed; expected an ACL user name"
                + " without spaces or control characters");
    assertThat(problems("username", "ops\u001b[2J", "password", PASSWORD))
        .containsExactly(
            "shardwise.redis.username: 'ops\\x1b[2J' is not allowed; expected an ACL user name"
                + " without spaces or control characters");
  }

  @Test
  void passwordReferencesAreResolved() {
    String variable = someEnvironmentVariable();
    assertThat(created("password", "env:" + variable).password().orElseThrow().reveal())
        .isEqualTo(System.getenv(variable));
    Secret fromFile = created("password", "file:" + passwordFile).password().orElseThrow();
    assertThat(fromFile.reveal()).isEqualTo(PASSWORD);
    assertThat(fromFile.source()).isEqualTo("file:" + passwordFile);
    assertThat(created("password", "literal:env:x").password()).hasValue(Secret.of("env:x"));

    assertThat(problems("password", "env:SHARDWISE_TEST_NO_SUCH_VARIABLE"))
        .containsExactly(
            "shardwise.redis.password: secret reference env:SHARDWISE_TEST_NO_SUCH_VARIABLE: the"
                + " environment variable SHARDWISE_TEST_NO_SUCH_VARIABLE is not set; expected a"
                + " password, env:NAME, file:/path or literal:TEXT");
    assertThat(problems("password", "file:" + dir.resolve("missing")))
        .singleElement()
        .asString()
        .startsWith(
            "shardwise.redis.password: secret reference file:"
                + dir.resolve("missing")
                + ": cannot read the file");
    assertThat(problems("password", "literal:"))
        .containsExactly(
            "shardwise.redis.password: secret value is empty; expected a password, env:NAME,"
                + " file:/path or literal:TEXT");
    // A user name whose password cannot be resolved is not reported a second time.
    assertThat(problems("username", "orders", "password", "env:SHARDWISE_TEST_NO_SUCH_VARIABLE"))
        .hasSize(1);
  }

  @Test
  void tlsWithACaFileAndDefaults() {
    RedisTlsOptions tls =
        created("tls.enabled", "true", "tls.ca-file", caFile.toString()).tls().orElseThrow();
    assertThat(tls.caFile()).hasValue(caFile);
    assertThat(tls.verifyHostname()).isTrue();
    assertThat(created("tls.enabled", "TRUE").tls()).hasValue(RedisTlsOptions.defaults());
    assertThat(created("tls.enabled", "false").tls()).isEmpty();
  }

  @Test
  void tlsWithStoresAndWithPemFiles() throws Exception {
    RedisTlsOptions stores =
        created(
                "tls.enabled",
                "true",
                "tls.trust-store",
                trustStore.toString(),
                "tls.trust-store-password",
                STORE_PASSWORD,
                "tls.key-store",
                keyStore.toString(),
                "tls.key-store-password",
                "file:" + writeSecret(STORE_PASSWORD),
                "tls.verify-hostname",
                "false")
            .tls()
            .orElseThrow();
    assertThat(stores.trustStore()).hasValue(trustStore);
    assertThat(stores.trustStorePassword()).hasValue(Secret.of(STORE_PASSWORD));
    assertThat(stores.keyStore()).hasValue(keyStore);
    assertThat(stores.keyStorePassword()).hasValue(Secret.of(STORE_PASSWORD));
    assertThat(stores.verifyHostname()).isFalse();
    assertThat(stores.toString()).doesNotContain(STORE_PASSWORD);

    RedisTlsOptions pem =
        created(
                "tls.enabled", "true",
                "tls.certificate-file", certificate.toString(),
                "tls.private-key-file", privateKey.toString())
            .tls()
            .orElseThrow();
    assertThat(pem.certificateFile()).hasValue(certificate);
    assertThat(pem.privateKeyFile()).hasValue(privateKey);
    assertThat(pem.privateKeyPassword()).isEmpty();
  }

  @Test
  void tlsKeysWithoutTlsEnabledAreProblems() {
    assertThat(
            problems(
                "tls.ca-file",
                caFile.toString(),
                "tls.key-store-password",
                STORE_PASSWORD,
                "tls.verify-hostname",
                "true"))
        .containsExactly(
            "shardwise.redis.tls.ca-file: applies only when shardwise.redis.tls.enabled is true,"
                + " but it is not set (default false); the connections would not use TLS",
            "shardwise.redis.tls.key-store-password: applies only when shardwise.redis.tls.enabled"
                + " is true, but it is not set (default false); the connections would not use TLS",
            "shardwise.redis.tls.verify-hostname: applies only when shardwise.redis.tls.enabled is"
                + " true, but it is not set (default false); the connections would not use TLS");
    assertThat(problems("tls.enabled", "false", "tls.trust-store", trustStore.toString()))
        .containsExactly(
            "shardwise.redis.tls.trust-store: applies only when shardwise.redis.tls.enabled is"
                + " true, but it is false; the connections would not use TLS");
    // A wrong tls.enabled is reported alone.
    assertThat(problems("tls.enabled", "yes", "tls.ca-file", caFile.toString()))
        .containsExactly(
            "shardwise.redis.tls.enabled: 'yes' is not allowed; expected one of true, false");
  }

  @Test
  void badTlsValuesNameTheirKeyAndValue() {
    String missing = dir.resolve("missing.pem").toString();
    assertThat(problems("tls.enabled", "true", "tls.ca-file", missing))
        .containsExactly(
            "shardwise.redis.tls.ca-file: '"
                + missing
                + "' is not a readable file; expected a PEM file of the CA certificates to trust");
    assertThat(problems("tls.enabled", "true", "tls.ca-file", dir.toString()))
        .singleElement()
        .asString()
        .contains("is not a readable file");
    assertThat(problems("tls.enabled", "true", "tls.ca-file", garbage.toString()))
        .singleElement()
        .asString()
        .startsWith(
            "shardwise.redis.tls.ca-file: TLS settings are not usable (the CA file " + garbage);
    assertThat(
            problems(
                "tls.enabled",
                "true",
                "tls.trust-store",
                trustStore.toString(),
                "tls.trust-store-password",
                WRONG))
        .singleElement()
        .asString()
        .startsWith(
            "shardwise.redis.tls.trust-store: TLS trust store "
                + trustStore
                + " cannot be read (wrong password or not a key store)");
    assertThat(
            problems(
                "tls.enabled",
                "true",
                "tls.key-store",
                keyStore.toString(),
                "tls.key-store-password",
                WRONG))
        .singleElement()
        .asString()
        .startsWith("shardwise.redis.tls.key-store: TLS key store " + keyStore);
    assertThat(
            problems(
                "tls.enabled", "true",
                "tls.certificate-file", garbage.toString(),
                "tls.private-key-file", privateKey.toString()))
        .singleElement()
        .asString()
        .startsWith("shardwise.redis.tls.certificate-file: TLS settings are not usable");
    assertThat(problems("tls.enabled", "true", "tls.verify-hostname", "sometimes"))
        .containsExactly(
            "shardwise.redis.tls.verify-hostname: 'sometimes' is not allowed; expected one of"
                + " true, false");
    assertThat(
            problems(
                "tls.enabled", "true",
                "tls.trust-store", trustStore.toString(),
                "tls.trust-store-password", "env:SHARDWISE_TEST_NO_SUCH_VARIABLE"))
        .singleElement()
        .asString()
        .startsWith(
            "shardwise.redis.tls.trust-store-password: secret reference"
                + " env:SHARDWISE_TEST_NO_SUCH_VARIABLE");
  }

  @Test
  void tlsKeysThatGoTogetherOrExcludeEachOther() {
    assertThat(
            problems(
                "tls.enabled", "true",
                "tls.ca-file", caFile.toString(),
                "tls.trust-store", trustStore.toString()))
        .containsExactly(
            "shardwise.redis.tls.trust-store: set shardwise.redis.tls.ca-file or"
                + " shardwise.redis.tls.trust-store, not both");
    assertThat(
            problems(
                "tls.enabled", "true",
                "tls.key-store", keyStore.toString(),
                "tls.key-store-password", STORE_PASSWORD,
                "tls.certificate-file", certificate.toString(),
                "tls.private-key-file", privateKey.toString()))
        .containsExactly(
            "shardwise.redis.tls.certificate-file: the client certificate comes from"
                + " shardwise.redis.tls.key-store or from shardwise.redis.tls.certificate-file and"
                + " shardwise.redis.tls.private-key-file, not both");
    assertThat(problems("tls.enabled", "true", "tls.certificate-file", certificate.toString()))
        .containsExactly(
            "shardwise.redis.tls.private-key-file: missing; shardwise.redis.tls.certificate-file"
                + " needs its private key, a PKCS#8 PEM file");
    assertThat(problems("tls.enabled", "true", "tls.private-key-file", privateKey.toString()))
        .containsExactly(
            "shardwise.redis.tls.certificate-file: missing; shardwise.redis.tls.private-key-file"
                + " needs its certificate chain, a PEM file");
    assertThat(
            problems(
                "tls.enabled", "true",
                "tls.trust-store-password", STORE_PASSWORD,
                "tls.key-store-password", STORE_PASSWORD,
                "tls.private-key-password", STORE_PASSWORD))
        .containsExactly(
            "shardwise.redis.tls.trust-store-password: applies only with"
                + " shardwise.redis.tls.trust-store, which is not set",
            "shardwise.redis.tls.key-store-password: applies only with"
                + " shardwise.redis.tls.key-store, which is not set",
            "shardwise.redis.tls.private-key-password: applies only with"
                + " shardwise.redis.tls.private-key-file, which is not set");
  }

  @Test
  void createThrowsEveryProblemWithoutASecret() {
    assertThatThrownBy(
            () ->
                provider.create(
                    settings(
                        "username", "two words",
                        "password", WRONG,
                        "tls.key-store-password", WRONG),
                    Duration.ofMillis(250)))
        .isInstanceOf(InvalidSettingsException.class)
        .satisfies(e -> assertThat(((InvalidSettingsException) e).problems()).hasSize(2))
        .message()
        .doesNotContain(WRONG);
  }

  private static Path writeSecret(String secret) throws java.io.IOException {
    Path file = Files.createTempFile(dir, "secret", ".txt");
    Files.write(file, (secret + "\r\n").getBytes(StandardCharsets.UTF_8));
    return file;
  }
}
