package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.routers.MaglevRouter;
import io.shardwise.routing.Node;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MaglevExperimentTest {

  @ParameterizedTest(name = "n={0} M={1}")
  @CsvSource({"3, 7", "10, 65537", "100, 65537", "1000, 65537", "1000, 655373", "7, 101"})
  void everyBackendOwnsFloorOrCeilOfMOverNSlots(int n, int tableSize) {
    List<Node> nodes = Fleet.of("slots", new SplittableRandom(n)).nodes(n);
    int[] counts = new MaglevRouter(nodes, tableSize).slotCounts();
    assertThat(Arrays.stream(counts).sum()).isEqualTo(tableSize);
    assertThat(Arrays.stream(counts).min().orElseThrow()).isGreaterThanOrEqualTo(tableSize / n);
    assertThat(Arrays.stream(counts).max().orElseThrow())
        .isLessThanOrEqualTo((tableSize + n - 1) / n);
  }

  @Test
  void removalChangesAtLeastTheRemovedShareAndALargerTableChangesLess() {
    Table table =
        MaglevExperiment.run(
                new MaglevExperiment.Config(
                    200, new int[] {2003, 200003}, new int[] {1, 10, 50}, 4),
                TestRuns.context())
            .table();
    assertThat(table.rowCount()).isEqualTo(3);
    for (int r = 0; r < table.rowCount(); r++) {
      double k = table.number(r, "k");
      for (String m : new String[] {"m2003", "m200003"}) {
        double optimum = table.number(r, "optimum_" + m);
        assertThat(optimum).isBetween(0.7 * k / 200, 1.3 * k / 200);
        assertThat(table.number(r, "changed_" + m)).isGreaterThan(optimum);
      }
      assertThat(table.number(r, "ratio_m200003")).isLessThan(table.number(r, "ratio_m2003"));
    }
    // The excess over the optimum shrinks, relative to it, as more backends go.
    assertThat(table.number(2, "ratio_m2003")).isLessThan(table.number(0, "ratio_m2003"));
  }

  @Test
  void pickChoosesExactlyKDistinctIndexes() {
    boolean[] picked = MaglevExperiment.pick(50, 17, new SplittableRandom(1));
    int count = 0;
    for (boolean p : picked) {
      count += p ? 1 : 0;
    }
    assertThat(count).isEqualTo(17);
  }
}
