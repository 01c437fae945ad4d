package org.springframework.cloud.context.environment;

import java.util.Set;
import org.springframework.context.ApplicationEvent;

/**
 * A stand-in for Spring Cloud Context's event of the same name, which has no release for Spring
 * Boot 4 in this build's repository: same package, name and shape ({@code getKeys()}), so that the
 * starter's listener, which recognises the event by its class name, is tested as it runs with
 * Spring Cloud. Test code only; the same stand-in as the starter's tests use.
 */
public class EnvironmentChangeEvent extends ApplicationEvent {

  private static final long serialVersionUID = 1L;

  private final transient Set<String> keys;

  public EnvironmentChangeEvent(Object context, Set<String> keys) {
    super(context);
    this.keys = keys;
  }

  /** The keys the refresh changed. */
  public Set<String> getKeys() {
    return keys;
  }
}
