package io.shardwise.simulator;

/** Shared settings of the tests: a fixed seed, both cores, no progress output. */
final class TestRuns {

  private TestRuns() {}

  static RunContext context(long seed) {
    return new RunContext(seed, 2, Progress.none());
  }

  static RunContext context() {
    return context(7);
  }
}
