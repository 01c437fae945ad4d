package io.shardwise.spring.boot;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code management.health.shardwise.enabled}, else {@code management.health.defaults.enabled},
 * else enabled: the rule of Actuator's {@code @ConditionalOnEnabledHealthIndicator}, whose class is
 * in another package on Boot 3.5 and on Boot 4.
 */
final class OnShardwiseHealthEnabled extends SpringBootCondition {

  @Override
  public ConditionOutcome getMatchOutcome(
      ConditionContext context, AnnotatedTypeMetadata metadata) {
    String own = context.getEnvironment().getProperty("management.health.shardwise.enabled");
    if (own != null) {
      return new ConditionOutcome(
          Boolean.parseBoolean(own.trim()), "management.health.shardwise.enabled=" + own);
    }
    String defaults = context.getEnvironment().getProperty("management.health.defaults.enabled");
    boolean enabled = defaults == null || Boolean.parseBoolean(defaults.trim());
    return new ConditionOutcome(enabled, "management.health.defaults.enabled=" + defaults);
  }
}
