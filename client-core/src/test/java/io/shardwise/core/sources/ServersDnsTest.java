package io.shardwise.core.sources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.Node;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ServersDnsTest {

  private static InetAddress ip(String literal) {
    try {
      return InetAddress.getByName(literal); // a literal: no lookup
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void everyAddressIsANodeNamedByItsAddressSortedWhateverTheRecordOrder() throws Exception {
    AtomicReference<InetAddress[]> answer =
        new AtomicReference<>(
            new InetAddress[] {ip("127.0.0.10"), ip("::1"), ip("127.0.0.9"), ip("127.0.0.2")});
    ServersDns dns = ServersDns.of("memcached.cache.svc:11211", host -> answer.get());
    List<Node> nodes = dns.read().orElseThrow();
    assertThat(nodes)
        .containsExactly(
            Node.of("127.0.0.2", 11211),
            Node.of("127.0.0.9", 11211),
            Node.of("127.0.0.10", 11211),
            Node.of("0:0:0:0:0:0:0:1", 11211));
    assertThat(nodes).extracting(Node::name)
        .containsExactly(
            "127.0.0.2:11211", "127.0.0.9:11211", "127.0.0.10:11211", "[0:0:0:0:0:0:0:1]:11211");

    answer.set(new InetAddress[] {ip("::1"), ip("127.0.0.2"), ip("127.0.0.10"), ip("127.0.0.9"),
        ip("127.0.0.2")});
    assertThat(dns.read()).contains(nodes);
  }

  @Test
  void anEmptyAnswerOrAFailedLookupIsRefusedNeverAnEmptyList() {
    ServersDns empty = ServersDns.of("cache.example:6379", host -> new InetAddress[0]);
    assertThatThrownBy(empty::read)
        .isInstanceOf(UnknownHostException.class)
        .hasMessage(
            "dns name cache.example:6379 resolved to no address; an empty answer never empties"
                + " the fleet");
    ServersDns failing =
        ServersDns.of(
            "cache.example:6379",
            host -> {
              throw new UnknownHostException(host + ": Temporary failure in name resolution");
            });
    assertThatThrownBy(failing::read)
        .hasMessage(
            "dns name cache.example:6379 cannot be resolved: cache.example: Temporary failure in"
                + " name resolution");
  }

  @Test
  void theSystemResolverReadsLoopbackLiterals() throws Exception {
    assertThat(ServersDns.of("127.0.0.1:11211").resolve())
        .containsExactly(Node.of("127.0.0.1", 11211));
  }

  @Test
  void aBadNameAndPortIsNamed() {
    for (String bad : List.of("cache", "cache:", ":11211", "cache:port", "a b:1", "a:1,b:2")) {
      assertThatThrownBy(() -> ServersDns.of(bad))
          .as(bad)
          .hasMessage(
              "expected name:port such as memcached.cache.svc.cluster.local:11211 but was '"
                  + bad
                  + "'");
    }
    assertThatThrownBy(() -> ServersDns.of("cache:70000"))
        .hasMessage("port must be in 1..65535 but was 70000");
  }
}
