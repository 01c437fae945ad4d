package io.shardwise.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.ClientBuilder;
import io.shardwise.core.FailoverOptions;
import io.shardwise.core.FailureMode;
import io.shardwise.core.MemoryBackendProvider;
import io.shardwise.core.RejoinPolicy;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.HashTag;
import io.shardwise.routing.Node;
import io.shardwise.spi.InvalidSettingsException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShardwiseConfigTest {

  private static final String SERVERS = "127.0.0.1:11211,127.0.0.1:11212,cache-c=127.0.0.1:11213:2";

  private static Map<String, String> minimal() {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("shardwise.backend", "memory");
    settings.put("shardwise.servers", SERVERS);
    return settings;
  }

  private static ShardwiseConfig with(String... keyValues) {
    Map<String, String> settings = minimal();
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put("shardwise." + keyValues[i], keyValues[i + 1]);
    }
    return ShardwiseConfig.from(settings);
  }

  private static InvalidSettingsException problems(String... keyValues) {
    try {
      with(keyValues);
    } catch (InvalidSettingsException e) {
      return e;
    }
    throw new AssertionError("expected the settings to be rejected");
  }

  @Test
  void oneServerUnderTwoSpellingsAndAHostThatDoesNotResolveAreProblemsOfTheServersKey() {
    assertThat(problems("servers", "127.0.0.1:11211,localhost:11211", "rejoin", "hope").problems())
        .containsExactly(
            "shardwise.servers: server list must not name a server twice but entry 1 (127.0.0.1:11211)"
                + " and entry 2 (localhost:11211) both reach 127.0.0.1:11211",
            "shardwise.rejoin: 'hope' is not allowed; expected one of journal, flush, keep");
    assertThat(problems("servers", "127.0.0.1:11211,nohost.invalid:11211").problems())
        .containsExactly(
            "shardwise.servers: nohost.invalid does not resolve to an address; expected a host name"
                + " the name service knows, or an IP address");
  }

  @Test
  void defaultsAreTheDocumentedOnes() {
    ShardwiseConfig config = ShardwiseConfig.from(minimal());
    Map<String, String> settings = config.settings();
    for (ConfigKey key : ShardwiseConfig.keys()) {
      if (settings.containsKey(key.fullName()) && !key.defaultValue().startsWith("(")) {
        assertThat(settings.get(key.fullName())).as(key.fullName()).isEqualTo(key.defaultValue());
      }
    }
    assertThat(config.router()).isEqualTo(RouterSpec.DEFAULT);
    assertThat(config.hashTag()).isEqualTo(HashTag.NONE);
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(config.connectWait()).isEqualTo(ClientBuilder.DEFAULT_CONNECT_WAIT);
    assertThat(config.maxValueBytes()).isEmpty();
    assertThat(config.failover().failureMode()).isEqualTo(FailureMode.REDISTRIBUTE);
    assertThat(config.failover().rejoinPolicy()).isEqualTo(RejoinPolicy.JOURNAL);
    assertThat(config.failover().toString())
        .isEqualTo(io.shardwise.core.FailoverOptions.defaults().toString());
    assertThat(config.bounded().enabled()).isFalse();
    assertThat(config.bounded().epsilon()).isEqualTo(0.25);
    assertThat(config.bounded().probeLimit()).isEqualTo(8);
    assertThat(config.settings())
        .containsEntry("shardwise.topology.settle", "10s")
        .containsEntry("shardwise.topology.warm-up", "10m")
        .containsEntry("shardwise.topology.warm-up-copy-ttl", "1m");
    assertThat(config.servers())
        .containsExactly(
            Node.of("127.0.0.1", 11211),
            Node.of("127.0.0.1", 11212),
            Node.named("cache-c", "127.0.0.1", 11213, 2));
  }

  @Test
  void everyKeyReadsAValueAndEveryDocumentedKeyIsChecked() {
    ShardwiseConfig config =
        with(
            "router", "maglev",
            "maglev.table-size", "1009",
            "hash-tag", "{}",
            "timeout", "2s",
            "connect-wait", "0",
            "max-value-size", "512KB",
            "codec", "utf8",
            "failure-mode", "fail-fast",
            "failure-threshold", "5",
            "retry-attempts", "0",
            "rejoin", "journal",
            "journal-capacity", "10",
            "probe-interval", "1.5s",
            "probe-max-interval", "PT1M",
            "probe-timeout", "300ms",
            "bounded.enabled", "TRUE",
            "bounded.epsilon", "0.5",
            "bounded.probe-limit", "3",
            "bounded.scope", "all",
            "bounded.window", "2s",
            "bounded.resolution", "250ms",
            "bounded.spill-ttl", "30s",
            "bounded.hot-threshold", "4");
    assertThat(config.router()).isEqualTo(RouterSpec.of("maglev").withTableSize(1009));
    assertThat(config.hashTag()).isEqualTo(HashTag.of("{}"));
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.connectWait()).isEqualTo(Duration.ZERO);
    assertThat(config.maxValueBytes()).hasValue(512 * 1024);
    assertThat(config.codec()).isEqualTo("utf8");
    assertThat(config.failover().failureMode()).isEqualTo(FailureMode.FAIL_FAST);
    assertThat(config.failover().failureThreshold()).isEqualTo(5);
    assertThat(config.failover().retryAttempts()).isZero();
    assertThat(config.failover().rejoinPolicy()).isEqualTo(RejoinPolicy.JOURNAL);
    assertThat(config.failover().journalCapacity()).isEqualTo(10);
    assertThat(config.failover().probeInterval()).isEqualTo(Duration.ofMillis(1500));
    assertThat(config.failover().maxProbeInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(config.failover().probeTimeout()).isEqualTo(Duration.ofMillis(300));
    assertThat(config.bounded().enabled()).isTrue();
    assertThat(config.bounded().epsilon()).isEqualTo(0.5);
    assertThat(config.bounded().probeLimit()).isEqualTo(3);
    assertThat(config.bounded().scope()).isEqualTo(io.shardwise.core.BoundedOptions.Scope.ALL);
    assertThat(config.bounded().window()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.bounded().resolution()).isEqualTo(Duration.ofMillis(250));
    assertThat(config.bounded().spillTtl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(config.bounded().hotThreshold()).isEqualTo(4);
    assertThat(config.settings())
        .containsEntry("shardwise.bounded.window", "2s")
        .containsEntry("shardwise.bounded.resolution", "250ms")
        .containsEntry("shardwise.bounded.spill-ttl", "30s")
        .containsEntry("shardwise.bounded.hot-threshold", "4");

    // Every documented key rejects nonsense, naming itself.
    for (ConfigKey key : ShardwiseConfig.keys()) {
      Map<String, String> settings = minimal();
      settings.put(key.fullName(), "nonsense value");
      assertThatThrownBy(() -> ShardwiseConfig.from(settings))
          .as(key.fullName())
          .isInstanceOf(InvalidSettingsException.class)
          .hasMessageContaining(key.fullName() + ": ");
    }
  }

  @Test
  void replicasAreReadAndCheckedAgainstTheServers() {
    ShardwiseConfig config = with("replicas", "3", "replica-reads", "PRIMARY");
    assertThat(config.replicas()).isEqualTo(3);
    assertThat(config.replicaReads()).isEqualTo(io.shardwise.core.ReplicaReads.PRIMARY);
    assertThat(config.settings()).containsEntry("shardwise.replicas", "3").containsEntry("shardwise.replica-reads", "primary");
    assertThat(problems("replicas", "4").problems())
        .containsExactly("shardwise.replicas: must be at most the number of servers (3) but was 4");
    assertThat(problems("replicas", "0").problems()).containsExactly("shardwise.replicas: must be >= 1 but was 0");
    assertThat(with("replicas", "2", "bounded.enabled", "true").replicas()).isEqualTo(2);
    assertThat(problems("replica-reads", "nearest").problems())
        .containsExactly("shardwise.replica-reads: 'nearest' is not allowed; expected one of p2c, primary");
  }

  @Test
  void badValuesNameTheKeyTheValueAndWhatIsAllowed() {
    assertThat(problems("rejoin", "hope").problems())
        .containsExactly(
            "shardwise.rejoin: 'hope' is not allowed; expected one of journal, flush, keep");
    assertThat(problems("bounded.epsilon", "-0.1").problems())
        .containsExactly("shardwise.bounded.epsilon: must be > 0 but was -0.1");
    assertThat(problems("bounded.probe-limit", "0").problems())
        .containsExactly("shardwise.bounded.probe-limit: must be >= 1 but was 0");
    assertThat(problems("bounded.window", "1s", "bounded.resolution", "300ms").problems())
        .containsExactly(
            "shardwise.bounded.window: must be a whole multiple of shardwise.bounded.resolution"
                + " (300ms) but was 1s");
    assertThat(problems("bounded.window", "10s", "bounded.resolution", "1ms").problems())
        .containsExactly(
            "shardwise.bounded.window: must hold at most 1000 steps of"
                + " shardwise.bounded.resolution (1ms) but holds 10000");
    assertThat(problems("bounded.spill-ttl", "500ms").problems())
        .containsExactly("shardwise.bounded.spill-ttl: must be >= 1s but was 500ms");
    assertThat(problems("bounded.hot-threshold", "16").problems())
        .containsExactly("shardwise.bounded.hot-threshold: must be <= 15 but was 16");
    assertThat(problems("timeout", "fast").problems())
        .containsExactly(
            "shardwise.timeout: 'fast' is not a duration; expected a number and a unit (ns, us, ms,"
                + " s, m, h, d) such as 250ms or 2s");
    assertThat(problems("timeout", "0ms").problems())
        .containsExactly("shardwise.timeout: must be >= 1ms but was 0ms");
    assertThat(problems("timeout", "250").problems())
        .singleElement()
        .asString()
        .contains("'250' is not a duration");
    assertThat(problems("router", "consistent").problems())
        .containsExactly(
            "shardwise.router: 'consistent' is not allowed; expected one of ketama, ring, hrw,"
                + " jump, multiprobe, maglev, modulo, compat");
    assertThat(problems("max-value-size", "big").problems())
        .containsExactly(
            "shardwise.max-value-size: 'big' is not a size; expected a number of bytes, or a number"
                + " and a unit (B, KB, MB, GB) such as 512KB or 1MB");
    assertThat(problems("servers", "127.0.0.1:11211,127.0.0.1:11211").problems())
        .containsExactly(
            "shardwise.servers: server list must not name a server twice but 127.0.0.1:11211 is"
                + " entry 1 and entry 2");
    assertThat(problems("servers", "127.0.0.1").problems())
        .containsExactly("shardwise.servers: server entry '127.0.0.1': expected host:port");
    assertThat(problems("servers", "a:1:-2").problems())
        .containsExactly(
            "shardwise.servers: server entry 'a:1:-2': weight must be >= 1 but was -2");
    assertThat(problems("hash-tag", "{").problems())
        .containsExactly(
            "shardwise.hash-tag: '{' is not allowed; expected two distinct printable ASCII"
                + " characters such as {}, or none");
    assertThat(problems("probe-interval", "2s", "probe-max-interval", "1s").problems())
        .containsExactly(
            "shardwise.probe-max-interval: must be >= shardwise.probe-interval (2s) but was 1s");
    assertThat(problems("router", "maglev", "maglev.table-size", "65536").problems())
        .containsExactly("shardwise.maglev.table-size: must be a prime but was 65536");
    assertThat(problems("router", "jump").problems())
        .singleElement()
        .asString()
        .startsWith("shardwise.router: jump cannot route these servers: ");
    assertThat(problems("bounded.enabled", "yes").problems())
        .containsExactly(
            "shardwise.bounded.enabled: 'yes' is not allowed; expected one of true, false");
  }

  @Test
  void durationsThatWouldOverflowWhereTheyAreUsedAreRefusedNamingTheKeyTheValueAndTheRule() {
    assertThat(problems("timeout", "999999999999d").problems())
        .containsExactly(
            "shardwise.timeout: must be at most 2147483647ms (a 32-bit count of milliseconds, as"
                + " the Redis backend's command timeout is) but was 999999999999d");
    assertThat(problems("timeout", "2147483648ms").problems()).hasSize(1);
    assertThat(with("timeout", "2147483647ms").timeout()).isEqualTo(Duration.ofMillis(Integer.MAX_VALUE));
    for (String key : new String[] {"connect-wait", "topology.settle", "topology.warm-up", "topology.warm-up-copy-ttl"}) {
      assertThat(problems(key, "366d").problems())
          .containsExactly("shardwise." + key + ": must be at most 365d but was 366d");
      assertThat(with(key, "365d").settings()).containsEntry("shardwise." + key, "365d");
    }
    for (String key :
        new String[] {
          "failover-ttl", "probe-interval", "probe-max-interval", "probe-timeout", "bounded.spill-ttl"
        }) {
      assertThat(problems(key, "106752d").problems())
          .containsExactly("shardwise." + key + ": must be at most 106751d but was 106752d");
    }
  }

  @Test
  void requiredKeysAreNamed() {
    assertThatThrownBy(() -> ShardwiseConfig.from(Map.of()))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage(
            "shardwise.backend: missing; expected one of memcached, redis, memory\n"
                + "shardwise.servers: missing; expected a comma-separated list such as"
                // The example list is part of the library's message (ServerSource); no test server.
                + " 10.0.0.1:11211,10.0.0.2:11211, or shardwise.servers-file or"
                + " shardwise.servers-dns");
  }

  @Test
  void everyProblemIsReportedAtOnceOneLineEach() {
    InvalidSettingsException e =
        problems(
            "rejoin", "hope", "bounded.epsilon", "-0.1", "timout", "1s", "failure-threshold", "0");
    assertThat(e.problems())
        .containsExactly(
            "shardwise.failure-threshold: must be >= 1 but was 0",
            "shardwise.rejoin: 'hope' is not allowed; expected one of journal, flush, keep",
            "shardwise.bounded.epsilon: must be > 0 but was -0.1",
            "unknown key shardwise.timout (did you mean shardwise.timeout?)");
    assertThat(e.getMessage()).isEqualTo(String.join("\n", e.problems()));
    assertThat(e).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void unknownKeysAreReportedWithTheClosestKnownKey() {
    assertThat(problems("timout", "1s").problems())
        .containsExactly("unknown key shardwise.timout (did you mean shardwise.timeout?)");
    assertThat(problems("bounded.epsilom", "1").problems())
        .containsExactly(
            "unknown key shardwise.bounded.epsilom (did you mean shardwise.bounded.epsilon?)");
    assertThat(problems("bounded.epsilonn", "0.1").problems())
        .containsExactly(
            "unknown key shardwise.bounded.epsilonn (did you mean shardwise.bounded.epsilon?)");
    assertThat(problems("epsilon", "1").problems())
        .containsExactly("unknown key shardwise.epsilon (did you mean shardwise.bounded.epsilon?)");
    assertThat(problems("memory.pasword", "x").problems())
        .containsExactly(
            "unknown key shardwise.memory.pasword (did you mean shardwise.memory.password?)");
    assertThat(problems("completely.different", "x").problems())
        .containsExactly("unknown key shardwise.completely.different");
  }

  @Test
  void keysMatchLooselyAsInSpringBoot() {
    ShardwiseConfig config =
        with("failureMode", "retry", "Bounded.probeLimit", "4", "probe_timeout", "2s");
    assertThat(config.failover().failureMode()).isEqualTo(FailureMode.RETRY);
    assertThat(config.bounded().probeLimit()).isEqualTo(4);
    assertThat(config.failover().probeTimeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(problems("failureMode", "retry", "failure-mode", "retry").problems())
        .containsExactly(
            "shardwise.failure-mode and shardwise.failureMode name the same key; set it once");
  }

  @Test
  void routerParametersOfAnotherRouterAreProblems() {
    assertThat(problems("maglev.table-size", "1009").problems())
        .containsExactly(
            "shardwise.maglev.table-size: applies to router maglev only, but shardwise.router is"
                + " ketama");
    assertThat(problems("router", "ring", "ketama.compatibility", "twemproxy").problems())
        .containsExactly(
            "shardwise.ketama.compatibility: applies to router ketama only, but shardwise.router is"
                + " ring");
  }

  @Test
  void aBackendThatIsNotOnTheClasspathIsNamedWithItsModule() {
    Map<String, String> settings = minimal();
    settings.put("shardwise.backend", "redis");
    settings.put("shardwise.redis.database", "2");
    assertThatThrownBy(() -> ShardwiseConfig.from(settings))
        .hasMessage("shardwise.backend: 'redis' needs shardwise-backend-lettuce on the classpath");
    settings.put("shardwise.backend", "memcached");
    assertThatThrownBy(() -> ShardwiseConfig.from(settings))
        .hasMessage(
            "shardwise.backend: 'memcached' needs shardwise-backend-spymemcached on the classpath");
    settings.put("shardwise.backend", "mongo");
    assertThatThrownBy(() -> ShardwiseConfig.from(settings))
        .hasMessage(
            "shardwise.backend: 'mongo' is not allowed; expected one of memcached, redis, memory");
  }

  @Test
  void backendKeysGoToTheirProviderAndOtherBackendsKeysAreProblems() {
    ShardwiseConfig config = with("memory.flags", "false", "memory.password", "s3cret");
    assertThat(config.backendSettings())
        .containsEntry("flags", "false")
        .containsEntry("password", "******");
    assertThat(problems("memory.flags", "maybe").problems())
        .containsExactly(
            "shardwise.memory.flags: 'maybe' is not allowed; expected one of true, false");
    assertThat(problems("redis.database", "1").problems())
        .containsExactly(
            "shardwise.redis.database: applies to backend redis only, but shardwise.backend is"
                + " memory");
  }

  @Test
  void secretsNeverShow() {
    ShardwiseConfig config = with("memory.password", "s3cret");
    assertThat(config.toString())
        .doesNotContain("s3cret")
        .contains("shardwise.memory.password=******");
    assertThat(config.settings().toString()).doesNotContain("s3cret");
    assertThat(config)
        .isNotEqualTo(with("memory.password", "other"))
        .isEqualTo(with("memory.password", "s3cret"));
    InvalidSettingsException e = problems("memory.password", "s3cret", "memory.flags", "nope");
    assertThat(e.getMessage()).doesNotContain("s3cret").contains("'nope'");
  }

  @Test
  void aSecretReferenceShowsWhereTheSecretIsNeverWhatItIs() {
    assertThat(with("memory.password", "env:CACHE_PASSWORD").toString())
        .contains("shardwise.memory.password=****** (env:CACHE_PASSWORD)");
    assertThat(with("memory.password", "file:/run/secrets/cache").backendSettings())
        .containsEntry("password", "****** (file:/run/secrets/cache)");
    // What Secret.resolve reads as a literal stays hidden, however much it looks like a reference.
    for (String literal :
        new String[] {"literal:env:s3cret", " env:s3cret", "ENV:s3cret", "s3cret"}) {
      ShardwiseConfig config = with("memory.password", literal);
      assertThat(config.toString()).as(literal).doesNotContain("s3cret");
      assertThat(config.backendSettings()).as(literal).containsEntry("password", "******");
    }
  }

  @Test
  void codecMustSuitTheBackend() {
    assertThat(with("memory.flags", "false").codec())
        .isEqualTo("backend default (spymemcached if it stores flags, else java)");
    Map<String, String> settings = minimal();
    settings.put("shardwise.codec", "spymemcached");
    settings.put("shardwise.backend", "memory");
    settings.put("shardwise.memory.flags", "false");
    // Caught when the client is built, where the backend says whether it keeps flags.
    assertThatThrownBy(() -> ShardwiseConfig.from(settings).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("codec 'spymemcached' needs the flags");
  }

  @Test
  void theLoaderBuildsTheSameClientAsTheBuilderFromTheSameSettings() {
    ShardwiseConfig config =
        with(
            "router",
            "ketama",
            "ketama.compatibility",
            "libmemcached",
            "hash-tag",
            "{}",
            "timeout",
            "400ms",
            "codec",
            "utf8");
    try (AsyncCacheClient<Object> loaded = config.build();
        AsyncCacheClient<String> built =
            ShardwiseClient.builder()
                .backend(new MemoryBackendProvider().create(Map.of(), Duration.ofMillis(400)))
                .servers(SERVERS)
                .router(RouterSpec.of("ketama").withKetamaCompatibility("libmemcached"))
                .hashTag(HashTag.of("{}"))
                .timeout(Duration.ofMillis(400))
                .codec(io.shardwise.client.Codecs.utf8())
                .build()) {
      assertThat(loaded.nodes()).isEqualTo(built.nodes());
      IntStream.range(0, 5000)
          .mapToObj(i -> (i % 3 == 0 ? "{user:" + i + "}:profile" : "key-" + i))
          .forEach(key -> assertThat(loaded.nodeFor(key)).as(key).isEqualTo(built.nodeFor(key)));
      assertThat(loaded.toString()).isEqualTo(built.toString());
      assertThat(MemoryBackendProvider.lastTimeout).isEqualTo(Duration.ofMillis(400));

      loaded.set("greeting", "hello", Duration.ZERO).join();
      assertThat(loaded.get("greeting").join()).isEqualTo("hello");
      assertThatThrownBy(() -> loaded.set("n", 42, Duration.ZERO))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("codec utf8 stores String values but got a java.lang.Integer");
    }
  }

  @Test
  void typedClientsMatchTheirCodec() {
    try (AsyncCacheClient<String> strings = with("codec", "utf8").build(String.class)) {
      strings.set("k", "v", Duration.ZERO).join();
      assertThat(strings.get("k").join()).isEqualTo("v");
    }
    assertThatThrownBy(() -> with("codec", "utf8").build(Integer.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("codec utf8 stores String values, not java.lang.Integer");
    try (AsyncCacheClient<Integer> numbers = with("codec", "java").build(Integer.class)) {
      numbers.set("n", 7, Duration.ZERO).join();
      assertThat(numbers.get("n").join()).isEqualTo(7);
    }
  }

  @Test
  void theCustomizerSeesTheBuilder() {
    java.util.List<String> seen = new java.util.ArrayList<>();
    try (AsyncCacheClient<Object> client =
        ShardwiseConfig.from(minimal())
            .build(
                b ->
                    b.metrics(
                        new io.shardwise.client.ClientMetrics() {
                          @Override
                          public void request(
                              Node node, String operation, long latencyNanos, Throwable failure) {
                            seen.add(operation);
                          }
                        }))) {
      client.set("k", "v", Duration.ZERO).join();
    }
    assertThat(seen).contains("set");
  }

  @Test
  void readsFilesAndClasspathResources(@TempDir Path dir) throws IOException {
    Path file = dir.resolve("cache.properties");
    Files.writeString(
        file,
        "# a comment\nother.key=ignored\nshardwise.backend=memory\nshardwise.servers="
            + SERVERS
            + "\nshardwise.timeout=1s\n");
    ShardwiseConfig fromFile = ShardwiseConfig.fromFile(file);
    assertThat(fromFile.timeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(ShardwiseConfig.fromClasspath("config-test.properties")).isEqualTo(fromFile);
    Properties properties = new Properties();
    properties.setProperty("shardwise.backend", "memory");
    properties.setProperty("shardwise.servers", SERVERS);
    properties.setProperty("shardwise.timeout", "1000ms");
    assertThat(ShardwiseConfig.from(properties)).isEqualTo(fromFile);
    assertThatThrownBy(() -> ShardwiseConfig.fromClasspath("missing.properties"))
        .hasMessage("no classpath resource missing.properties");
    assertThatThrownBy(() -> ShardwiseConfig.fromFile(dir.resolve("missing.properties")))
        .isInstanceOf(java.io.UncheckedIOException.class)
        .hasMessageContaining("missing.properties");
  }
}
