package io.shardwise.core.internal.route;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routing.ServerList;
import org.junit.jupiter.api.Test;

class ServerListChecksTest {

  @Test
  void anEmptyEntryBetweenTwoServersIsRefusedNamingTheLine() {
    assertThatThrownBy(() -> ServerListChecks.checkNoEmptyEntry("127.0.0.1:11211,,127.0.0.1:11212"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "server list must not have an empty entry between two servers but has one after"
                + " 127.0.0.1:11211 in '127.0.0.1:11211,,127.0.0.1:11212'");
    assertThatThrownBy(() -> ServerListChecks.checkNoEmptyEntry("a:1, ,  , b:2 # two"))
        .hasMessageContaining("after a:1 in 'a:1, ,  , b:2'");
  }

  @Test
  void blankLinesCommentsAndOuterCommasAreNotEntries() {
    assertThatCode(
            () -> ServerListChecks.checkNoEmptyEntry("a:1,b:2,\n\n# c:3,,d:4\n,e:5\n  f:6 # x,,y"))
        .doesNotThrowAnyException();
  }

  @Test
  void twoSpellingsOfOneServerAreRefusedNamingBoth() {
    assertThatThrownBy(
            () -> ServerListChecks.checkDistinctServers(ServerList.parse("127.0.0.1:11311,localhost:11311")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "server list must not name a server twice but entry 1 (127.0.0.1:11311) and entry 2"
                + " (localhost:11311) both reach 127.0.0.1:11311");
  }

  @Test
  void theSameHostOnAnotherPortIsAnotherServer() {
    assertThatCode(
            () -> ServerListChecks.checkDistinctServers(ServerList.parse("127.0.0.1:11311,localhost:11312")))
        .doesNotThrowAnyException();
  }
}
