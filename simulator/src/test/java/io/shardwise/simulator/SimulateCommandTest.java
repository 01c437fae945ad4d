package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SimulateCommandTest {

  private static final byte[] PNG_MAGIC = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int run(String... args) {
    return SimulateCommand.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
  }

  private void assertBadInput(int code, String expectedMessagePart) {
    assertThat(code).isEqualTo(SimulateCommand.EXIT_USAGE);
    assertThat(out.toString()).isEmpty();
    List<String> lines = err.toString().lines().toList();
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).startsWith("shardwise: ").contains(expectedMessagePart);
  }

  @Test
  void printsTheTableAndWritesCsvAndPng() throws IOException {
    Path csv = dir.resolve("jump.csv");
    Path png = dir.resolve("jump.png");
    int code =
        run(
            "jump",
            "--buckets",
            "10,100",
            "--keys",
            "2000",
            "--seed",
            "5",
            "--csv",
            csv.toString(),
            "--png",
            png.toString());
    assertThat(code).isZero();
    assertThat(out.toString())
        .startsWith("### jump: loop iterations per lookup\n")
        .contains("| n | mean loops | std. error | H_n (expected) | ln n + 1 (bound) |\n")
        .contains("| 10 | ")
        .contains("| 100 | ");
    assertThat(err.toString()).contains("jump: done in");
    List<String> rows = Files.readAllLines(csv, StandardCharsets.UTF_8);
    assertThat(rows).hasSize(3);
    assertThat(rows.get(0)).isEqualTo("n,mean_loops,std_error,harmonic_n,ln_n_plus_1");
    assertThat(rows.get(1)).startsWith("10,");
    assertThat(rows.get(1).split(",")).hasSize(5);
    byte[] image = Files.readAllBytes(png);
    assertThat(image.length).isGreaterThan(1000);
    assertThat(java.util.Arrays.copyOf(image, 8)).isEqualTo(PNG_MAGIC);
  }

  @Test
  void quietRunsPrintNothingOnStandardError() {
    assertThat(run("small", "--nodes", "5", "--keys", "1000", "--trials", "2", "--quiet")).isZero();
    assertThat(err.toString()).isEmpty();
    assertThat(out.toString()).contains("| 5 | ring V=1 |");
  }

  @Test
  void sameSeedSameOutput() {
    String[] args = {"disrupt", "--nodes", "10", "--keys", "2000", "--trials", "2", "--quiet"};
    assertThat(run(args)).isZero();
    String first = out.toString();
    out.getBuffer().setLength(0);
    assertThat(run(args)).isZero();
    assertThat(out.toString()).isEqualTo(first);
  }

  @Test
  void allWritesMarkdownCsvAndPngForEveryExperiment() throws IOException {
    Path target = dir.resolve("sim");
    assertThat(run("all", "--quick", "--quiet", "--out", target.toString())).isZero();
    for (String name :
        List.of("balance", "compare", "disrupt", "maglev", "jump", "bounded", "small")) {
      String markdown = Files.readString(target.resolve(name + ".md"));
      assertThat(markdown).startsWith("### " + name + ":");
      assertThat(out.toString()).contains(markdown);
      assertThat(Files.readAllLines(target.resolve(name + ".csv")).size()).isGreaterThan(1);
      assertThat(Files.size(target.resolve(name + ".png"))).isGreaterThan(1000);
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "nonsense",
        "balance --points 0",
        "balance --nodes",
        "compare --keys 0",
        "compare --keys many",
        "disrupt --trials -1",
        "maglev --table-sizes 1000 --backends 50",
        "maglev --removed 1000",
        "jump --buckets 0",
        "bounded --alpha -1",
        "bounded --alpha NaN",
        "bounded --epsilons 0.25,0",
        "small --seed x",
        "small --threads 0",
        "all",
        "balance --unknown-option",
      })
  void badInputExitsWithCodeTwoAndOneLineOnStandardError(String args) {
    assertBadInput(run(args.split(" ")), "");
  }

  @Test
  void messagesNameTheBadValue() {
    assertBadInput(
        run("bounded", "--alpha", "-1"), "--alpha must be a finite number >= 0 but was -1.0");
  }

  @Test
  void aTableSizeThatIsNotPrimeIsReportedByTheRouter() {
    assertBadInput(
        run(
            "maglev",
            "--backends",
            "10",
            "--table-sizes",
            "1000",
            "--removed",
            "1",
            "--trials",
            "1",
            "--quiet"),
        "maglev table size must be a prime larger than the node count 10 but was 1000");
  }

  @Test
  void anUnwritableOutputPathIsBadInputFoundBeforeTheRun() {
    Path missing = dir.resolve("no/such/dir/out.csv");
    assertBadInput(
        run("jump", "--buckets", "10", "--keys", "10", "--csv", missing.toString()),
        "--csv: no such directory: " + missing.getParent());
    err.getBuffer().setLength(0);
    assertBadInput(
        run("jump", "--buckets", "10", "--keys", "10", "--png", dir.toString()),
        "--png: is a directory: ");
  }

  @Test
  void anOutputDirectoryThatIsAFileIsBadInput() throws IOException {
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertBadInput(run("all", "--quick", "--quiet", "--out", file.toString()), "shardwise: ");
  }

  @Test
  void noExperimentIsBadInput() {
    assertBadInput(run(), "Missing required subcommand");
  }
}
