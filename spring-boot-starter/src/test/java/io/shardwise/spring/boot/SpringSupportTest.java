package io.shardwise.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.core.config.ConfigKey;
import io.shardwise.core.config.ShardwiseConfig;
import io.shardwise.spi.InvalidSettingsException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/** The starter's pure rules for Spring Boot: supported versions, masked keys. */
class SpringSupportTest {

  @Test
  void boot35AndLaterAreAcceptedAndOlderVersionsStopTheStartUpNamingTheVersion() {
    for (String ok :
        new String[] {"3.5.0", "3.5.7", "4.0.7", "4.1.0-SNAPSHOT", "5.0.0", null, ""}) {
      assertThatCode(() -> SupportedBootVersion.check(ok)).as(ok).doesNotThrowAnyException();
    }
    for (String old : new String[] {"3.4.9", "3.0.0", "2.7.18"}) {
      assertThatThrownBy(() -> SupportedBootVersion.check(old))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("Spring Boot " + old)
          .hasMessageContaining("3.5.x or 4.x");
    }
  }

  @Test
  void credentialsAreMaskedInEveryFormOfTheirKeyAndNothingElseIs() {
    ShardwiseSanitizingFunction function = new ShardwiseSanitizingFunction();
    for (String key :
        new String[] {
          "shardwise.redis.password",
          "shardwise.redis.username",
          "shardwise.memcached.sasl.username",
          "shardwise.memcached.sasl.password",
          "shardwise.redis.tls.key-store-password",
          "shardwise.redis.tls.private-key-password",
          "SHARDWISE_REDIS_PASSWORD",
          "shardwise.redis.tls.trustStorePassword"
        }) {
      SanitizableData data = function.apply(new SanitizableData(null, key, "s3cret"));
      assertThat(data.getValue()).as(key).isEqualTo(SanitizableData.SANITIZED_VALUE);
    }
    for (String key :
        new String[] {
          "shardwise.servers", "shardwise.redis.tls.ca-file", "spring.redis.password"
        }) {
      SanitizableData data = function.apply(new SanitizableData(null, key, "shown"));
      assertThat(data.getValue()).as(key).isEqualTo("shown");
    }
  }

  @Test
  void aBareNumberForADurationIsMillisecondsAsInBootAndOtherNumbersAreLeftAlone() {
    Map<String, Object> properties = new HashMap<>();
    properties.put("shardwise.backend", "memcached");
    properties.put("shardwise.servers", "127.0.0.1:11211");
    properties.put("shardwise.timeout", "2000");
    properties.put("shardwise.probe-interval", " 150 ");
    properties.put("shardwise.failure-threshold", "7");
    properties.put("shardwise.cache.ttl", "60000");
    properties.put("shardwise.cache.caches.books.time-to-live", "1500");
    properties.put("shardwise.cache.generation-refresh", "0");
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", properties));

    ShardwiseSettings settings = ShardwiseSettings.read(environment, true);
    ShardwiseConfig config = settings.config().orElseThrow();
    assertThat(config.timeout()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.settings()).containsEntry("shardwise.failure-threshold", "7");
    assertThat(settings.cache().forCache("other").ttl()).isEqualTo(Duration.ofMinutes(1));
    assertThat(settings.cache().forCache("books").ttl()).isEqualTo(Duration.ofMillis(1500));
    assertThat(settings.cache().generationRefresh()).isZero();

    // A bad value still gets the loader's message.
    properties.put("shardwise.timeout", "2000 ms please");
    assertThatThrownBy(() -> ShardwiseSettings.read(environment, true))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("shardwise.timeout: '2000 ms please' is not a duration");
  }

  @Test
  void everyDurationKeyOfTheLoaderIsKnownToTheStarter() {
    int durations = 0;
    for (ConfigKey key : ShardwiseConfig.keys()) {
      Map<String, String> properties = new HashMap<>();
      properties.put("shardwise.backend", "memcached");
      properties.put("shardwise.servers", "127.0.0.1:11211");
      properties.put(key.fullName(), "soon");
      try {
        ShardwiseConfig.from(properties);
      } catch (InvalidSettingsException e) {
        boolean duration =
            e.problems().stream()
                .anyMatch(p -> p.startsWith(key.fullName() + ":") && p.contains("not a duration"));
        if (duration) {
          durations++;
          assertThat(BootDurations.isDuration(key.name())).as(key.fullName()).isTrue();
        }
      }
    }
    assertThat(durations).isGreaterThanOrEqualTo(13);
  }

  @Test
  void connectionDetailsReplaceTheBackendAndServersAndNothingElse() {
    Map<String, Object> properties = new HashMap<>();
    properties.put("shardwise.backend", "memcached");
    properties.put("shardwise.servers", "127.0.0.1:11211");
    properties.put("shardwise.timeout", "750ms");
    StandardEnvironment environment = new StandardEnvironment();
    environment.getPropertySources().addFirst(new MapPropertySource("test", properties));
    ShardwiseConnectionDetails details =
        new ShardwiseConnectionDetails() {
          @Override
          public String backend() {
            return "redis";
          }

          @Override
          public java.util.List<String> servers() {
            return java.util.List.of("127.0.0.1:6379", "127.0.0.1:6380");
          }
        };
    ShardwiseConfig config =
        ShardwiseSettings.read(environment, true, details).config().orElseThrow();
    assertThat(config.backend()).isEqualTo("redis");
    assertThat(config.settings())
        .containsEntry("shardwise.servers", "127.0.0.1:6379,127.0.0.1:6380");
    assertThat(config.timeout()).isEqualTo(Duration.ofMillis(750));
  }
}
