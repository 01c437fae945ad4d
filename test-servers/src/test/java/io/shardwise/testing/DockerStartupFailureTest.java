package io.shardwise.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * A container that does not start fails the fleet's start at once, with a message that says what
 * to do, instead of waiting out the start-up timeout (here 10 minutes). Docker mode only.
 */
@EnabledInDockerMode
class DockerStartupFailureTest {
  private static final Duration LONG_STARTUP_TIMEOUT = Duration.ofMinutes(10);

  @Test
  void aServerThatExitsOnItsArgumentsFailsAtOnceWithItsLogAndWhatToDo() {
    ServerFleet<MemcachedServer> fleet =
        ServerFleet.memcachedBuilder()
            .servers(1)
            .extraArgs("--no-such-option")
            .startupTimeout(LONG_STARTUP_TIMEOUT)
            .build();
    long started = System.nanoTime();

    ServerStartupException failure =
        catchThrowableOfType(ServerStartupException.class, fleet::start);

    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(failure).as("the start failed").isNotNull();
    assertThat(failure.getMessage())
        .contains("memcached:1.6")
        .contains("what to do")
        .contains("scripts/docker-images.sh")
        .contains("shardwise.test.servers=local")
        .contains("no-such-option");
    assertThat(took)
        .as("well before the start-up timeout")
        .isLessThan(LONG_STARTUP_TIMEOUT.dividedBy(5));
  }

  @Test
  @EnabledIfEnvironmentVariable(
      named = "TESTCONTAINERS_PULL_POLICY",
      matches = "io\\.shardwise\\.testing\\.LocalImagesOnly")
  void anImageTheEngineLacksFailsAtOnceSayingHowToBuildIt() {
    ServerFleet<RedisServer> fleet =
        ServerFleet.redisBuilder()
            .servers(1)
            .image("shardwise-no-such-image:1")
            .startupTimeout(LONG_STARTUP_TIMEOUT)
            .build();
    long started = System.nanoTime();

    ServerStartupException failure =
        catchThrowableOfType(ServerStartupException.class, fleet::start);

    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(failure).as("the start failed").isNotNull();
    assertThat(failure.getMessage())
        .contains("shardwise-no-such-image:1")
        .contains("is not on the Docker engine, and pulls are off")
        .contains("scripts/docker-images.sh");
    assertThat(took)
        .as("well before the start-up timeout")
        .isLessThan(LONG_STARTUP_TIMEOUT.dividedBy(5));
  }
}
