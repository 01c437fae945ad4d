package io.shardwise.it;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How late this process runs, measured from inside it: a thread asks to wake every millisecond and
 * records how much later than that it woke, as jHiccup does. On a loaded machine every thread of
 * the process waits for a core about as long, so a test that bounds a wall time widens its bound by
 * the largest delay seen in its window instead of guessing a margin: the bound then holds on an
 * idle machine and on one at load average 8 alike, and still fails when the code itself is slow.
 */
public final class HiccupMeter implements AutoCloseable {

  private static final long TICK_NANOS = 1_000_000L;

  private final AtomicLong largest = new AtomicLong();
  private final Thread thread;
  private volatile boolean closed;

  private HiccupMeter() {
    thread = new Thread(this::run, "hiccup-meter");
    thread.setDaemon(true);
  }

  /** A meter that measures from now on. */
  public static HiccupMeter start() {
    HiccupMeter meter = new HiccupMeter();
    meter.thread.start();
    return meter;
  }

  private void run() {
    long last = System.nanoTime();
    while (!closed) {
      LockSupport.parkNanos(TICK_NANOS);
      long now = System.nanoTime();
      largest.accumulateAndGet(now - last - TICK_NANOS, Math::max);
      last = now;
    }
  }

  /** The largest delay of a wake-up since the start or the last {@link #reset()}, in nanoseconds. */
  public long largestNanos() {
    return largest.get();
  }

  /** Starts a new window. */
  public void reset() {
    largest.set(0);
  }

  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(thread);
  }
}
