package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.CacheClient;
import io.shardwise.core.ClientBuilder;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.ServerFleet;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link CacheOperationsContract} on memcached. The servers run with {@code -I 2m} and the client
 * with a configured limit of 1 MiB, so that the configured limit, not the servers' item size, is
 * the largest value stored; the servers' item size is tested in {@code LimitsIT}.
 */
class MemcachedOperationsIT extends CacheOperationsContract {

  @RegisterExtension
  static final ServerFleet<MemcachedServer> FLEET =
      ServerFleet.memcachedBuilder().servers(3).extraArgs("-I", "2m").build();

  @Override
  CacheFleet fleet() {
    return CacheFleet.memcached(FLEET);
  }

  @Override
  ClientBuilder<Object> builder(CountingBackend backend) {
    // no limit of the backend's own: the servers' item size decides
    assertThat(backend.defaultMaxValueBytes()).isEqualTo(Integer.MAX_VALUE);
    return fleetBuilder(backend).maxValueBytes(MAX_VALUE_BYTES);
  }

  @Test
  void decrStopsAtZero() {
    CacheClient<String> cache = strings.sync();
    assertThat(cache.incr("counter:floor", 0, 12, Duration.ZERO)).isEqualTo(12);

    assertThat(cache.decr("counter:floor", 100, 0, Duration.ZERO)).isZero();
    assertThat(cache.decr("counter:floor", 1, 0, Duration.ZERO)).isZero();
    // memcached keeps the item's length and pads a shorter number with spaces.
    assertThat(rawUtf8("counter:floor")).isEqualTo("0 ");
    assertThat(cache.incr("counter:floor", 5, 0, Duration.ZERO)).isEqualTo(5);
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
