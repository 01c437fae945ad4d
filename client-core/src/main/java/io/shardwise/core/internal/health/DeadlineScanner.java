package io.shardwise.core.internal.health;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Fails requests that outlive the client's timeout, cheaply: every request of a client has the
 * same timeout, so deadlines arrive in the order requests were sent, and one queue in that order
 * is enough. A request costs one queue node and no wake-up; one thread looks at the head of the
 * queue every few milliseconds and fails what is overdue.
 *
 * <p>The backends time requests out too, and release their resources then; this is what keeps
 * the caller's wait within the timeout plus the scan interval even where a backend's own timer is
 * coarse (Lettuce fires its command timeouts on a timer with 100 ms ticks by default).
 *
 * <p><b>Client stalls.</b> The scanning thread also notices when this process stops running: a
 * garbage-collection pause, a starved CPU, a process stopped and continued. It wakes every {@link
 * #SCAN_NANOS}; a wake-up later than {@link #STALL_NANOS} past that is a stall of the client, not
 * of a server. Time spent stalled does not count against a request's timeout (its deadline moves
 * by the stall, so that replies that arrived meanwhile are read before anything is declared
 * late), and {@link #stalledSince(long)} tells the failure detector that a timeout of a request
 * that saw a stall says nothing about its server (jHiccup measures pauses the same way; Cassandra's
 * failure detector likewise ignores intervals in which the local process was paused).
 */
public final class DeadlineScanner implements AutoCloseable {

  /** How often the queue head is checked. */
  static final long SCAN_NANOS = 5_000_000L;

  /** A wake-up this much later than planned counts as a stall of the client. */
  static final long STALL_NANOS = 50_000_000L;

  private record Pending(long deadline, long stalledBefore, CompletableFuture<?> future) {}

  private final long timeoutNanos;
  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();
  private final Thread scanner;
  private final LongConsumer onStall;
  private final LongSupplier clock;
  /** Total time this process was seen stalled. */
  private volatile long stalledNanos;
  /** When the last stall ended ({@code System.nanoTime()}); meaningful once {@link #stalls} > 0. */
  private volatile long lastStallEndNanos;

  private volatile long stalls;
  /** Total lateness of the scanner's wake-ups, however small each was (see {@link #lagNanos()}). */
  private volatile long lagNanos;
  /** When the scanner last looked at the clock. */
  private volatile long lastTickNanos;
  private volatile boolean closed;

  /**
   * @param onStall told the length of every stall seen, on the scanning thread
   */
  public DeadlineScanner(long timeoutNanos, LongConsumer onStall) {
    this(timeoutNanos, onStall, System::nanoTime);
  }

  /** With the clock given, for tests. */
  public DeadlineScanner(long timeoutNanos, LongConsumer onStall, LongSupplier clock) {
    this.timeoutNanos = timeoutNanos;
    this.onStall = onStall;
    this.clock = clock;
    this.lastTickNanos = clock.getAsLong();
    this.scanner = new Thread(this::scan, "shardwise-timeouts");
    scanner.setDaemon(true);
    scanner.start();
  }

  /** Fails {@code future} with a {@link TimeoutException} if it is not done within the timeout. */
  public void watch(CompletableFuture<?> future) {
    if (!future.isDone()) {
      queue.add(new Pending(clock.getAsLong() + timeoutNanos, stalledNanos, future));
    }
  }

  /**
   * Whether this process stalled (see the class comment) after {@code startNanos}, or seems to be
   * stalled now (the scanner is late: after a pause other threads may run before it does): a
   * request sent then may have timed out because of the client, not of its server.
   */
  boolean stalledSince(long startNanos) {
    // The tick first: if it is recent, the stall it ended (recorded before it) is visible below.
    return clock.getAsLong() - lastTickNanos > SCAN_NANOS + STALL_NANOS
        || stalls > 0 && lastStallEndNanos - startNanos > 0;
  }

  /**
   * Whether this process seems stalled now: the scanner is late, as it is just after a pause,
   * before it has run and counted the pause. When this is false, {@link #stalledNanos()} read
   * after it includes every stall up to the scanner's last tick.
   */
  public boolean seemsStalledNow() {
    return clock.getAsLong() - lastTickNanos > SCAN_NANOS + STALL_NANOS;
  }

  /** The request timeout this scanner enforces. */
  public long timeoutNanos() {
    return timeoutNanos;
  }

  /** Total time this process was seen stalled so far. */
  public long stalledNanos() {
    return stalledNanos;
  }

  /**
   * Total time the scanning thread woke later than planned so far, every wake-up counted however
   * little it was late (a {@link #stalledNanos() stall} counts only wake-ups {@link #STALL_NANOS}
   * late): on a starved machine no single wake-up may be that late, yet the process runs only a
   * fraction of the time.
   */
  public long lagNanos() {
    return lagNanos;
  }

  /**
   * Whether this process lagged for at least half the timeout since {@link #lagNanos()} read
   * {@code lagAtStart}, the scanner's lateness now (it may be late itself) included: a request
   * that timed out meanwhile waited mostly on this process, not on its server.
   */
  public boolean laggedHalfATimeoutSince(long lagAtStart) {
    // The lag before the tick: a tick between the two reads is then left out, never counted twice.
    long lag = lagNanos;
    long pending = clock.getAsLong() - lastTickNanos - SCAN_NANOS;
    return lag + Math.max(0, pending) - lagAtStart >= timeoutNanos / 2;
  }

  /** Stalls seen so far. */
  long stalls() {
    return stalls;
  }

  private void scan() {
    // From the constructor's reading: a thread that starts late (a starved CPU) has seen a stall
    // too, and a test that moves the clock before this thread runs sees it counted.
    long last = lastTickNanos;
    while (!closed) {
      LockSupport.parkNanos(SCAN_NANOS);
      long now = clock.getAsLong();
      long late = now - last - SCAN_NANOS;
      last = now;
      if (late > 0) {
        lagNanos += late;
      }
      if (late > STALL_NANOS) {
        // The stall is recorded before the tick: a thread that sees this tick (seemsStalledNow()
        // false) then sees the stall too, so it never takes a stalled wait for a late reply.
        stalledNanos += late;
        lastStallEndNanos = now;
        stalls++;
        lastTickNanos = now;
        try {
          onStall.accept(late);
        } catch (RuntimeException e) {
          // a listener's problem must not stop the timeouts
        }
        // Replies that arrived during the stall are still being read: give the I/O threads a scan.
        continue;
      }
      lastTickNanos = now;
      Pending head;
      // Done requests leave too: replies mostly come in order, so the queue holds about one scan
      // interval of requests instead of a whole timeout's worth of them and of their values.
      while ((head = queue.peek()) != null
          && (head.future().isDone()
              || head.deadline() + (stalledNanos - head.stalledBefore()) - now <= 0)) {
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
