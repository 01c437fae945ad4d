package io.shardwise.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.endpoint.SanitizableData;

/** The starter's pure rules for Spring Boot: supported versions, masked keys. */
class SpringSupportTest {

  @Test
  void boot35AndLaterAreAcceptedAndOlderVersionsStopTheStartUpNamingTheVersion() {
    for (String ok : new String[] {"3.5.0", "3.5.7", "4.0.7", "4.1.0-SNAPSHOT", "5.0.0", null, ""}) {
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
        new String[] {"shardwise.servers", "shardwise.redis.tls.ca-file", "spring.redis.password"}) {
      SanitizableData data = function.apply(new SanitizableData(null, key, "shown"));
      assertThat(data.getValue()).as(key).isEqualTo("shown");
    }
  }
}
