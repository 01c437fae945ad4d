package io.shardwise.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsReaderTest {

  private static SettingsReader reader(String... keyValues) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      settings.put(keyValues[i], keyValues[i + 1]);
    }
    return SettingsReader.of("x.", settings);
  }

  @Test
  void durationsTakeAUnitOrIso8601() {
    assertThat(SettingsReader.parseDuration("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(SettingsReader.parseDuration("2s")).isEqualTo(Duration.ofSeconds(2));
    assertThat(SettingsReader.parseDuration(" 1.5s ")).isEqualTo(Duration.ofMillis(1500));
    assertThat(SettingsReader.parseDuration("5m")).isEqualTo(Duration.ofMinutes(5));
    assertThat(SettingsReader.parseDuration("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(SettingsReader.parseDuration("1d")).isEqualTo(Duration.ofDays(1));
    assertThat(SettingsReader.parseDuration("10us")).isEqualTo(Duration.ofNanos(10_000));
    assertThat(SettingsReader.parseDuration("7ns")).isEqualTo(Duration.ofNanos(7));
    assertThat(SettingsReader.parseDuration("2S")).isEqualTo(Duration.ofSeconds(2));
    assertThat(SettingsReader.parseDuration("PT0.25S")).isEqualTo(Duration.ofMillis(250));
    assertThat(SettingsReader.parseDuration("0")).isEqualTo(Duration.ZERO);
    assertThat(SettingsReader.parseDuration("-1s")).isEqualTo(Duration.ofSeconds(-1));
    for (String bad : List.of("250", "fast", "2 parsecs", "1y", "s", "PT", "1.2.3s", "")) {
      assertThat(SettingsReader.parseDuration(bad)).as(bad).isNull();
    }
  }

  @Test
  void formatReadsBack() {
    for (Duration d :
        List.of(
            Duration.ofMillis(250),
            Duration.ofSeconds(2),
            Duration.ofMinutes(90),
            Duration.ofDays(3),
            Duration.ofNanos(1500),
            Duration.ZERO,
            Duration.ofMillis(1500))) {
      assertThat(SettingsReader.parseDuration(SettingsReader.format(d))).isEqualTo(d);
    }
    assertThat(SettingsReader.format(Duration.ofMillis(250))).isEqualTo("250ms");
    assertThat(SettingsReader.format(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(SettingsReader.format(Duration.ofMinutes(90))).isEqualTo("90m");
  }

  @Test
  void sizesAreBytesOrBinaryUnits() {
    assertThat(SettingsReader.parseBytes("1048576")).isEqualTo(1 << 20);
    assertThat(SettingsReader.parseBytes("1MB")).isEqualTo(1 << 20);
    assertThat(SettingsReader.parseBytes("512KB")).isEqualTo(512 << 10);
    assertThat(SettingsReader.parseBytes("512 kb")).isEqualTo(512 << 10);
    assertThat(SettingsReader.parseBytes("2GB")).isEqualTo(2L << 30);
    assertThat(SettingsReader.parseBytes("10B")).isEqualTo(10);
    for (String bad : List.of("big", "-1", "1.5MB", "1TB", "MB", "99999999999999999999")) {
      assertThat(SettingsReader.parseBytes(bad)).as(bad).isEqualTo(-1);
    }
  }

  @Test
  void everyProblemIsCollectedAndUnknownKeysComeLast() {
    SettingsReader r = reader("a", "x", "b", "-1", "c", "1s", "cc", "2");
    assertThat(r.integer("a", 1, 0, 10)).isEqualTo(1);
    assertThat(r.integer("b", 1, 0, 10)).isEqualTo(1);
    assertThat(r.duration("c", Duration.ZERO, Duration.ZERO)).isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(r::finish)
        .isInstanceOf(InvalidSettingsException.class)
        .hasMessage(
            "x.a: 'x' is not an integer\n"
                + "x.b: must be >= 0 but was -1\n"
                + "unknown key x.cc (did you mean x.c?)");
  }

  @Test
  void childrenListMapKeysAsWritten() {
    SettingsReader r =
        reader(
            "cache.caches.Books.ttl", "1m", "cache.caches[my.cache].ttl", "2m", "cache.ttl", "1h");
    assertThat(r.children("cache.caches")).containsExactly("Books", "my.cache");
    assertThat(r.duration("cache.caches.Books.ttl", null, Duration.ZERO))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(
            r.duration(
                "cache.caches." + SettingsReader.element("my.cache") + ".ttl", null, Duration.ZERO))
        .isEqualTo(Duration.ofMinutes(2));
    assertThat(SettingsReader.normalize("a.b[c.D-e].f_g")).isEqualTo("a.b.[c.de].fg");
  }

  @Test
  void secretValuesNeverShow() {
    SettingsReader r = reader("password", "hunter2", "api-token", "abc", "name", "n");
    assertThat(r.secret("password")).hasValue("hunter2");
    r.integer("password", 0, 0, 1);
    r.integer("api-token", 0, 0, 1);
    assertThat(r.problems())
        .containsExactly(
            "x.password: ****** is not an integer", "x.api-token: ****** is not an integer");
    assertThat(r.isSecret("name")).isFalse();
  }

  @Test
  void secretReferencesAreResolvedOrReportedWithoutAValue() {
    String unset = "SHARDWISE_TEST_UNSET_" + System.nanoTime();
    SettingsReader r =
        reader("a", "literal:hunter2", "b", "env:" + unset, "c", "hunter3");
    assertThat(r.resolvedSecret("a").orElseThrow().reveal()).isEqualTo("hunter2");
    assertThat(r.resolvedSecret("b")).isEmpty();
    assertThat(r.resolvedSecret("c").orElseThrow().reveal()).isEqualTo("hunter3");
    assertThat(r.resolvedSecret("absent")).isEmpty();
    assertThat(r.problems()).hasSize(1);
    assertThat(r.problems().get(0))
        .startsWith("x.b: ")
        .contains(unset)
        .endsWith("; expected a password, env:NAME, file:/path or literal:TEXT")
        .doesNotContain("hunter");
    assertThat(r.isSecret("a")).isTrue();
  }

  @Test
  void blankValuesAreNotSet() {
    SettingsReader r = reader("a", "  ");
    assertThat(r.isSet("a")).isFalse();
    assertThat(r.text("a", "d")).isEqualTo("d");
    r.finish();
  }
}
