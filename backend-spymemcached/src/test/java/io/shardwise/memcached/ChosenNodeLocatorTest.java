package io.shardwise.memcached;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.util.List;
import net.spy.memcached.DefaultConnectionFactory;
import net.spy.memcached.MemcachedNode;
import org.junit.jupiter.api.Test;

class ChosenNodeLocatorTest {

  private static MemcachedNode node(int port) throws IOException {
    return new DefaultConnectionFactory()
        .createMemcachedNode(new InetSocketAddress("127.0.0.1", port), SocketChannel.open(), 1024);
  }

  @Test
  void everyKeyGoesToTheNodeChosenOnThisThreadAndScopesNest() throws Exception {
    ChosenNodeLocator locator = new ChosenNodeLocator();
    MemcachedNode a = node(1);
    MemcachedNode b = node(2);

    MemcachedNode outer = ChosenNodeLocator.issueOn(a);
    try {
      assertThat(locator.getPrimary("k1")).isSameAs(a);
      assertThat(locator.getPrimary("k2")).isSameAs(a);
      MemcachedNode inner = ChosenNodeLocator.issueOn(b);
      try {
        assertThat(locator.getPrimary("k1")).isSameAs(b);
      } finally {
        ChosenNodeLocator.restore(inner);
      }
      assertThat(locator.getPrimary("k1")).isSameAs(a);
      Throwable[] onOtherThread = new Throwable[1];
      Thread other = new Thread(() -> onOtherThread[0] = catchFailure(locator));
      other.start();
      other.join();
      assertThat(onOtherThread[0])
          .as("another thread has chosen nothing")
          .isInstanceOf(IllegalStateException.class);
    } finally {
      ChosenNodeLocator.restore(outer);
    }
    assertThatThrownBy(() -> locator.getPrimary("k1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no memcached node chosen for key 'k1'");
  }

  @Test
  void holdsTheCurrentNodesAndNoFailoverSequence() throws Exception {
    ChosenNodeLocator locator = new ChosenNodeLocator();
    MemcachedNode a = node(1);
    MemcachedNode b = node(2);
    locator.add(a);
    locator.add(b);
    locator.remove(a);

    assertThat(locator.getAll()).containsExactly(b);
    assertThat(locator.getSequence("k").hasNext()).isFalse();
    assertThatThrownBy(() -> locator.updateLocator(List.of(a)))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  private static Throwable catchFailure(ChosenNodeLocator locator) {
    try {
      locator.getPrimary("k");
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
