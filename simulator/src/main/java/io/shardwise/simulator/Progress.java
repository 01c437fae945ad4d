package io.shardwise.simulator;

import java.io.PrintWriter;
import java.util.Locale;

/**
 * Progress lines on standard error for long runs: at most one line every two seconds per stage, and
 * one when the stage ends. Thread-safe.
 */
final class Progress {

  private static final long INTERVAL_NANOS = 2_000_000_000L;

  private final PrintWriter err;

  private Progress(PrintWriter err) {
    this.err = err;
  }

  /** Progress written to {@code err}. */
  static Progress to(PrintWriter err) {
    return new Progress(err);
  }

  /** No progress output. */
  static Progress none() {
    return new Progress(null);
  }

  /** Starts a stage of {@code total} steps. */
  Stage start(String label, int total) {
    return new Stage(label, total);
  }

  /** A line of its own, e.g. the total time of a run. */
  synchronized void say(String line) {
    if (err != null) {
      err.println(line);
      err.flush();
    }
  }

  /** One stage: {@link #step()} after each finished step. */
  final class Stage {
    private final String label;
    private final int total;
    private final long start = System.nanoTime();
    private long lastPrint = start;
    private int done;

    private Stage(String label, int total) {
      this.label = label;
      this.total = total;
    }

    /** One more step is done. */
    void step() {
      long now = System.nanoTime();
      String line = null;
      synchronized (this) {
        done++;
        if (done == total) {
          line = String.format(Locale.ROOT, "%s: done in %.1f s", label, seconds(now));
        } else if (now - lastPrint >= INTERVAL_NANOS) {
          lastPrint = now;
          line = String.format(Locale.ROOT, "%s: %d/%d (%.0f s)", label, done, total, seconds(now));
        }
      }
      if (line != null) {
        say(line);
      }
    }

    private double seconds(long now) {
      return (now - start) / 1e9;
    }
  }
}
