package io.shardwise.spring.it3;

import io.shardwise.spring.boot.it.BootStarterContract;

/** {@link BootStarterContract} on Spring Boot 3.5. */
class SpringBoot3IT extends BootStarterContract {

  @Override
  protected String bootVersionPrefix() {
    return "3.5.";
  }

  /** What Boot 3.5.7 manages: the lowest Lettuce the Redis backend supports. */
  @Override
  protected String lettuceVersionPrefix() {
    return "6.6.";
  }
}
