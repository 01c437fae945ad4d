package io.shardwise.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.shardwise.routers.JumpRouter;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class JumpExperimentTest {

  /** Guava's consistentHash loop, written out again here with a counter, as the reference. */
  private static int referenceLoops(long input, int buckets) {
    long state = input;
    int candidate = 0;
    int loops = 0;
    while (true) {
      loops++;
      state = 2862933555777941757L * state + 1;
      double r = ((int) (state >>> 33) + 1) / 0x1.0p31;
      int next = (int) ((candidate + 1) / r);
      if (next >= 0 && next < buckets) {
        candidate = next;
      } else {
        return loops;
      }
    }
  }

  @Test
  void loopIterationsCountsTheLoopOfTheRealJump() {
    SplittableRandom random = new SplittableRandom(11);
    for (int i = 0; i < 20_000; i++) {
      long key = random.nextLong();
      int buckets = 1 + random.nextInt(i % 2 == 0 ? 100 : 1 << 20);
      assertThat(JumpRouter.loopIterations(key, buckets))
          .as("key %d, %d buckets", key, buckets)
          .isEqualTo(referenceLoops(key, buckets));
    }
    assertThat(JumpRouter.loopIterations(42, 1)).isEqualTo(1);
    assertThatThrownBy(() -> JumpRouter.loopIterations(42, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("buckets must be >= 1 but was 0");
  }

  @Test
  void meanLoopsStayBelowLnNPlusOneAndMatchTheHarmonicNumber() {
    int[] ns = {10, 1000, 100_000};
    Table table =
        JumpExperiment.run(new JumpExperiment.Config(ns, 40_000), TestRuns.context()).table();
    for (int r = 0; r < ns.length; r++) {
      double mean = table.number(r, "mean_loops");
      double error = table.number(r, "std_error");
      assertThat(table.number(r, "ln_n_plus_1")).isEqualTo(Math.log(ns[r]) + 1);
      assertThat(mean).isLessThan(Math.log(ns[r]) + 1 + 4 * error);
      assertThat(Math.abs(mean - Theory.harmonic(ns[r]))).isLessThan(4 * error);
    }
  }
}
