package io.shardwise.spring.health;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;
import java.util.Objects;

/**
 * The {@code shardwise} health indicator on Spring Boot 3.5, where Actuator's {@code
 * HealthIndicator} is {@code org.springframework.boot.actuate.health.HealthIndicator} (Boot 4 moved
 * it to {@code org.springframework.boot.health.contributor}). The starter is compiled against Boot
 * 4, so this indicator is a proxy of Boot 3.5's interface that builds Boot 3.5's {@code Health}
 * through its public factory methods ({@code Health.up()}, {@code Builder.withDetails(Map)}, {@code
 * Builder.build()}); it shows exactly what {@link ShardwiseHealthCheck} reports, as {@link
 * ShardwiseHealthIndicator} does on Boot 4.
 */
public final class Boot3HealthIndicator {

  /** Boot 3.5's health indicator interface. */
  public static final String INDICATOR = "org.springframework.boot.actuate.health.HealthIndicator";

  private static final String HEALTH = "org.springframework.boot.actuate.health.Health";

  private Boot3HealthIndicator() {}

  /**
   * A Boot 3.5 {@code HealthIndicator} over {@code check}.
   *
   * @throws IllegalStateException if Boot 3.5's health classes are not on {@code classLoader}'s
   *     path or do not have the methods named above
   */
  public static Object create(ShardwiseHealthCheck check, ClassLoader classLoader) {
    Objects.requireNonNull(check, "check");
    try {
      Class<?> indicator = Class.forName(INDICATOR, false, classLoader);
      Class<?> health = Class.forName(HEALTH, false, classLoader);
      Method up = health.getMethod("up");
      Method down = health.getMethod("down");
      Class<?> builder = up.getReturnType();
      Method withDetails = builder.getMethod("withDetails", Map.class);
      Method build = builder.getMethod("build");
      Method healthMethod = indicator.getMethod("health");
      InvocationHandler handler =
          (proxy, method, args) -> {
            if (method.equals(healthMethod)) {
              ShardwiseHealthCheck.Result result = check.check();
              Object b = (result.up() ? up : down).invoke(null);
              return build.invoke(withDetails.invoke(b, result.details()));
            }
            if (method.isDefault()) {
              return InvocationHandler.invokeDefault(proxy, method, args);
            }
            return switch (method.getName()) {
              case "toString" -> "ShardwiseHealthIndicator[Spring Boot 3]";
              case "hashCode" -> System.identityHashCode(proxy);
              case "equals" -> proxy == args[0];
              default -> throw new UnsupportedOperationException(method.toString());
            };
          };
      return Proxy.newProxyInstance(classLoader, new Class<?>[] {indicator}, handler);
    } catch (ReflectiveOperationException | LinkageError e) {
      throw new IllegalStateException(
          "the Shardwise health indicator needs Spring Boot 3.5's "
              + HEALTH
              + " (spring-boot-actuator 3.5.x) or Spring Boot 4's spring-boot-health; found "
              + e,
          e);
    }
  }
}
