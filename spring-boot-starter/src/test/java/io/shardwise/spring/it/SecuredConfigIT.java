package io.shardwise.spring.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.NodeAuthenticationException;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.spring.boot.ShardwiseAutoConfiguration;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerTls;
import io.shardwise.testing.TestCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Secured servers configured by {@code shardwise.*} keys alone: a password-protected Redis fleet
 * (password from a file and from an environment variable), Redis over TLS, memcached with SASL,
 * through the plain loader; and a Spring Boot context whose Redis password comes from its
 * properties. Every value round-trips through the fleet, and no password reaches the log or a
 * {@code toString()}.
 */
@Timeout(120)
@ExtendWith(OutputCaptureExtension.class)
class SecuredConfigIT {

  private static final String REDIS_PASSWORD = "Redis-config-pass-4Rf";
  private static final String TLS_PASSWORD = "Redis-tls-pass-6Hn";
  private static final String MEMCACHED_PASSWORD = "Sasl-config-pass-5Tg";
  private static final String WRONG = "Wrong-config-pass-7Mk";
  private static final int KEYS = 40;

  private static Path dir;
  private static Path passwordFile;
  private static Path caFile;
  private static String variable;
  private static ServerFleet<RedisServer> redis;
  private static ServerFleet<RedisServer> redisTls;
  private static ServerFleet<MemcachedServer> memcached;

  @BeforeAll
  static void start() throws IOException {
    dir = Files.createTempDirectory("shardwise-secured-config-");
    passwordFile = Files.writeString(dir.resolve("redis-password"), REDIS_PASSWORD + "\n");
    TestCertificates.Authority ca = TestCertificates.authority("Shardwise config IT CA");
    TestCertificates.Issued server = ca.issue("redis", "IP:127.0.0.1");
    caFile = ca.writeCertificate(dir.resolve("ca.pem"));
    ServerTls tls =
        ServerTls.of(
            server.writeCertificate(dir.resolve("server.pem")),
            server.writePrivateKey(dir.resolve("server.key")),
            caFile);

    // The environment cannot be set from a test: the default user gets a second password, the
    // value of a variable the process has, so that env:NAME is tried against a real server.
    variable = environmentVariable();
    redis = ServerFleet.redis(2).start();
    for (RedisServer node : redis.servers()) {
      node.command(
          "ACL", "SETUSER", "default", "on", ">" + REDIS_PASSWORD, ">" + System.getenv(variable));
    }
    redisTls =
        ServerFleet.redisBuilder()
            .servers(2)
            .tls(tls)
            .extraArgs("--requirepass", TLS_PASSWORD)
            .build()
            .start();
    memcached =
        ServerFleet.memcachedBuilder().servers(2).sasl("app", MEMCACHED_PASSWORD).build().start();
  }

  @AfterAll
  static void stop() throws IOException {
    for (ServerFleet<?> fleet : new ServerFleet<?>[] {redis, redisTls, memcached}) {
      if (fleet != null) {
        fleet.close();
      }
    }
    if (dir != null) {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** HOME or PATH if set, else the first variable with a non-empty value. */
  private static String environmentVariable() {
    for (String name : new String[] {"HOME", "PATH"}) {
      String value = System.getenv(name);
      if (value != null && !value.isEmpty()) {
        return name;
      }
    }
    return System.getenv().entrySet().stream()
        .filter(e -> !e.getValue().isEmpty() && !e.getKey().isEmpty())
        .map(Map.Entry::getKey)
        .sorted()
        .findFirst()
        .orElseThrow(() -> new AssertionError("the test needs an environment variable"));
  }

  private static Map<String, String> settings(
      String backend, ServerFleet<?> fleet, String... keyValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("shardwise.backend", backend);
    settings.put("shardwise.servers", String.join(",", fleet.addresses()));
    settings.put("shardwise.timeout", "1s");
    settings.put("shardwise.codec", "utf8");
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put("shardwise." + keyValues[i], keyValues[i + 1]);
    }
    return settings;
  }

  private static <T> T await(CompletableFuture<T> future) {
    return future.orTimeout(5, TimeUnit.SECONDS).join();
  }

  /** Writes and reads back keys spread over every server of the fleet. */
  private static void roundTrip(AsyncCacheClient<Object> client, String prefix) {
    Set<Object> nodes = new HashSet<>();
    for (int i = 0; i < KEYS; i++) {
      String key = prefix + ":" + i;
      await(client.set(key, "value-" + i, Duration.ofMinutes(1)));
      nodes.add(client.nodeFor(key));
    }
    for (int i = 0; i < KEYS; i++) {
      assertThat(await(client.get(prefix + ":" + i))).isEqualTo("value-" + i);
    }
    assertThat(nodes).hasSize(client.nodes().size());
  }

  @Test
  void aPasswordProtectedRedisThroughTheLoader(CapturedOutput output) {
    ShardwiseConfig fromFile =
        ShardwiseConfig.from(
            settings(
                "redis",
                redis,
                "redis.username",
                "default",
                "redis.password",
                "file:" + passwordFile));
    assertThat(fromFile.toString())
        .contains("shardwise.redis.password=****** (file:" + passwordFile + ")")
        .doesNotContain(REDIS_PASSWORD);
    try (AsyncCacheClient<Object> client = fromFile.build()) {
      roundTrip(client, "file");
      assertThat(client.toString()).doesNotContain(REDIS_PASSWORD);
    }

    ShardwiseConfig fromEnvironment =
        ShardwiseConfig.from(settings("redis", redis, "redis.password", "env:" + variable));
    try (AsyncCacheClient<Object> client = fromEnvironment.build()) {
      roundTrip(client, "env");
    }

    ShardwiseConfig literal =
        ShardwiseConfig.from(settings("redis", redis, "redis.password", REDIS_PASSWORD));
    try (AsyncCacheClient<Object> client = literal.build()) {
      roundTrip(client, "literal");
    }
    assertThat(output.getAll()).doesNotContain(REDIS_PASSWORD);
  }

  @Test
  void aWrongRedisPasswordFailsWithAnAuthenticationErrorThatDoesNotShowIt() {
    ShardwiseConfig wrong =
        ShardwiseConfig.from(
            settings("redis", redis, "redis.password", WRONG, "connect-wait", "0"));
    try (AsyncCacheClient<Object> client = wrong.build()) {
      Throwable failure = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (!(failure instanceof NodeAuthenticationException) && System.nanoTime() < deadline) {
        try {
          await(client.get("k"));
          failure = null;
        } catch (CompletionException e) {
          failure = e.getCause();
        }
        if (!(failure instanceof NodeAuthenticationException)) {
          sleep(50);
        }
      }
      assertThat(failure).isInstanceOf(NodeAuthenticationException.class);
      assertThat(failure.getMessage()).doesNotContain(WRONG);
    }
  }

  @Test
  void redisOverTlsThroughTheLoader() {
    ShardwiseConfig config =
        ShardwiseConfig.from(
            settings(
                "redis",
                redisTls,
                "redis.password",
                TLS_PASSWORD,
                "redis.tls.enabled",
                "true",
                "redis.tls.ca-file",
                caFile.toString()));
    assertThat(config.toString()).doesNotContain(TLS_PASSWORD);
    try (AsyncCacheClient<Object> client = config.build()) {
      roundTrip(client, "tls");
    }
  }

  @Test
  void saslMemcachedThroughTheLoader(CapturedOutput output) {
    ShardwiseConfig config =
        ShardwiseConfig.from(
            settings(
                "memcached",
                memcached,
                "memcached.protocol",
                "binary",
                "memcached.sasl.username",
                "app",
                "memcached.sasl.password",
                MEMCACHED_PASSWORD));
    assertThat(config.toString()).doesNotContain(MEMCACHED_PASSWORD);
    try (AsyncCacheClient<Object> client = config.build()) {
      roundTrip(client, "sasl");
      assertThat(client.toString()).doesNotContain(MEMCACHED_PASSWORD);
    }
    assertThat(output.getAll()).doesNotContain(MEMCACHED_PASSWORD);
  }

  @Test
  void aSpringBootContextWithTheRedisPasswordInItsProperties(CapturedOutput output) {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ShardwiseAutoConfiguration.class))
        .withPropertyValues(
            "shardwise.backend=redis",
            "shardwise.servers=" + String.join(",", redis.addresses()),
            "shardwise.codec=utf8",
            "shardwise.timeout=1s",
            "cache.redis-password=" + REDIS_PASSWORD,
            "shardwise.redis.password=${cache.redis-password}")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              @SuppressWarnings("unchecked")
              AsyncCacheClient<Object> client = context.getBean(AsyncCacheClient.class);
              roundTrip(client, "spring");
              assertThat(context.getBean(io.shardwise.spring.boot.ShardwiseSettings.class))
                  .asString()
                  .contains("shardwise.redis.password=******")
                  .doesNotContain(REDIS_PASSWORD);
            });
    assertThat(output.getAll()).doesNotContain(REDIS_PASSWORD);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }
}
