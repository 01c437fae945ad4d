package io.shardwise.simulator;

import io.shardwise.routing.Murmur3;
import java.util.SplittableRandom;

/**
 * Random streams derived from the run's {@code --seed}: one independent stream per experiment,
 * configuration and trial, so that results do not depend on the order in which (or the threads on
 * which) the trials run.
 */
final class Seeds {

  private static final long GOLDEN = 0x9E3779B97F4A7C15L;

  private Seeds() {}

  /** A 64-bit value that depends on every part; different part lists give unrelated values. */
  static long derive(long seed, long... parts) {
    long h = Murmur3.fmix64(seed ^ GOLDEN);
    for (long part : parts) {
      h = Murmur3.fmix64(h + GOLDEN * (part + 1) + 0x632BE59BD9B4E019L);
    }
    return h;
  }

  /** A random stream for {@code parts} under {@code seed}. */
  static SplittableRandom random(long seed, long... parts) {
    return new SplittableRandom(derive(seed, parts));
  }
}
