package io.shardwise.spring.it4;

import io.shardwise.spring.boot.it.BootStarterContract;

/** {@link BootStarterContract} on Spring Boot 4. */
class SpringBoot4IT extends BootStarterContract {

  @Override
  protected String bootVersionPrefix() {
    return "4.";
  }

  /** What Boot 4.0.7 manages, and what the Redis backend is compiled against. */
  @Override
  protected String lettuceVersionPrefix() {
    return "6.8.";
  }
}
