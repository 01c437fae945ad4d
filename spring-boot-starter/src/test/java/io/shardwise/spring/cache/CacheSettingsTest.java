package io.shardwise.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.spi.SettingsReader;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Spring Boot's names for the cache settings, and what they mean here. */
class CacheSettingsTest {

  private static CacheSettings read(SettingsReader reader) {
    CacheSettings settings = CacheSettings.read(reader);
    return settings;
  }

  @Test
  void bootsTimeToLiveIsTheSameSettingAsTtlForEveryCacheAndForOne() {
    SettingsReader reader =
        SettingsReader.of(
            "shardwise.",
            Map.of("cache.time-to-live", "5m", "cache.caches.books.time-to-live", "30s"));
    CacheSettings settings = read(reader);
    assertThat(reader.problems()).isEmpty();
    assertThat(settings.forCache("other").ttl()).isEqualTo(Duration.ofMinutes(5));
    assertThat(settings.forCache("books").ttl()).isEqualTo(Duration.ofSeconds(30));
    assertThat(reader.unreadKeys()).isEmpty();
  }

  @Test
  void settingBothNamesIsAProblemNamingBoth() {
    SettingsReader reader =
        SettingsReader.of("shardwise.", Map.of("cache.ttl", "1m", "cache.time-to-live", "2m"));
    read(reader);
    assertThat(reader.problems())
        .singleElement()
        .asString()
        .contains("shardwise.cache.time-to-live", "shardwise.cache.ttl", "only one");
  }

  @Test
  void aBadTimeToLiveGetsTheLoadersMessage() {
    SettingsReader reader = SettingsReader.of("shardwise.", Map.of("cache.time-to-live", "soon"));
    read(reader);
    assertThat(reader.problems())
        .singleElement()
        .asString()
        .startsWith("shardwise.cache.time-to-live: ");
  }

  @Test
  void withoutKeyPrefixCachesShareOneKeySpace() {
    CacheSettings settings =
        read(SettingsReader.of("shardwise.", Map.of("cache.use-key-prefix", "false")));
    assertThat(settings.useKeyPrefix()).isFalse();
    assertThat(settings.forCache("books").keyPrefix()).isEmpty();
    assertThat(CacheSettings.defaults().forCache("books").keyPrefix()).isEqualTo("books:");
  }

  @Test
  void statisticsTransactionsAndFailureHandlingHaveTheirDefaultsAndCanBeSet() {
    CacheSettings defaults = CacheSettings.defaults();
    assertThat(defaults.statistics()).isTrue();
    assertThat(defaults.transactionAware()).isFalse();
    assertThat(defaults.failuresAsMisses()).isFalse();
    CacheSettings set =
        read(
            SettingsReader.of(
                "shardwise.",
                Map.of(
                    "cache.enable-statistics", "false",
                    "cache.transaction-aware", "true",
                    "cache.failures-as-misses", "true")));
    assertThat(set.statistics()).isFalse();
    assertThat(set.transactionAware()).isTrue();
    assertThat(set.failuresAsMisses()).isTrue();
  }
}
