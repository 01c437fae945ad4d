package io.shardwise.simulator;

import java.util.List;
import java.util.function.IntFunction;

/** What every experiment is run with: the seed, the number of threads, where progress goes. */
final class RunContext {

  private final long seed;
  private final int threads;
  private final Progress progress;

  RunContext(long seed, int threads, Progress progress) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1 but was " + threads);
    }
    this.seed = seed;
    this.threads = threads;
    this.progress = progress;
  }

  long seed() {
    return seed;
  }

  int threads() {
    return threads;
  }

  Progress progress() {
    return progress;
  }

  /** {@code task(0 .. count-1)} in parallel, in task order, with progress under {@code label}. */
  <T> List<T> parallel(String label, int count, IntFunction<T> task) {
    return Parallel.map(threads, count, task, progress.start(label, count));
  }
}
