package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TableTest {

  private static Table sample() {
    return new Table()
        .text("router", "router")
        .integer("n", "n")
        .decimal("peak/mean", "peak_over_mean", 3)
        .percent("moved", "moved", 2)
        .row("ring, V=160", 100, 1.23456, 0.0123456)
        .row("say \"hi\" | x", 5, null, 1.0);
  }

  @Test
  void markdownRoundsNumbersAndRightAlignsThem() {
    assertThat(sample().markdown())
        .isEqualTo(
            "| router | n | peak/mean | moved |\n"
                + "|---|--:|--:|--:|\n"
                + "| ring, V=160 | 100 | 1.235 | 1.23% |\n"
                + "| say \"hi\" \\| x | 5 | - | 100.00% |\n");
  }

  @Test
  void csvKeepsFullPrecisionAndQuotesWhereNeeded() {
    assertThat(sample().csv())
        .isEqualTo(
            "router,n,peak_over_mean,moved\n"
                + "\"ring, V=160\",100,1.23456,0.0123456\n"
                + "\"say \"\"hi\"\" | x\",5,,1.0\n");
  }

  @Test
  void rowsMustFitTheColumns() {
    assertThatThrownBy(() -> sample().row("x", 1)).hasMessage("a row needs 4 values but got 2");
    assertThatThrownBy(() -> sample().decimal("late", "late", 1))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void csvFieldQuotesCommasQuotesAndLineBreaksOnly() {
    assertThat(Table.csvField("plain")).isEqualTo("plain");
    assertThat(Table.csvField("a,b")).isEqualTo("\"a,b\"");
    assertThat(Table.csvField("a\nb")).isEqualTo("\"a\nb\"");
    assertThat(Table.csvField("a\"b")).isEqualTo("\"a\"\"b\"");
  }
}
