package io.shardwise.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ServerListTest {

  @Test
  void parsesEveryEntryForm() {
    List<Node> nodes =
        ServerList.parse(
            "127.0.0.1:11211, 127.0.0.1:11212:2\ncache-c=127.0.0.1:11213:3\n[::1]:6379\n"
                + "d=[::1]:6380:4, 127.0.0.1:11215 7\n127.0.0.1:11216:2 cache-f");
    assertThat(nodes)
        .containsExactly(
            Node.of("127.0.0.1", 11211),
            Node.of("127.0.0.1", 11212, 2),
            Node.named("cache-c", "127.0.0.1", 11213, 3),
            Node.of("::1", 6379),
            Node.named("d", "::1", 6380, 4),
            Node.of("127.0.0.1", 11215, 7),
            Node.named("cache-f", "127.0.0.1", 11216, 2));
    assertThat(nodes.get(0).name()).isEqualTo("127.0.0.1:11211");
    assertThat(nodes.get(0).hasExplicitName()).isFalse();
    assertThat(nodes.get(3).address()).isEqualTo("[::1]:6379");
    assertThat(nodes.get(3).name()).isEqualTo("[::1]:6379");
    assertThat(nodes.get(4).name()).isEqualTo("d");
  }

  @Test
  void skipsBlankLinesAndComments() {
    List<Node> nodes =
        ServerList.parse("# fleet\n\n127.0.0.1:11211 1   # first\n\n  127.0.0.1:11212\t2\n,\n");
    assertThat(nodes).containsExactly(Node.of("127.0.0.1", 11211), Node.of("127.0.0.1", 11212, 2));
  }

  @Test
  void keepsTheHostExactlyAsWritten() {
    assertThat(ServerList.parse("LocalHost:11211").get(0).host()).isEqualTo("LocalHost");
  }

  @Test
  void toStringReadsBack() {
    List<Node> nodes = ServerList.parse("a=[::1]:1:3, 127.0.0.1:2, h:3:9");
    String text = String.join(",", nodes.stream().map(Node::toString).toList());
    assertThat(ServerList.parse(text)).isEqualTo(nodes);
  }

  @Test
  void rejectsEmptyLists() {
    assertThatThrownBy(() -> ServerList.parse(""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one server");
    assertThatThrownBy(() -> ServerList.parse(" # only a comment\n , "))
        .hasMessageContaining("at least one server");
  }

  @Test
  void rejectsDuplicateAddressesAndNames() {
    assertThatThrownBy(() -> ServerList.parse("h:1, x:2, H:1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("server list must not name a server twice but H:1 is entry 1 and entry 3");
    assertThatThrownBy(() -> ServerList.parse("a=h:1, a=h:2"))
        .hasMessage("server names must be unique but 'a' is entry 1 and entry 2");
  }

  @Test
  void rejectsMalformedEntriesNamingTheEntryAndTheRule() {
    assertRejected("localhost", "server entry 'localhost': expected host:port");
    assertRejected("h:0", "server entry 'h:0': port must be in 1..65535 but was 0");
    assertRejected("h:65536", "server entry 'h:65536': port must be in 1..65535 but was 65536");
    assertRejected("h:99999999999", "server entry 'h:99999999999': port is out of range: 99999999999");
    assertRejected("h:abc", "server entry 'h:abc': port must be a decimal integer but was 'abc'");
    assertRejected("h:1:0", "server entry 'h:1:0': weight must be >= 1 but was 0");
    assertRejected("h:1:-2", "server entry 'h:1:-2': weight must be >= 1 but was -2");
    assertRejected("h:1 0", "server entry 'h:1 0': weight must be >= 1 but was 0");
    assertRejected("::1:6379", "server entry '::1:6379': the host must not be empty");
    assertRejected("0:0:0:0:0:0:0:1:6379", "server entry '0:0:0:0:0:0:0:1:6379': IPv6 addresses must be written in brackets, e.g. [::1]:6379");
    assertRejected("[::1:6379", "server entry '[::1:6379': an IPv6 address must be closed with ']'");
    assertRejected("[::1]6379", "server entry '[::1]6379': expected ':port' after the IPv6 address");
    assertRejected(":11211", "server entry ':11211': the host must not be empty");
    assertRejected("=h:1", "server entry '=h:1': the name before '=' must not be empty");
    assertRejected("h:1:2 a b", "server entry 'h:1:2 a b': expected [name=]host:port[:weight] followed by at most one weight or name");
    assertRejected("h:1:2 3", "server entry 'h:1:2 3': '3' is neither a missing weight nor a missing name");
    assertRejected("h/x:1", "server entry 'h/x:1': host must not contain whitespace, control characters or any of / , [ ] = but was 'h/x'");
  }

  @Test
  void nodeFactoriesValidateToo() {
    assertThatThrownBy(() -> Node.of("h", 1, 0)).hasMessage("weight must be >= 1 but was 0");
    assertThatThrownBy(() -> Node.of("h", 70000)).hasMessage("port must be in 1..65535 but was 70000");
    assertThatThrownBy(() -> ServerList.validate(List.of()))
        .hasMessageContaining("at least one server");
  }

  private static void assertRejected(String text, String message) {
    assertThatThrownBy(() -> ServerList.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }
}
