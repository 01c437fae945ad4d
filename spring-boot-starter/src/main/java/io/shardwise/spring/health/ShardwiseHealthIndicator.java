package io.shardwise.spring.health;

import io.shardwise.client.AsyncCacheClient;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code shardwise} health indicator on Spring Boot 4: the fleet's health as {@link
 * ShardwiseHealthCheck} reports it (see there for the details shown). On Boot 3.5 the starter
 * contributes {@link Boot3HealthIndicator} instead, with the same details.
 */
public final class ShardwiseHealthIndicator implements HealthIndicator {

  private final ShardwiseHealthCheck check;

  /**
   * @param wait longest wait for the pings; each also fails by itself after the client's timeout
   */
  public ShardwiseHealthIndicator(AsyncCacheClient<?> client, String backend, Duration wait) {
    this(client, backend, wait, null);
  }

  /**
   * @param lastChange the client's last server-list change, shown as {@code lastTopologyChange};
   *     {@code null} when the client does not report it
   */
  public ShardwiseHealthIndicator(
      AsyncCacheClient<?> client, String backend, Duration wait, LastTopologyChange lastChange) {
    this(new ShardwiseHealthCheck(client, backend, wait, lastChange));
  }

  /** An indicator showing what {@code check} reports. */
  public ShardwiseHealthIndicator(ShardwiseHealthCheck check) {
    this.check = Objects.requireNonNull(check, "check");
  }

  @Override
  public Health health() {
    ShardwiseHealthCheck.Result result = check.check();
    return (result.up() ? Health.up() : Health.down()).withDetails(result.details()).build();
  }
}
