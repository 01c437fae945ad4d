package io.shardwise.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.jayway.jsonpath.JsonPath;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.memcached.MemcachedBackendProvider;
import io.shardwise.redis.RedisBackendProvider;
import io.shardwise.redis.RedisTlsOptions;
import io.shardwise.spi.InvalidSettingsException;
import io.shardwise.testing.TestCertificates;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * The credential and TLS keys ({@code shardwise.redis.username}, {@code .password}, {@code .tls.*},
 * {@code shardwise.memcached.sasl.*}) through the plain loader and through Spring Boot: the same
 * values, the same messages, and never a secret in a message, a {@code toString()}, the log or the
 * metadata. Without servers (see {@code SecuredConfigIT} for round trips).
 */
@ExtendWith(OutputCaptureExtension.class)
class SecurityPropertiesTest {

  private static final String SECRET = "Leaky-secret-7Uj";
  private static final String STORE_PASSWORD = "Store-secret-8Ik";
  private static final String MISSING_VARIABLE = "SHARDWISE_TEST_NO_SUCH_VARIABLE";

  /** Nothing listens there: the settings are checked before any connection would be made. */
  private static final String SERVERS = "127.0.0.1:1,127.0.0.1:2";

  @TempDir static Path dir;

  private static Path caFile;
  private static Path trustStore;
  private static Path passwordFile;

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(ShardwiseAutoConfiguration.class));

  @BeforeAll
  static void files() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("Properties test CA");
    caFile = ca.writeCertificate(dir.resolve("ca.pem"));
    trustStore = ca.writeTrustStore(dir.resolve("trust.p12"), STORE_PASSWORD.toCharArray());
    passwordFile = Files.writeString(dir.resolve("redis-password"), SECRET + "\n");
  }

  private static Map<String, String> redis(String... keyValues) {
    return settings("redis", keyValues);
  }

  private static Map<String, String> memcached(String... keyValues) {
    return settings("memcached", keyValues);
  }

  private static Map<String, String> settings(String backend, String... keyValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("shardwise.backend", backend);
    settings.put("shardwise.servers", SERVERS);
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put("shardwise." + keyValues[i], keyValues[i + 1]);
    }
    return settings;
  }

  private static List<String> problems(Map<String, String> settings) {
    try {
      ShardwiseConfig.from(settings);
    } catch (InvalidSettingsException e) {
      assertThat(e.getMessage()).doesNotContain(SECRET).doesNotContain(STORE_PASSWORD);
      return e.problems();
    }
    throw new AssertionError("expected the settings to be rejected: " + settings.keySet());
  }

  private static String anEnvironmentVariable() {
    return System.getenv().entrySet().stream()
        .filter(e -> !e.getValue().isEmpty() && !e.getKey().isEmpty())
        .map(Map.Entry::getKey)
        .sorted()
        .findFirst()
        .orElseThrow(() -> new AssertionError("the test needs an environment variable"));
  }

  // ---- the plain loader ----------------------------------------------------------------------

  @Test
  void thePlainLoaderReadsEverySecurityKey() {
    ShardwiseConfig config =
        ShardwiseConfig.from(
            redis(
                "redis.username",
                "orders",
                "redis.password",
                SECRET,
                "redis.tls.enabled",
                "true",
                "redis.tls.trust-store",
                trustStore.toString(),
                "redis.tls.trust-store-password",
                STORE_PASSWORD,
                "redis.tls.verify-hostname",
                "false"));
    assertThat(config.settings())
        .containsEntry("shardwise.redis.username", "orders")
        .containsEntry("shardwise.redis.password", "******")
        .containsEntry("shardwise.redis.tls.enabled", "true")
        .containsEntry("shardwise.redis.tls.trust-store", trustStore.toString())
        .containsEntry("shardwise.redis.tls.trust-store-password", "******")
        .containsEntry("shardwise.redis.tls.verify-hostname", "false");
    assertThat(
            ShardwiseConfig.from(
                    redis("redis.tls.enabled", "true", "redis.tls.ca-file", caFile.toString()))
                .backendSettings())
        .containsExactly(
            Map.entry("tls.ca-file", caFile.toString()), Map.entry("tls.enabled", "true"));

    ShardwiseConfig sasl =
        ShardwiseConfig.from(
            memcached(
                "memcached.protocol", "binary",
                "memcached.sasl.username", "app",
                "memcached.sasl.password", SECRET));
    assertThat(sasl.backendSettings())
        .containsEntry("sasl.username", "app")
        .containsEntry("sasl.password", "******");
  }

  @Test
  void toStringAndSettingsShowWhereASecretIsNeverWhatItIs() {
    ShardwiseConfig literal = ShardwiseConfig.from(redis("redis.password", SECRET));
    assertThat(literal.toString())
        .doesNotContain(SECRET)
        .contains("shardwise.redis.password=******");
    assertThat(literal.settings().toString()).doesNotContain(SECRET);
    assertThat(literal.backendSettings().toString()).doesNotContain(SECRET);
    assertThat(literal)
        .isEqualTo(ShardwiseConfig.from(redis("redis.password", SECRET)))
        .isNotEqualTo(ShardwiseConfig.from(redis("redis.password", SECRET + "x")));

    ShardwiseConfig fromFile =
        ShardwiseConfig.from(redis("redis.password", "file:" + passwordFile));
    assertThat(fromFile.toString())
        .contains("shardwise.redis.password=****** (file:" + passwordFile + ")")
        .doesNotContain(SECRET);
    String variable = anEnvironmentVariable();
    assertThat(ShardwiseConfig.from(redis("redis.password", "env:" + variable)).toString())
        .contains("shardwise.redis.password=****** (env:" + variable + ")");
    // Only what Secret.resolve takes for a reference is shown; anything else is a literal.
    assertThat(ShardwiseConfig.from(redis("redis.password", "literal:env:" + SECRET)).toString())
        .doesNotContain(SECRET)
        .doesNotContain("(env:")
        .contains("shardwise.redis.password=******");
    assertThat(ShardwiseConfig.from(redis("redis.password", "ENV:" + SECRET)).toString())
        .doesNotContain(SECRET);

    ShardwiseConfig sasl =
        ShardwiseConfig.from(
            memcached(
                "memcached.protocol", "binary",
                "memcached.sasl.username", "app",
                "memcached.sasl.password", SECRET));
    assertThat(sasl.toString())
        .doesNotContain(SECRET)
        .contains("shardwise.memcached.sasl.password=******");
  }

  @Test
  void referencesAreResolvedWhenTheSettingsAreChecked() {
    ShardwiseConfig.from(redis("redis.password", "env:" + anEnvironmentVariable()));
    ShardwiseConfig.from(redis("redis.password", "file:" + passwordFile));
    assertThat(problems(redis("redis.password", "env:" + MISSING_VARIABLE)))
        .containsExactly(
            "shardwise.redis.password: secret reference env:"
                + MISSING_VARIABLE
                + ": the environment variable "
                + MISSING_VARIABLE
                + " is not set; expected a password, env:NAME, file:/path or literal:TEXT");
    assertThat(
            problems(
                memcached(
                    "memcached.protocol", "binary",
                    "memcached.sasl.username", "app",
                    "memcached.sasl.password", "file:" + dir.resolve("absent"))))
        .singleElement()
        .asString()
        .startsWith(
            "shardwise.memcached.sasl.password: secret reference file:"
                + dir.resolve("absent")
                + ": cannot read the file");
  }

  @Test
  void everySecurityKeyNamesItselfWhenItsValueIsWrong() {
    assertThat(problems(redis("redis.username", "two words", "redis.password", SECRET)))
        .containsExactly(
            "shardwise.redis.username: 'two words' is not allowed; expected an ACL user name"
                + " without spaces or control characters");
    assertThat(problems(redis("redis.username", "orders")))
        .singleElement()
        .asString()
        .startsWith(
            "shardwise.redis.username: 'orders' is set but shardwise.redis.password is not");
    assertThat(problems(redis("redis.tls.enabled", "on")))
        .containsExactly(
            "shardwise.redis.tls.enabled: 'on' is not allowed; expected one of true, false");
    assertThat(problems(redis("redis.tls.enabled", "true", "redis.tls.verify-hostname", "no")))
        .containsExactly(
            "shardwise.redis.tls.verify-hostname: 'no' is not allowed; expected one of true,"
                + " false");
    for (String key :
        List.of(
            "tls.ca-file",
            "tls.trust-store",
            "tls.key-store",
            "tls.certificate-file",
            "tls.private-key-file")) {
      assertThat(
              problems(
                  redis(
                      "redis.tls.enabled",
                      "true",
                      "redis." + key,
                      dir.resolve("nothing").toString())))
          .as(key)
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith(
                          "shardwise.redis."
                              + key
                              + ": '"
                              + dir.resolve("nothing")
                              + "' is not a readable file; expected "));
    }
    assertThat(
            problems(
                memcached("memcached.sasl.username", "app", "memcached.sasl.password", SECRET)))
        .containsExactly(
            "shardwise.memcached.sasl.username: SASL needs shardwise.memcached.protocol=binary, but"
                + " shardwise.memcached.protocol is not set (default text); memcached speaks SASL"
                + " only over the binary protocol");
  }

  @Test
  void aWrongValueOfASecretKeyIsNeverEchoedByThePlainLoader() {
    List<Map<String, String>> wrong =
        List.of(
            redis("redis.username", "two words", "redis.password", SECRET),
            redis("redis.tls.trust-store-password", SECRET),
            redis("redis.tls.key-store-password", SECRET),
            redis("redis.tls.private-key-password", SECRET),
            redis(
                "redis.tls.enabled",
                "true",
                "redis.tls.trust-store",
                trustStore.toString(),
                "redis.tls.trust-store-password",
                SECRET),
            redis("redis.tls.enabled", "true", "redis.tls.key-store-password", SECRET),
            redis("redis.password", SECRET, "redis.PASSWORD", SECRET),
            redis("redis.password", SECRET, "redis.database", "-1"),
            redis("memcached.sasl.password", SECRET),
            memcached("redis.password", SECRET),
            memcached("memcached.sasl.password", SECRET),
            memcached("memcached.sasl.username", "app", "memcached.sasl.password", SECRET),
            memcached(
                "memcached.protocol", "bin",
                "memcached.sasl.username", "app",
                "memcached.sasl.password", SECRET));
    for (Map<String, String> settings : wrong) {
      assertThat(problems(settings)).as(settings.keySet().toString()).isNotEmpty();
    }
    assertThat(problems(redis("redis.password", SECRET, "redis.PASSWORD", SECRET)))
        .containsExactly(
            "shardwise.redis.PASSWORD and shardwise.redis.password name the same key; set it once");
    assertThat(problems(memcached("redis.password", SECRET)))
        .containsExactly(
            "shardwise.redis.password: applies to backend redis only, but shardwise.backend is"
                + " memcached");
  }

  // ---- Spring Boot ---------------------------------------------------------------------------

  @Test
  void springReadsTheSecurityKeysAsThePlainLoaderDoes() {
    Map<String, Object> spring = new LinkedHashMap<>();
    spring.put("shardwise.backend", "redis");
    spring.put("shardwise.servers", SERVERS);
    spring.put("shardwise.redis.username", "orders");
    spring.put("shardwise.redis.tls.enabled", "true");
    spring.put("shardwise.redis.tls.trustStore", trustStore.toString());
    spring.put("shardwise.redis.tls.trust-store-password", "${store.password}");
    spring.put("store.password", STORE_PASSWORD);
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", spring));
    Map<String, Object> env = new HashMap<>();
    env.put("SHARDWISE_REDIS_PASSWORD", "file:" + passwordFile);
    env.put("SHARDWISE_REDIS_TLS_VERIFYHOSTNAME", "false");
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            new SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env));

    ShardwiseConfig fromSpring = ShardwiseSettings.read(environment, true).config().orElseThrow();

    Properties properties = new Properties();
    properties.putAll(redis());
    properties.setProperty("shardwise.redis.username", "orders");
    properties.setProperty("shardwise.redis.password", "file:" + passwordFile);
    properties.setProperty("shardwise.redis.tls.enabled", "true");
    properties.setProperty("shardwise.redis.tls.trust-store", trustStore.toString());
    properties.setProperty("shardwise.redis.tls.trust-store-password", STORE_PASSWORD);
    properties.setProperty("shardwise.redis.tls.verify-hostname", "false");
    ShardwiseConfig plain = ShardwiseConfig.from(properties);

    assertThat(fromSpring).isEqualTo(plain);
    assertThat(fromSpring.settings()).isEqualTo(plain.settings());
    assertThat(fromSpring.toString()).doesNotContain(STORE_PASSWORD).doesNotContain(SECRET);
  }

  @Test
  void aWrongSecretStopsTheContextWithoutShowingIt(CapturedOutput output) {
    runner
        .withPropertyValues(
            "shardwise.backend=redis",
            "shardwise.servers=" + SERVERS,
            "shardwise.redis.username=two words",
            "shardwise.redis.password=" + SECRET,
            "shardwise.redis.tls.key-store-password=" + SECRET,
            "shardwise.memcached.sasl.password=" + SECRET)
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable failure = context.getStartupFailure();
              assertThat(failure)
                  .rootCause()
                  .isInstanceOf(InvalidSettingsException.class)
                  .hasMessage(
                      String.join(
                          "\n",
                          "shardwise.redis.username: 'two words' is not allowed; expected an ACL"
                              + " user name without spaces or control characters",
                          "shardwise.redis.tls.key-store-password: applies only when"
                              + " shardwise.redis.tls.enabled is true, but it is not set (default"
                              + " false); the connections would not use TLS",
                          "shardwise.memcached.sasl.password: applies to backend memcached only,"
                              + " but shardwise.backend is redis"));
              StringWriter trace = new StringWriter();
              failure.printStackTrace(new PrintWriter(trace));
              assertThat(trace.toString()).doesNotContain(SECRET);
              FailureAnalysis analysis = new InvalidSettingsFailureAnalyzer().analyze(failure);
              assertThat(analysis.getDescription())
                  .contains("shardwise.redis.tls.key-store-password")
                  .doesNotContain(SECRET);
            });
    // The context's failure is logged (so the capture is not empty), without the secret.
    assertThat(output.getAll())
        .contains("shardwise.redis.username: 'two words' is not allowed")
        .doesNotContain(SECRET);
  }

  @Test
  void anUnresolvablePlaceholderInAPasswordIsReportedWithoutTheValue() {
    runner
        .withPropertyValues(
            "shardwise.backend=redis",
            "shardwise.servers=" + SERVERS,
            "shardwise.redis.password=" + SECRET + "${no.such.placeholder}")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .hasMessage(
                      "shardwise.redis.password: a placeholder in the value cannot be resolved"
                          + " (the value is a secret and is not shown)");
              StringWriter trace = new StringWriter();
              context.getStartupFailure().printStackTrace(new PrintWriter(trace));
              assertThat(trace.toString()).doesNotContain(SECRET);
            });
    assertThatThrownBy(
            () -> {
              StandardEnvironment environment = new StandardEnvironment();
              environment
                  .getPropertySources()
                  .addFirst(
                      new MapPropertySource(
                          "test",
                          Map.of(
                              "shardwise.backend", "redis",
                              "shardwise.servers", SERVERS,
                              "shardwise.redis.client-name", "${no.such.placeholder}")));
              ShardwiseSettings.read(environment, true);
            })
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageStartingWith("shardwise.redis.client-name: ")
        .hasMessageContaining("no.such.placeholder");
  }

  @Test
  void theMetadataListsTheSecurityKeysWithTheLoadersDefaultsAndNoPassword() throws Exception {
    List<Map<String, Object>> list;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      list = JsonPath.read(in, "$.properties[*]");
    }
    Map<String, Map<String, Object>> properties = new HashMap<>();
    list.forEach(p -> properties.put((String) p.get("name"), p));
    for (String key : new RedisBackendProvider().secretKeys()) {
      assertThat(properties.get("shardwise.redis." + key))
          .as(key)
          .doesNotContainKey("defaultValue");
    }
    for (String key : new MemcachedBackendProvider().secretKeys()) {
      assertThat(properties.get("shardwise.memcached." + key))
          .as(key)
          .doesNotContainKey("defaultValue");
    }
    assertThat(properties.get("shardwise.redis.tls.enabled").get("defaultValue"))
        .isEqualTo(false);
    assertThat(properties.get("shardwise.redis.tls.verify-hostname").get("defaultValue"))
        .isEqualTo(RedisTlsOptions.DEFAULT_VERIFY_HOSTNAME);
    assertThat(properties.get("shardwise.redis.password").get("description").toString())
        .contains("env:NAME", "file:/path");
    assertThat(properties.get("shardwise.memcached.sasl.password").get("description").toString())
        .contains("env:NAME", "file:/path");
  }
}
