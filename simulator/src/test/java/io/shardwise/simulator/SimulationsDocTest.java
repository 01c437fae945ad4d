package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/simulations.md} quotes the tables that {@code simulate all --out docs/sim} wrote:
 * every table line of every generated {@code docs/sim/*.md} must appear in it, in order, and every
 * chart must be linked.
 */
class SimulationsDocTest {

  private static final Path DOCS = Path.of("..", "docs");

  @Test
  void theDocQuotesEveryGeneratedTableVerbatimAndLinksEveryChart() throws IOException {
    Path doc = DOCS.resolve("simulations.md");
    Path generated = DOCS.resolve("sim");
    assumeTrue(Files.isRegularFile(doc) && Files.isDirectory(generated), "no docs/sim yet");
    String text = Files.readString(doc, StandardCharsets.UTF_8);
    List<Path> blocks;
    try (Stream<Path> files = Files.list(generated)) {
      blocks =
          files.filter(p -> p.toString().endsWith(".md")).sorted().collect(Collectors.toList());
    }
    assertThat(blocks).hasSize(7);
    for (Path block : blocks) {
      String table =
          Files.readString(block, StandardCharsets.UTF_8)
              .lines()
              .filter(line -> line.startsWith("|"))
              .collect(Collectors.joining("\n", "", "\n"));
      assertThat(text).as("table of %s", block.getFileName()).contains(table);
      String name = block.getFileName().toString().replace(".md", "");
      assertThat(text).contains("(sim/" + name + ".png)");
      assertThat(generated.resolve(name + ".png")).exists();
      assertThat(generated.resolve(name + ".csv")).exists();
    }
  }
}
