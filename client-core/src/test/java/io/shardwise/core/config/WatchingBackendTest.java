package io.shardwise.core.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.spi.Backend;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link WatchingBackend} wraps the backend of every client with a watched server list (a servers
 * file or a DNS name). The {@link Backend} SPI has default methods, such as the exact value-size
 * check: a wrapper that did not forward one would silently fall back to the default (no check)
 * for exactly those clients. So every method of the SPI must be declared by the wrapper.
 */
class WatchingBackendTest {

  @Test
  void everyMethodOfTheBackendSpiIsForwarded() {
    List<String> notForwarded = new ArrayList<>();
    for (Method m : Backend.class.getMethods()) {
      try {
        WatchingBackend.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      } catch (NoSuchMethodException e) {
        notForwarded.add(m.toString());
      }
    }
    assertThat(notForwarded).as("Backend methods WatchingBackend does not forward").isEmpty();
  }
}
