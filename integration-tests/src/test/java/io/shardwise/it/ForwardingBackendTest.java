package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.spi.Backend;
import java.lang.reflect.Method;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The tests' decorators must behave as the backend they wrap: a default method of the SPI left
 * unforwarded falls back to the default (it missed {@code isTimeout}, which the memcached backend
 * overrides, so tests through a decorator classified its timeouts differently).
 */
class ForwardingBackendTest {

  @Test
  void everyMethodOfTheBackendSpiIsForwarded() {
    assertThat(Arrays.stream(Backend.class.getMethods()).filter(m -> !declared(m)).map(Method::toString))
        .as("Backend methods ForwardingBackend does not forward")
        .isEmpty();
  }

  private static boolean declared(Method m) {
    if (m.getName().equals("connect") && m.getParameterCount() == 1) {
      // The SPI's connect(node) calls connect(node, timeout), which the decorators override: it
      // must stay the default, or it would skip their decoration.
      return true;
    }
    try {
      ForwardingBackend.class.getDeclaredMethod(m.getName(), m.getParameterTypes());
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }
}
