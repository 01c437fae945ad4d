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
    String message =
        failureOfAQuickStart(ServerFleet.memcachedBuilder().extraArgs("--no-such-option"));

    assertThat(message)
        .contains("memcached:1.6")
        .contains("what to do")
        .contains("scripts/docker-images.sh")
        .contains("shardwise.test.servers=local")
        .contains("no-such-option");
  }

  @Test
  @EnabledIfEnvironmentVariable(
      named = "TESTCONTAINERS_PULL_POLICY",
      matches = "io\\.shardwise\\.testing\\.LocalImagesOnly")
  void anImageTheEngineLacksFailsAtOnceSayingHowToBuildIt() {
    String message =
        failureOfAQuickStart(ServerFleet.redisBuilder().image("shardwise-no-such-image:1"));

    assertThat(message)
        .contains("shardwise-no-such-image:1")
        .contains("is not on the Docker engine, and pulls are off")
        .contains("scripts/docker-images.sh");
  }

  /** Starts one server with a long start-up timeout; its start must fail well before it. */
  private static String failureOfAQuickStart(ServerFleet.Builder<?> builder) {
    ServerFleet<?> fleet = builder.servers(1).startupTimeout(LONG_STARTUP_TIMEOUT).build();
    long started = System.nanoTime();

    ServerStartupException failure =
        catchThrowableOfType(ServerStartupException.class, fleet::start);

    Duration took = Duration.ofNanos(System.nanoTime() - started);
    assertThat(failure).as("the start failed").isNotNull();
    assertThat(took)
        .as("well before the start-up timeout")
        .isLessThan(LONG_STARTUP_TIMEOUT.dividedBy(5));
    System.out.printf(
        "[docker start-up failure] after %d ms: %s%n", took.toMillis(), failure.getMessage());
    return failure.getMessage();
  }
}
