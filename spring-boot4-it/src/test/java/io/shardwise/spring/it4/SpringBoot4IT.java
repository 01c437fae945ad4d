package io.shardwise.spring.it4;

import io.shardwise.spring.boot.it.BootStarterContract;

/** {@link BootStarterContract} on Spring Boot 4. */
class SpringBoot4IT extends BootStarterContract {

  @Override
  protected String bootVersionPrefix() {
    return "4.";
  }
}
