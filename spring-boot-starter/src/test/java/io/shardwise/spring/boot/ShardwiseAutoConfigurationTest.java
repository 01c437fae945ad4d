package io.shardwise.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import com.jayway.jsonpath.JsonPath;
import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.config.ConfigKey;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.memcached.MemcachedBackendProvider;
import io.shardwise.redis.RedisBackendProvider;
import io.shardwise.spi.InvalidSettingsException;
import io.shardwise.spring.cache.CacheSettings;
import io.shardwise.spring.cache.ShardwiseCacheManager;
import java.io.InputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.util.StringUtils;

/** The auto-configuration's logic, without servers: properties, messages, backing off, metadata. */
@ExtendWith(OutputCaptureExtension.class)
class ShardwiseAutoConfigurationTest {

  /** Nothing listens there: the settings are checked before any connection would be made. */
  private static final String SERVERS = "127.0.0.1:1,127.0.0.1:2,cache-c=127.0.0.1:3:2";

  private final ApplicationContextRunner runner =
      new ApplicationContextRunner()
          .withConfiguration(
              AutoConfigurations.of(
                  ShardwiseAutoConfiguration.class,
                  ShardwiseCacheAutoConfiguration.class,
                  ShardwiseHealthAutoConfiguration.class,
                  ShardwiseMetricsAutoConfiguration.class,
                  CacheAutoConfiguration.class));

  @Test
  void aWrongPropertyValueStopsTheContextNamingTheKeyTheValueAndWhatIsAllowed() {
    runner
        .withPropertyValues(
            "shardwise.backend=memcached",
            "shardwise.servers=" + SERVERS,
            "shardwise.rejoin=hope",
            "shardwise.bounded.epsilon=-0.1",
            "shardwise.timout=1s",
            "shardwise.cache.ttl=forever")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .rootCause()
                  .isInstanceOf(InvalidSettingsException.class)
                  .hasMessage(
                      String.join(
                          "\n",
                          "shardwise.cache.ttl: 'forever' is not a duration; expected a number and"
                              + " a unit (ns, us, ms, s, m, h, d) such as 250ms or 2s",
                          "shardwise.rejoin: 'hope' is not allowed; expected one of journal, flush,"
                              + " keep",
                          "shardwise.bounded.epsilon: must be > 0 but was -0.1",
                          "unknown key shardwise.timout (did you mean shardwise.timeout?)"));
            });
  }

  @Test
  void missingOrAbsentBackendsAreNamed() {
    runner.run(
        context ->
            assertThat(context.getStartupFailure())
                .rootCause()
                .hasMessage(
                    "shardwise.backend: missing; expected one of memcached, redis\n"
                        + "shardwise.servers: missing; expected a comma-separated list such as"
                        // The example list is part of the library's message (ServerSource); no test server.
                        + " 10.0.0.1:11211,10.0.0.2:11211, or shardwise.servers-file or"
                        + " shardwise.servers-dns"));
    runner
        .withPropertyValues("shardwise.backend=mongo", "shardwise.servers=" + SERVERS)
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessage(
                        "shardwise.backend: 'mongo' is not allowed; expected one of memcached,"
                            + " redis"));
  }

  @Test
  void theFailureAnalyzerListsEveryProblem() {
    InvalidSettingsException e =
        new InvalidSettingsException(
            java.util.List.of(
                "shardwise.rejoin: 'hope' is not allowed", "unknown key shardwise.x"));
    FailureAnalysis analysis =
        new InvalidSettingsFailureAnalyzer().analyze(new IllegalStateException(e));
    assertThat(analysis.getDescription())
        .isEqualTo(
            "The Shardwise properties cannot be used:\n\n"
                + "    shardwise.rejoin: 'hope' is not allowed\n"
                + "    unknown key shardwise.x");
    // A jar user has no docs/ folder: the action points at what the jar carries.
    assertThat(analysis.getAction())
        .contains("META-INF/spring-configuration-metadata.json")
        .doesNotContain("docs/");
  }

  @Test
  void springReadsTheSamePropertiesAsThePlainLoaderRelaxedNamesAndYamlListsIncluded() {
    Map<String, Object> spring = new LinkedHashMap<>();
    spring.put("shardwise.backend", "redis");
    spring.put("shardwise.servers[0]", "127.0.0.1:1");
    spring.put("shardwise.servers[1]", "127.0.0.1:2");
    spring.put("shardwise.servers[2]", "cache-c=127.0.0.1:3:2");
    spring.put("shardwise.failureMode", "fail-fast");
    spring.put("shardwise.hash-tag", "{}");
    spring.put("shardwise.router", "hrw");
    spring.put("shardwise.timeout", "${cache.timeout:400ms}");
    spring.put("shardwise.redis.database", "3");
    spring.put("shardwise.redis.clientName", "orders");
    spring.put("shardwise.bounded.enabled", "true");
    spring.put("shardwise.bounded.spillTtl", "30s");
    spring.put("other.key", "x");
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", spring));
    Map<String, String> env = new HashMap<>();
    env.put("SHARDWISE_BOUNDED_PROBELIMIT", "4");
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            new org.springframework.core.env.SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, new HashMap<>(env)));

    ShardwiseConfig fromSpring = ShardwiseSettings.read(environment, true).config().orElseThrow();

    Properties properties = new Properties();
    properties.setProperty("shardwise.backend", "redis");
    properties.setProperty("shardwise.servers", SERVERS);
    properties.setProperty("shardwise.failure-mode", "fail-fast");
    properties.setProperty("shardwise.hash-tag", "{}");
    properties.setProperty("shardwise.router", "hrw");
    properties.setProperty("shardwise.timeout", "400ms");
    properties.setProperty("shardwise.redis.database", "3");
    properties.setProperty("shardwise.redis.client-name", "orders");
    properties.setProperty("shardwise.bounded.enabled", "true");
    properties.setProperty("shardwise.bounded.probe-limit", "4");
    properties.setProperty("shardwise.bounded.spill-ttl", "30s");
    ShardwiseConfig plain = ShardwiseConfig.from(properties);

    assertThat(fromSpring).isEqualTo(plain);
    assertThat(fromSpring.settings()).isEqualTo(plain.settings());
    assertThat(fromSpring.bounded().probeLimit()).isEqualTo(4);
    assertThat(fromSpring.bounded().spillTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(fromSpring.timeout()).isEqualTo(Duration.ofMillis(400));
  }

  @Test
  void unknownEnvironmentVariablesAndSystemPropertiesAreNotProblems() {
    StandardEnvironment environment = new StandardEnvironment();
    Map<String, Object> env = new HashMap<>();
    env.put("SHARDWISE_HOME", "/opt/app");
    env.put("SHARDWISE_TIMEOUT", "3s");
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
            new org.springframework.core.env.SystemEnvironmentPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, env));
    environment
        .getPropertySources()
        .replace(
            StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
            new MapPropertySource(
                StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
                Map.of("shardwise.test.servers", "local")));
    Map<String, Object> file = new LinkedHashMap<>();
    file.put("shardwise.backend", "memcached");
    file.put("shardwise.servers", SERVERS);
    environment
        .getPropertySources()
        .addFirst(new MapPropertySource("application.properties", file));
    ShardwiseConfig config = ShardwiseSettings.read(environment, true).config().orElseThrow();
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(3));

    file.put("shardwise.home", "/opt/app");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ShardwiseSettings.read(environment, true))
        .hasMessage("unknown key shardwise.home");
  }

  @Test
  void theContextsClientIsTheOneThePlainLoaderBuildsFromTheSameProperties() throws Exception {
    Properties properties = new Properties();
    try (InputStream in = getClass().getResourceAsStream("/same-client.properties")) {
      properties.load(in);
    }
    String[] pairs =
        properties.stringPropertyNames().stream()
            .map(k -> k + "=" + properties.getProperty(k))
            .toArray(String[]::new);
    runner
        .withPropertyValues(pairs)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              ShardwiseConfig spring =
                  context.getBean(ShardwiseSettings.class).config().orElseThrow();
              ShardwiseConfig plain = ShardwiseConfig.fromClasspath("same-client.properties");
              assertThat(spring).isEqualTo(plain);
              @SuppressWarnings("unchecked")
              AsyncCacheClient<Object> client = context.getBean(AsyncCacheClient.class);
              try (AsyncCacheClient<Object> built = plain.build()) {
                assertThat(client.nodes()).isEqualTo(built.nodes());
                assertThat(client.toString()).isEqualTo(built.toString());
                IntStream.range(0, 2000)
                    .mapToObj(i -> "user:" + i)
                    .forEach(key -> assertThat(client.nodeFor(key)).isEqualTo(built.nodeFor(key)));
              }
            });
  }

  @Test
  void backsOffWhenTheApplicationHasItsOwnClientAndCacheManager() {
    runner
        .withUserConfiguration(OwnClient.class)
        .withPropertyValues("shardwise.cache.ttl=5m")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context)
                  .getBean(AsyncCacheClient.class)
                  .isSameAs(context.getBean("ownClient"));
              assertThat(context).hasSingleBean(ShardwiseSettings.class);
              assertThat(context.getBean(ShardwiseSettings.class).config()).isEmpty();
              assertThat(context.getBean(CacheManager.class))
                  .isInstanceOf(ShardwiseCacheManager.class);
              assertThat(
                      ((ShardwiseCacheManager) context.getBean(CacheManager.class))
                          .settings()
                          .forCache("x")
                          .ttl())
                  .isEqualTo(Duration.ofMinutes(5));
            });
    runner
        .withUserConfiguration(OwnClient.class, OwnCacheManager.class)
        .run(
            context ->
                assertThat(context.getBean(CacheManager.class))
                    .isNotInstanceOf(ShardwiseCacheManager.class));
    runner
        .withUserConfiguration(OwnClient.class)
        .withPropertyValues("shardwise.cache.enabled=false")
        .run(
            context ->
                assertThat(context.getBean(CacheManager.class))
                    .isNotInstanceOf(ShardwiseCacheManager.class));
  }

  @Test
  void bootsRedisCacheKeysAreNamedWithTheShardwiseKeyToSetInstead() {
    Map<String, Object> spring = new LinkedHashMap<>();
    spring.put("spring.cache.redis.time-to-live", "10m");
    spring.put("spring.cache.redis.keyPrefix", "app:");
    spring.put("spring.cache.redis.cache-null-values", "false");
    spring.put("spring.cache.redis.use-key-prefix", "false");
    spring.put("spring.cache.redis.no-such-key", "x");
    spring.put("spring.cache.cache-names", "books");
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", spring));
    environment
        .getPropertySources()
        .addFirst(
            new SystemEnvironmentPropertySource(
                "test-" + StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of(
                    "SPRING_CACHE_REDIS_ENABLESTATISTICS", "false",
                    "SPRING_CACHE_REDIS_TIMETOLIVE", "5m")));

    assertThat(BootRedisCacheKeys.warning(environment))
        .hasValue(
            String.join(
                "\n",
                "spring.cache.redis.* configures Spring Boot's Redis cache manager, but the"
                    + " Shardwise cache manager serves the caches of this application; these keys"
                    + " are ignored:",
                "ignored key spring.cache.redis.cache-null-values (set"
                    + " shardwise.cache.cache-null-values instead)",
                "ignored key spring.cache.redis.enable-statistics (set"
                    + " shardwise.cache.enable-statistics instead)",
                "ignored key spring.cache.redis.key-prefix (set shardwise.cache.key-prefix"
                    + " instead)",
                "ignored key spring.cache.redis.no-such-key (no shardwise.cache.* key does the"
                    + " same)",
                "ignored key spring.cache.redis.time-to-live (set shardwise.cache.ttl instead)",
                "ignored key spring.cache.redis.use-key-prefix (set shardwise.cache.use-key-prefix"
                    + " instead)"));
    assertThat(BootRedisCacheKeys.warning(new StandardEnvironment())).isEmpty();
  }

  @Test
  void bootsRedisCacheKeysAreWarnedOfOnceWhenTheShardwiseCacheManagerServes(
      CapturedOutput output) {
    String warning = "spring.cache.redis.* configures Spring Boot's Redis cache manager";
    runner
        .withUserConfiguration(OwnClient.class)
        .withPropertyValues(
            "spring.cache.redis.time-to-live=10m", "spring.cache.redis.key-prefix=app:")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(CacheManager.class))
                  .isInstanceOf(ShardwiseCacheManager.class);
            });
    assertThat(StringUtils.countOccurrencesOf(output.getAll(), warning)).isEqualTo(1);
    assertThat(output.getAll())
        .contains(
            "ignored key spring.cache.redis.time-to-live (set shardwise.cache.ttl instead)",
            "ignored key spring.cache.redis.key-prefix (set shardwise.cache.key-prefix instead)");

    // Boot's cache manager serves (here its simple one), or nothing is set: no warning.
    runner
        .withUserConfiguration(OwnClient.class)
        .withPropertyValues("spring.cache.type=simple", "spring.cache.redis.time-to-live=10m")
        .run(context -> assertThat(context).hasNotFailed());
    runner
        .withUserConfiguration(OwnClient.class)
        .run(context -> assertThat(context).hasNotFailed());
    assertThat(StringUtils.countOccurrencesOf(output.getAll(), warning)).isEqualTo(1);
  }

  @Test
  void cacheSettingsHaveDefaultsAndPerCacheValues() {
    Map<String, Object> spring = new LinkedHashMap<>();
    spring.put("shardwise.cache.ttl", "10m");
    spring.put("shardwise.cache.key-prefix", "app:");
    spring.put("shardwise.cache.caches.books.ttl", "30s");
    spring.put("shardwise.cache.caches[users.by-id].key-prefix", "u:");
    spring.put("shardwise.cache.caches[users.by-id].cache-null-values", "false");
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", spring));
    CacheSettings cache = ShardwiseSettings.read(environment, false).cache();
    assertThat(cache.forCache("books").ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(cache.forCache("books").keyPrefix()).isEqualTo("app:books:");
    assertThat(cache.forCache("users.by-id").keyPrefix()).isEqualTo("u:");
    assertThat(cache.forCache("users.by-id").cacheNullValues()).isFalse();
    assertThat(cache.forCache("users.by-id").ttl()).isEqualTo(Duration.ofMinutes(10));
    assertThat(cache.forCache("other").keyPrefix()).isEqualTo("app:other:");
    assertThat(cache.forCache("other").cacheNullValues()).isTrue();
    assertThat(cache.caches()).containsOnlyKeys("books", "users.by-id");

    spring.put("shardwise.cache.caches.books.tll", "30s");
    spring.put("shardwise.cache.key-prefix", "has space");
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> ShardwiseSettings.read(environment, false))
        .hasMessage(
            "shardwise.cache.key-prefix: 'has space' is not allowed; expected text without"
                + " whitespace or control characters");
  }

  @Test
  void theGeneratedMetadataListsEveryKeyWithTheLoadersDefaults() throws Exception {
    java.util.List<Map<String, Object>> list;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      list = JsonPath.read(in, "$.properties[*]");
    }
    Map<String, Map<String, Object>> properties = new HashMap<>();
    list.forEach(p -> properties.put((String) p.get("name"), p));
    for (ConfigKey key : ShardwiseConfig.keys()) {
      assertThat(properties).as(key.fullName()).containsKey(key.fullName());
      Map<String, Object> property = properties.get(key.fullName());
      assertThat((String) property.get("description")).as(key.fullName()).isNotBlank();
      if (!key.defaultValue().startsWith("(")) {
        assertThat(String.valueOf(property.get("defaultValue"))).as(key.fullName()).isEqualTo(key.defaultValue());
      }
    }
    for (String key : new MemcachedBackendProvider().keys()) {
      assertThat(properties).containsKey("shardwise.memcached." + key);
    }
    for (String key : new RedisBackendProvider().keys()) {
      assertThat(properties).containsKey("shardwise.redis." + key);
    }
    assertThat(properties)
        .containsKeys(
            "shardwise.cache.enabled",
            "shardwise.cache.ttl",
            "shardwise.cache.key-prefix",
            "shardwise.cache.cache-null-values",
            "shardwise.cache.generation-refresh",
            "shardwise.cache.caches");
    assertThat(properties.get("shardwise.cache.ttl").get("defaultValue"))
        .isEqualTo(io.shardwise.spi.SettingsReader.format(CacheSettings.DEFAULT_TTL));
  }

  /**
   * The metadata gives each key the type an IDE should check its values against (the build's
   * RetypeMetadata step): every duration key the loader reads (the keys where Boot's bare-number
   * rule applies) is a {@code Duration}, flags are booleans, counts are integers; every typed
   * default reads the same in Boot's type as in the loader; keys named by an enum's constants have
   * that enum; and no key left as text has a default that looks like a duration, a number or a
   * flag (a key added without its type).
   */
  @Test
  @SuppressWarnings("unchecked")
  void theMetadataTypesEveryKeyAsTheLoaderReadsIt() throws Exception {
    java.util.List<Map<String, Object>> list;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      list = JsonPath.read(in, "$.properties[*]");
    }
    java.util.Set<String> durations = new java.util.HashSet<>();
    Map<String, Class<?>> enums = new HashMap<>();
    java.util.regex.Pattern looksTyped =
        java.util.regex.Pattern.compile("true|false|[+-]?\\d+(\\.\\d+)?([a-zA-Z]{1,2})?");
    for (Map<String, Object> p : list) {
      String name = (String) p.get("name");
      String type = (String) p.get("type");
      Object value = p.get("defaultValue");
      switch (type) {
        case "java.time.Duration" -> {
          durations.add(name.substring("shardwise.".length()).replace("-", ""));
          if (value != null) {
            assertThat(org.springframework.boot.convert.DurationStyle.detectAndParse((String) value))
                .as(name)
                .isEqualTo(io.shardwise.spi.SettingsReader.parseDuration((String) value));
          }
        }
        case "org.springframework.util.unit.DataSize" -> {
          if (value != null) {
            assertThat(org.springframework.util.unit.DataSize.parse((String) value).toBytes())
                .as(name)
                .isEqualTo(io.shardwise.spi.SettingsReader.parseBytes((String) value));
          }
        }
        case "java.lang.Boolean" -> assertThat(value).as(name).isInstanceOf(Boolean.class);
        case "java.lang.Integer" -> {
          if (value != null || !name.equals("shardwise.near-cache.max-entries")) { // no default: max-bytes bounds it
            assertThat(value).as(name).isInstanceOf(Integer.class);
          }
        }
        case "java.lang.Double" -> assertThat(value).as(name).isInstanceOf(Number.class);
        case "java.lang.String" -> {
          if (value != null) {
            assertThat(looksTyped.matcher((String) value).matches())
                .as("%s (text) has the default %s: give it its type in src/build/metadata-types.properties", name, value)
                .isFalse();
          }
        }
        default -> {
          if (type.startsWith("io.shardwise.")) {
            Class<?> e = Class.forName(type);
            enums.put(name, e);
            if (value != null) {
              assertThat(Enum.valueOf(e.asSubclass(Enum.class), relaxed((String) value))).as(name).isNotNull();
            }
          } else {
            assertThat(type).as(name).startsWith("java.util.");
          }
        }
      }
    }
    assertThat(durations).containsExactlyInAnyOrderElementsOf(BootDurations.KEYS);
    // An enum-typed key: every value the hints list (the loader's names) and its default is a
    // constant under Boot's relaxed names (fail-fast is FAIL_FAST), and every constant is listed.
    assertThat(enums).containsOnlyKeys("shardwise.failure-mode", "shardwise.rejoin", "shardwise.memcached.protocol");
    java.util.List<Map<String, Object>> hints;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      hints = JsonPath.read(in, "$.hints[*]");
    }
    enums.forEach(
        (name, type) -> {
          assertThat(type.isEnum()).as(name).isTrue();
          java.util.List<String> constants =
              java.util.Arrays.stream(type.getEnumConstants()).map(c -> ((Enum<?>) c).name()).toList();
          java.util.List<String> values =
              hints.stream()
                  .filter(h -> name.equals(h.get("name")))
                  .flatMap(h -> ((java.util.List<Map<String, Object>>) h.get("values")).stream())
                  .map(v -> relaxed((String) v.get("value")))
                  .toList();
          assertThat(values).as(name).containsExactlyInAnyOrderElementsOf(constants);
        });
  }

  /** The metadata gives every core key the type the loader's table gives it ({@link ConfigKey#type()}). */
  @Test
  void theMetadataTypeOfEveryCoreKeyIsTheTablesType() throws Exception {
    java.util.List<Map<String, Object>> list;
    try (InputStream in =
        getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      list = JsonPath.read(in, "$.properties[*]");
    }
    Map<String, String> types = new HashMap<>();
    list.forEach(p -> types.put((String) p.get("name"), (String) p.get("type")));
    for (ConfigKey key : ShardwiseConfig.keys()) {
      String type = types.get(key.fullName());
      assertThat(type).as(key.fullName() + " in the metadata").isNotNull();
      switch (key.type()) {
        case DURATION -> assertThat(type).as(key.fullName()).isEqualTo("java.time.Duration");
        case BOOLEAN -> assertThat(type).as(key.fullName()).isEqualTo("java.lang.Boolean");
        case INTEGER -> assertThat(type).as(key.fullName()).isEqualTo("java.lang.Integer");
        case DECIMAL -> assertThat(type).as(key.fullName()).isEqualTo("java.lang.Double");
        case BYTES -> assertThat(type).as(key.fullName()).isEqualTo("org.springframework.util.unit.DataSize");
        case CHOICE -> assertThat(type).as(key.fullName()).matches("java\\.lang\\.String|io\\.shardwise\\..*");
        case TEXT -> assertThat(type).as(key.fullName()).startsWith("java.");
      }
    }
  }

  /** The enum constant Boot's relaxed binding reads {@code value} as: fail-fast is FAIL_FAST. */
  private static String relaxed(String value) {
    return value.replace('-', '_').toUpperCase(java.util.Locale.ROOT);
  }

  @Configuration(proxyBeanMethods = false)
  @EnableCaching
  static class OwnClient {
    @Bean
    @SuppressWarnings("unchecked")
    AsyncCacheClient<Object> ownClient() {
      return mock(AsyncCacheClient.class);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnCacheManager {
    @Bean
    CacheManager cacheManager() {
      return new org.springframework.cache.concurrent.ConcurrentMapCacheManager();
    }
  }
}
