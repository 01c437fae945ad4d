package io.shardwise.spring.boot;

import io.shardwise.spi.SettingsReader;
import java.util.Locale;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

/**
 * Masks the values of Shardwise's credentials in Actuator's {@code configprops} and {@code env}
 * endpoints, whatever {@code management.endpoint.*.show-values} says: every {@code shardwise.*} key
 * whose name holds {@code password}, {@code secret} or {@code token} (the loader's rule for a
 * secret, {@link SettingsReader#looksSecret}) or {@code username} (the Redis ACL user, the SASL
 * user). A key is matched in any of its forms: {@code shardwise.redis.password}, {@code
 * shardwise.redis.tls.key-store-password}, {@code SHARDWISE_REDIS_PASSWORD}. The masked value is
 * Actuator's {@code ******}.
 */
public final class ShardwiseSanitizingFunction implements SanitizingFunction {

  @Override
  public SanitizableData apply(SanitizableData data) {
    return isCredential(data.getKey()) && data.getValue() != null
        ? data.withSanitizedValue()
        : data;
  }

  /** Whether {@code key}, in any of its forms, is a Shardwise key that holds a credential. */
  static boolean isCredential(String key) {
    if (key == null) {
      return false;
    }
    String k = key.toLowerCase(Locale.ROOT).replace('_', '.').replace("-", "");
    if (!k.startsWith("shardwise.")) {
      return false;
    }
    return SettingsReader.looksSecret(k) || k.contains("username");
  }
}
