package io.shardwise.simulator;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import org.jfree.chart.JFreeChart;

/**
 * What an experiment produced: a Markdown block (title, setup, table, notes), the table as CSV, and
 * a chart made on demand.
 *
 * @param name the experiment's command name, also the base name of its files in {@code all}
 * @param title one line
 * @param setup paragraphs on what was run: sizes, seed, how keys were drawn
 * @param table the results
 * @param notes paragraphs printed under the table
 * @param chart builds the chart
 */
record Report(
    String name,
    String title,
    List<String> setup,
    Table table,
    List<String> notes,
    Supplier<JFreeChart> chart) {

  /** The Markdown block: a level-3 heading, the setup, the table and the notes. */
  String markdown() {
    StringBuilder sb = new StringBuilder();
    sb.append("### ").append(title).append("\n\n");
    for (String paragraph : setup) {
      sb.append(paragraph).append("\n\n");
    }
    sb.append(table.markdown());
    for (String paragraph : notes) {
      sb.append('\n').append(paragraph).append('\n');
    }
    return sb.toString();
  }

  void writeMarkdown(Path file) throws IOException {
    Files.writeString(file, markdown(), StandardCharsets.UTF_8);
  }

  void writeCsv(Path file) throws IOException {
    try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      table.writeCsv(out);
    }
  }

  void writePng(Path file) throws IOException {
    Charts.writePng(chart.get(), file);
  }
}
