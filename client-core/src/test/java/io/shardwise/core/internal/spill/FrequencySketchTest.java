package io.shardwise.core.internal.spill;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The sketch's counts, its halving, and the raise the near cache uses for keys it served. */
class FrequencySketchTest {

  private static long hash(int key) {
    return key * 0x9E3779B97F4A7C15L;
  }

  @Test
  void countsReadsUpToFifteen() {
    FrequencySketch sketch = new FrequencySketch(1024);
    for (int i = 1; i <= 20; i++) {
      assertThat(sketch.increment(hash(7))).isEqualTo(Math.min(i, 15));
    }
    assertThat(sketch.frequency(hash(7))).isEqualTo(15);
    assertThat(sketch.frequency(hash(8))).isZero();
  }

  @Test
  void aSamplingPeriodHalvesEveryCount() {
    FrequencySketch sketch = new FrequencySketch(16);
    for (int i = 0; i < 8; i++) {
      sketch.increment(hash(1));
    }
    for (int i = 0; i < 10 * 16 - 8; i++) {
      sketch.increment(hash(1_000 + (i & 3)));
    }
    assertThat(sketch.frequency(hash(1))).isEqualTo(4);
  }

  @Test
  void aRaiseLiftsTheCountsWithoutLoweringThemOrCountingARead() {
    FrequencySketch sketch = new FrequencySketch(16);
    sketch.raise(hash(1), 7);
    assertThat(sketch.frequency(hash(1))).isEqualTo(7);
    assertThat(sketch.increment(hash(1))).isEqualTo(8);
    sketch.raise(hash(1), 3);
    assertThat(sketch.frequency(hash(1))).as("not lowered").isEqualTo(8);
    sketch.raise(hash(1), 40);
    assertThat(sketch.frequency(hash(1))).as("at most 15").isEqualTo(15);
    // Raises are not reads: the period still needs 10 x 16 reads, of which one was made.
    for (int i = 0; i < 10 * 16 - 2; i++) {
      sketch.increment(hash(1_000 + (i & 3)));
    }
    assertThat(sketch.frequency(hash(1))).as("not yet halved").isEqualTo(15);
    sketch.increment(hash(1_000));
    assertThat(sketch.frequency(hash(1))).as("halved").isEqualTo(7);
  }
}
