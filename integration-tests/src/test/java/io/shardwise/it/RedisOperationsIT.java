package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CacheClient;
import io.shardwise.core.ClientBuilder;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CacheOperationsContract} on Redis, with the client's value limit set to 1 MiB (the
 * backend's default is Redis' 512 MiB bulk limit).
 */
class RedisOperationsIT extends CacheOperationsContract {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(3);

  @Override
  CacheFleet fleet() {
    return CacheFleet.redis(FLEET);
  }

  @Override
  ClientBuilder<Object> builder(CountingBackend backend) {
    return fleetBuilder(backend).maxValueBytes(MAX_VALUE_BYTES);
  }

  @Test
  void decrGoesBelowZero() {
    CacheClient<String> cache = strings.sync();
    assertThat(cache.incr("counter:floor", 0, 12, Duration.ZERO)).isEqualTo(12);

    assertThat(cache.decr("counter:floor", 100, 0, Duration.ZERO)).isEqualTo(-88);
    assertThat(rawUtf8("counter:floor")).isEqualTo("-88");
    assertThat(cache.incr("counter:floor", 90, 0, Duration.ZERO)).isEqualTo(2);
  }

  @Test
  void counterTtlAppliesOnlyWhenTheCounterIsCreated() {
    CacheClient<String> cache = strings.sync();
    cache.incr("counter:ttl", 1, 1, Duration.ofSeconds(60));
    cache.incr("counter:ttl", 1, 1, Duration.ofSeconds(5));
    Long left =
        fleet().rawSecondsToExpiry(fleet().indexOf(strings.nodeFor("counter:ttl")), "counter:ttl");
    assertThat(left).isBetween(50L, 60L);
  }
}
