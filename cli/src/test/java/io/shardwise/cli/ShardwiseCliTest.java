package io.shardwise.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class ShardwiseCliTest {

  @Test
  void withoutArgumentsItPrintsTheUsage() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();

    int status = ShardwiseCli.run(new String[0], new PrintWriter(out, true), new PrintWriter(err, true));

    assertThat(status).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString()).startsWith("Usage: shardwise ")
        .contains("Commands:")
        .contains("  locate")
        .contains("  plan")
        .contains("  detect")
        .contains("  simulate");
  }
}
