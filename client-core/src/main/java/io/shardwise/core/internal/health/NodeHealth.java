package io.shardwise.core.internal.health;

import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import io.shardwise.client.NodeState;
import io.shardwise.client.NodeStatus;
import java.time.Duration;
import java.time.Instant;

/** One node's circuit and state, kept by {@link FleetHealth}. */
final class NodeHealth {
  final Member member;
  final CircuitBreaker breaker;
  volatile NodeState state = NodeState.HEALTHY;
  volatile Throwable lastFailure;
  volatile Instant since = Instant.now();
  /** Why it is in its state, for {@link NodeStatus}; empty when there is nothing to say. */
  volatile String detail = "";
  /** The reason a failing node was kept in, logged once until it answers again. */
  volatile String keptIn;
  /** The last rejoin failure logged, so that each distinct one is logged once. */
  volatile String lastRejoinFailure;
  long probeDelayNanos;
  long ejectedAtNanos;
  /**
   * Successes recorded on the breaker since its last failure. Once the window (of {@code
   * threshold} calls) holds only successes, more successes change nothing, so they are not
   * recorded: the breaker is then touched only around failures, not on every request.
   */
  volatile int successesSinceFailure = Integer.MAX_VALUE;

  NodeHealth(Member member, CircuitBreakerConfig config) {
    this.member = member;
    this.breaker = CircuitBreaker.of("shardwise:" + member.node.name(), config);
    // No event consumers on the breaker: with one registered, Resilience4j builds an event
    // object for every recorded success. The client ejects on the failure count itself.
  }

  boolean available() {
    return state == NodeState.HEALTHY;
  }

  /**
   * The circuit of every node: open after {@code threshold} failures in a row (a window of that
   * many calls, all failed); readmission is by probe only, so the circuit never half-opens on a
   * timer.
   */
  static CircuitBreakerConfig breakerConfig(int threshold) {
    return CircuitBreakerConfig.custom()
        .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
        .slidingWindowSize(threshold)
        .minimumNumberOfCalls(threshold)
        .failureRateThreshold(100f)
        .automaticTransitionFromOpenToHalfOpenEnabled(false)
        .waitDurationInOpenState(Duration.ofDays(365))
        .writableStackTraceEnabled(false)
        .build();
  }
}
