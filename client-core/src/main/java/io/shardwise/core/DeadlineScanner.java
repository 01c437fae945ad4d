package io.shardwise.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Fails requests that outlive the client's timeout, cheaply: every request of a client has the
 * same timeout, so deadlines arrive in the order requests were sent, and one queue in that order
 * is enough. A request costs one queue node and no wake-up; one thread looks at the head of the
 * queue every few milliseconds and fails what is overdue.
 *
 * <p>The backends time requests out too, and release their resources then; this is what keeps
 * the caller's wait within the timeout plus the scan interval even where a backend's own timer is
 * coarse (Lettuce fires its command timeouts on a timer with 100 ms ticks by default).
 */
final class DeadlineScanner implements AutoCloseable {

  /** How often the queue head is checked. */
  static final long SCAN_NANOS = 5_000_000L;

  private record Pending(long deadline, CompletableFuture<?> future) {}

  private final long timeoutNanos;
  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
  private final Thread scanner;
  private volatile boolean closed;

  DeadlineScanner(long timeoutNanos) {
    this.timeoutNanos = timeoutNanos;
    this.scanner = new Thread(this::scan, "shardwise-timeouts");
    scanner.setDaemon(true);
    scanner.start();
  }

  /** Fails {@code future} with a {@link TimeoutException} if it is not done within the timeout. */
  void watch(CompletableFuture<?> future) {
    if (!future.isDone()) {
      queue.add(new Pending(System.nanoTime() + timeoutNanos, future));
    }
  }

  private void scan() {
    while (!closed) {
      LockSupport.parkNanos(SCAN_NANOS);
      long now = System.nanoTime();
      Pending head;
      // Done requests leave too: replies mostly come in order, so the queue holds about one scan
      // interval of requests instead of a whole timeout's worth of them and of their values.
      while ((head = queue.peek()) != null
          && (head.future().isDone() || head.deadline() - now <= 0)) {
        queue.poll();
        if (!head.future().isDone()) {
          head.future().completeExceptionally(new TimeoutException("no reply within the timeout"));
        }
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    scanner.interrupt();
  }
}
