package io.shardwise.spring.it3;

import io.shardwise.spring.boot.it.BootStarterContract;

/** {@link BootStarterContract} on Spring Boot 3.5. */
class SpringBoot3IT extends BootStarterContract {

  @Override
  protected String bootVersionPrefix() {
    return "3.5.";
  }
}
