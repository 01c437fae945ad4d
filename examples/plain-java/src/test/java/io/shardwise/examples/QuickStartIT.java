package io.shardwise.examples;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The plain Java example runs as examples/run.sh runs it: settings file plus -D overrides. */
@Timeout(60)
class QuickStartIT {

  @RegisterExtension static final ServerFleet<RedisServer> FLEET = ServerFleet.redis(3);

  @Test
  void runsAgainstRealServers() throws Exception {
    PrintStream out = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setProperty("shardwise.backend", "redis");
    System.setProperty("shardwise.servers", String.join(",", FLEET.addresses()));
    try {
      System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
      QuickStart.main(new String[0]);
    } finally {
      System.setOut(out);
      System.clearProperty("shardwise.backend");
      System.clearProperty("shardwise.servers");
    }
    String printed = captured.toString(StandardCharsets.UTF_8);
    out.print(printed);
    assertThat(printed)
        .contains("user:42 = Ada Lovelace")
        .contains("getMulti: [user:42, user:43] hit, [user:44] missed")
        .contains("visits = 1");
  }
}
