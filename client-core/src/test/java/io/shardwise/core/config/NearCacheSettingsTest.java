package io.shardwise.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.core.BoundedOptions;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.spi.InvalidSettingsException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The {@code shardwise.near-cache.*} keys: read, checked, shown, and changed while serving. */
class NearCacheSettingsTest {

  private static Map<String, String> settings(String backend, String... keyValues) {
    Map<String, String> s = new LinkedHashMap<>();
    s.put("shardwise.backend", backend);
    s.put("shardwise.servers", "127.0.0.1:11211,127.0.0.1:11212");
    for (int i = 0; i < keyValues.length; i += 2) {
      s.put("shardwise." + keyValues[i], keyValues[i + 1]);
    }
    return s;
  }

  private static NearCacheOptions read(String... keyValues) {
    return ShardwiseConfig.from(settings("memory", keyValues)).nearCache();
  }

  private static String problems(String backend, String... keyValues) {
    try {
      ShardwiseConfig.from(settings(backend, keyValues));
    } catch (InvalidSettingsException e) {
      return String.join("\n", e.problems());
    }
    throw new AssertionError("expected the settings to be refused");
  }

  @Test
  void offByDefaultWithTheDocumentedDefaults() {
    ShardwiseConfig config = ShardwiseConfig.from(settings("memory"));
    assertThat(config.nearCache()).isEqualTo(NearCacheOptions.off());
    assertThat(config.settings())
        .containsEntry("shardwise.near-cache.enabled", "false")
        .containsEntry("shardwise.near-cache.max-bytes", "64MB")
        .containsEntry("shardwise.near-cache.admit", "hot")
        .containsEntry("shardwise.near-cache.hot-threshold", Integer.toString(BoundedOptions.DEFAULT_HOT_THRESHOLD))
        .containsEntry("shardwise.near-cache.refresh-ahead", "true")
        .doesNotContainKey("shardwise.near-cache.max-entries")
        .doesNotContainKey("shardwise.near-cache.max-staleness");
  }

  @Test
  void everyKeyIsReadAndTheConfigurationRoundTripsThroughItsSettings() {
    ShardwiseConfig config =
        ShardwiseConfig.from(
            settings(
                "memory",
                "near-cache.enabled", "true",
                "near-cache.max-bytes", "16MB",
                "near-cache.admit", "hot",
                "near-cache.hot-threshold", "3",
                "near-cache.max-staleness", "500ms",
                "near-cache.refresh-ahead", "false"));
    assertThat(config.nearCache())
        .isEqualTo(
            NearCacheOptions.defaults()
                .withMaxBytes(16L << 20)
                .withHotThreshold(3)
                .withMaxStaleness(Duration.ofMillis(500))
                .withRefreshAhead(false));
    assertThat(config.settings())
        .containsEntry("shardwise.near-cache.enabled", "true")
        .containsEntry("shardwise.near-cache.max-bytes", "16MB")
        .containsEntry("shardwise.near-cache.hot-threshold", "3")
        .containsEntry("shardwise.near-cache.max-staleness", "500ms")
        .containsEntry("shardwise.near-cache.refresh-ahead", "false");
    NearCacheOptions entries = read("near-cache.enabled", "true", "near-cache.max-entries", "1000", "near-cache.admit", "ALL");
    assertThat(entries.maxEntries()).isEqualTo(1000);
    assertThat(entries.maxBytes()).as("max-entries set instead: the one bound").isZero();
    assertThat(entries.hotOnly()).isFalse();
  }

  @Test
  void badValuesNameTheKeyTheValueAndTheRule() {
    assertThat(problems("memory", "near-cache.max-bytes", "0"))
        .isEqualTo("shardwise.near-cache.max-bytes: must be >= 1 bytes but was 0");
    assertThat(problems("memory", "near-cache.admit", "cold"))
        .isEqualTo("shardwise.near-cache.admit: 'cold' is not allowed; expected one of hot, all");
    assertThat(problems("memory", "near-cache.hot-threshold", "16"))
        .startsWith("shardwise.near-cache.hot-threshold: ")
        .contains("16");
    assertThat(problems("memory", "near-cache.max-entries", "0"))
        .startsWith("shardwise.near-cache.max-entries: ")
        .contains("0");
    assertThat(problems("memory", "near-cache.max-staleness", "0s"))
        .startsWith("shardwise.near-cache.max-staleness: ");
    assertThat(problems("memory", "near-cache.refresh-ahead", "sometimes"))
        .startsWith("shardwise.near-cache.refresh-ahead: ")
        .contains("sometimes");
  }

  @Test
  void bothBoundsAreRefusedNotOneSilentlyPreferred() {
    assertThat(problems("memory", "near-cache.max-bytes", "1MB", "near-cache.max-entries", "10"))
        .isEqualTo(
            "shardwise.near-cache.max-entries: cannot be set with shardwise.near-cache.max-bytes: exactly one bound is in"
                + " effect (max-bytes by default, max-entries when set instead); remove one");
  }

  @Test
  void aHotThresholdWithEveryKeyAdmittedIsAProblem() {
    assertThat(problems("memory", "near-cache.admit", "all", "near-cache.hot-threshold", "4"))
        .isEqualTo("shardwise.near-cache.hot-threshold: applies to shardwise.near-cache.admit=hot only, but it is all");
  }

  @Test
  void memcachedNeedsAStalenessBoundOfAtMostOneMinuteRedisTakesMore() {
    assertThat(problems("memcached", "near-cache.enabled", "true"))
        .contains(
            "shardwise.near-cache.max-staleness: is required with backend memcached when the near cache is enabled:"
                + " memcached cannot tell a client that another client changed a key, so an entry is served up to this"
                + " long after another client's write, and how long is a choice for the application (1s is common; at"
                + " most 1m)");
    assertThat(problems("memcached", "near-cache.enabled", "true", "near-cache.max-staleness", "1s")).doesNotContain("near-cache");
    assertThat(problems("memcached", "near-cache.enabled", "false")).doesNotContain("near-cache");
    assertThat(problems("memcached", "near-cache.max-staleness", "2m"))
        .contains(
            "shardwise.near-cache.max-staleness: must be <= 1m with backend memcached, whose servers cannot tell a"
                + " client that a value changed (an entry is served this long after another client's write), but was 2m");
    assertThat(problems("memcached", "near-cache.max-staleness", "1m")).doesNotContain("near-cache");
    assertThat(read("near-cache.max-staleness", "10m").maxStaleness()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void aChangeWhileServingMovesTheLiveKeysAndRefusesTheOthers() {
    NearCacheOptions now = NearCacheOptions.defaults();
    NearCacheOptions next =
        NearCacheSettings.change(
            Map.of(
                "shardwise.near-cache.max-bytes", "8MB",
                "shardwise.near-cache.max-staleness", "5s",
                "shardwise.near-cache.hot-threshold", "2",
                "shardwise.near-cache.refresh-ahead", "false"),
            now,
            true);
    assertThat(next)
        .isEqualTo(now.withMaxBytes(8L << 20).withMaxStaleness(Duration.ofSeconds(5)).withHotThreshold(2).withRefreshAhead(false));
    assertThatThrownBy(() -> NearCacheSettings.change(Map.of("shardwise.near-cache.enabled", "false"), now, true))
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessageContaining("shardwise.near-cache.enabled: is read at start-up only; restart the client to apply it");
    assertThatThrownBy(() -> NearCacheSettings.change(Map.of("shardwise.near-cache.max-entries", "10"), now, true))
        .hasMessageContaining("shardwise.near-cache.max-entries: cannot change while the client serves: the near cache is"
            + " bounded by shardwise.near-cache.max-bytes (67108864 bytes)");
    assertThatThrownBy(() -> NearCacheSettings.change(Map.of("shardwise.near-cache.max-staleness", "5m"), now, false))
        .hasMessageContaining("shardwise.near-cache.max-staleness: must be <= 1m with backend memcached");
    assertThatThrownBy(() -> NearCacheSettings.change(Map.of("shardwise.near-cache.max-byts", "1MB"), now, true))
        .hasMessageContaining("unknown key shardwise.near-cache.max-byts (did you mean shardwise.near-cache.max-bytes?)");
  }
}
