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

  private record Run(int status, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = ShardwiseCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    return new Run(status, out.toString(), err.toString());
  }

  @Test
  void everyCommandsHelpFormatsWithoutAWarning() {
    for (String command : new String[] {"locate", "plan", "detect", "simulate"}) {
      java.io.ByteArrayOutputStream stderr = new java.io.ByteArrayOutputStream();
      java.io.PrintStream before = System.err;
      Run help;
      System.setErr(new java.io.PrintStream(stderr, true, java.nio.charset.StandardCharsets.UTF_8));
      try {
        help = run(command, "--help");
      } finally {
        System.setErr(before);
      }
      // picocli warns on System.err when a description does not format (an unescaped %).
      assertThat(stderr.toString(java.nio.charset.StandardCharsets.UTF_8)).as(command).isEmpty();
      assertThat(help.err()).as(command).isEmpty();
      assertThat(help.status()).as(command).isZero();
    }
    assertThat(run("detect", "--help").out()).contains("Modes below 100% to print");
  }

  @Test
  void picocliErrorsHaveOnePrefix() {
    Run missingGroup = run("detect", "--backend", "memcached");
    assertThat(missingGroup.status()).isEqualTo(ShardwiseCli.EXIT_USAGE);
    assertThat(missingGroup.err())
        .startsWith("shardwise: Missing required argument")
        .contains("(--servers=<inline> | --servers-file=<file>)")
        .doesNotContain("Error:");

    Run exclusive = run("detect", "--backend", "memcached", "--servers", "a:1", "--servers-file", "f");
    assertThat(exclusive.status()).isEqualTo(ShardwiseCli.EXIT_USAGE);
    assertThat(exclusive.err()).startsWith("shardwise: ").doesNotContain("Error:");

    Run unknown = run("detect", "--frobnicate");
    assertThat(unknown.err()).startsWith("shardwise: ").doesNotContain("Error:");
  }
}
