package io.shardwise.core.internal.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.ClientMetrics;
import io.shardwise.client.NodeState;
import io.shardwise.core.FailoverOptions;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The stall rule on the clock of a scanner the test drives: timeouts of requests that saw the
 * client stall are no evidence against their server, and neither is a timeout that came back at
 * once just after a stall (a connection that could not be made in time while the process was
 * stopped, as at start-up on a starved CPU).
 */
class StallRuleTest {

  private static final long TIMEOUT = 1_000_000_000L;

  private final AtomicLong clock = new AtomicLong(1_000_000_000_000L);
  private final AtomicInteger discounted = new AtomicInteger();
  private final DeadlineScanner scanner = new DeadlineScanner(TIMEOUT, nanos -> {}, clock::get);
  private final FleetHealth health =
      new FleetHealth(
          new NoBackend(),
          FailoverOptions.builder().failureThreshold(3).maxEjectedPercent(100).build(),
          List.of(),
          new ClientMetrics() {
            @Override
            public void ejectionAvoided(Node node, String reason) {
              if (reason.equals("stall")) {
                discounted.incrementAndGet();
              }
            }
          });
  private final Member member = new Member(Node.of("127.0.0.1", 1), null);

  @AfterEach
  void close() {
    scanner.close();
    health.close();
  }

  /** The process stops for {@code nanos}: the clock jumps, and the scanner sees the jump. */
  private void stall(long nanos) throws InterruptedException {
    long before = scanner.stalledNanos();
    clock.addAndGet(nanos);
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (scanner.stalledNanos() == before) {
      assertThat(System.nanoTime()).as("the scanner saw the stall").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  @Test
  void timeoutsThatComeBackAtOnceJustAfterAStallEjectNothing() throws InterruptedException {
    health.admit(member);
    health.resize(1);
    health.watchStalls(scanner);
    stall(2 * TIMEOUT);
    for (int i = 0; i < 5; i++) {
      long start = clock.get();
      // Failed at once: the connection is not made yet.
      health.record(member, start, start + 1_000_000, new TimeoutException("connection initialization timed out"));
    }
    assertThat(discounted.get()).isEqualTo(5);
    assertThat(member.state()).isEqualTo(NodeState.HEALTHY);
  }

  @Test
  void theSameTimeoutsWithNoStallEjectTheServer() {
    health.admit(member);
    health.resize(1);
    health.watchStalls(scanner);
    for (int i = 0; i < 5; i++) {
      long start = clock.get();
      health.record(member, start, start + 1_000_000, new TimeoutException("connection initialization timed out"));
    }
    assertThat(discounted.get()).isZero();
    assertThat(member.state()).isNotEqualTo(NodeState.HEALTHY);
  }

  /** Classifies failures as the default backend does; connects nothing. */
  private static final class NoBackend implements Backend {
    @Override
    public String name() {
      return "none";
    }

    @Override
    public NodeConnection connect(Node node, Duration requestTimeout) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Duration defaultRequestTimeout() {
      return Duration.ofNanos(TIMEOUT);
    }

    @Override
    public KeyRules keyRules() {
      return KeyRules.MEMCACHED;
    }

    @Override
    public int defaultMaxValueBytes() {
      return 1024;
    }

    @Override
    public boolean storesFlags() {
      return true;
    }

    @Override
    public void close() {}
  }
}
