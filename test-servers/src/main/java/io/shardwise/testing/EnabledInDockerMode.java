package io.shardwise.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a test class or method only when Docker mode is asked for explicitly ({@code
 * -Dshardwise.test.servers=docker} or {@code SHARDWISE_TEST_SERVERS=docker}, as {@code
 * scripts/docker-slice.sh} does): for tests that declare their own containers, which {@code auto}
 * mode cannot move to local processes.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(EnabledInDockerMode.Condition.class)
public @interface EnabledInDockerMode {

  /** Enabled when {@link ServerMode#configured()} is {@link ServerMode#DOCKER}. */
  final class Condition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return ServerMode.configured() == ServerMode.DOCKER
          ? ConditionEvaluationResult.enabled("Docker mode")
          : ConditionEvaluationResult.disabled(
              "runs in Docker mode only ("
                  + ServerMode.PROPERTY
                  + "=docker; scripts/docker-slice.sh)");
    }
  }
}
