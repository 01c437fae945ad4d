package io.shardwise.benchmarks.e2e;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Runs a {@link Workload} on a {@link Contender} with N threads for a fixed time. Each thread has
 * its own seeded key sequence, so two contenders run with the same seed see the same keys in the
 * same order. Besides rate and latency it measures the JVM's CPU time and allocation over the run,
 * which show where a client spends more than another independently of the run's throughput.
 */
final class LoadRunner {

  /** A thread stops after this many failed steps (a server is down: do not spin). */
  private static final int MAX_ERRORS_PER_THREAD = 1000;

  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private LoadRunner() {}

  static Measurement run(
      Contender contender,
      Workload workload,
      Dataset data,
      KeyStream keys,
      int getPercent,
      int threads,
      Duration duration,
      long seed)
      throws InterruptedException {
    CountDownLatch start = new CountDownLatch(1);
    RunState state = new RunState();
    List<Thread> workers = new ArrayList<>();
    List<ThreadResult> results = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      ThreadResult result = new ThreadResult();
      results.add(result);
      Worker worker = new Worker(data, seed * 1_000_003L + t, Workload.MAX_BATCH, keys, getPercent);
      Thread thread =
          new Thread(
              () -> runThread(contender, workload, worker, start, state, result),
              "e2e-load-" + t);
      thread.setDaemon(true);
      workers.add(thread);
      thread.start();
    }
    Map<Long, Long> allocatedBefore = allocationByThread();
    long serverGetsBefore = contender.serverGets();
    long cpuBefore = OS.getProcessCpuTime();
    long begin = System.nanoTime();
    start.countDown();
    Thread.sleep(duration.toMillis());
    state.stop = true;
    for (Thread thread : workers) {
      thread.join();
    }
    long elapsed = System.nanoTime() - begin;
    long cpu = OS.getProcessCpuTime() - cpuBefore;
    long allocated = allocatedSince(allocatedBefore);
    long serverGets = serverGetsBefore < 0 ? -1 : contender.serverGets() - serverGetsBefore;
    Histogram latency = new Histogram(3);
    long units = 0;
    long errors = 0;
    long wrong = 0;
    long gets = 0;
    for (ThreadResult r : results) {
      gets += r.gets;
      latency.add(r.latency);
      units += r.units;
      errors += r.errors;
      wrong += r.wrongValues;
      allocated += r.allocatedBytes;
    }
    return new Measurement(
        units, elapsed, latency, errors, wrong, state.firstError.get(), cpu, allocated, -1, -1, gets, serverGets);
  }

  private static void runThread(
      Contender contender,
      Workload workload,
      Worker worker,
      CountDownLatch start,
      RunState state,
      ThreadResult result) {
    long allocatedAtStart = THREADS.getCurrentThreadAllocatedBytes();
    try {
      start.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    Histogram latency = result.latency;
    long units = 0;
    long errors = 0;
    while (!state.stop && errors < MAX_ERRORS_PER_THREAD) {
      long t0 = System.nanoTime();
      try {
        units += workload.step(contender, worker);
        latency.recordValue(Math.max(1, System.nanoTime() - t0));
      } catch (Exception e) {
        errors++;
        state.firstError.compareAndSet(null, e);
      }
    }
    result.units = units;
    result.errors = errors;
    result.wrongValues = worker.wrongValues();
    result.gets = worker.gets();
    result.allocatedBytes = THREADS.getCurrentThreadAllocatedBytes() - allocatedAtStart;
  }

  /** Bytes allocated so far by each live thread. */
  private static Map<Long, Long> allocationByThread() {
    long[] ids = THREADS.getAllThreadIds();
    long[] bytes = THREADS.getThreadAllocatedBytes(ids);
    Map<Long, Long> out = new HashMap<>();
    for (int i = 0; i < ids.length; i++) {
      if (bytes[i] >= 0) {
        out.put(ids[i], bytes[i]);
      }
    }
    return out;
  }

  /**
   * Bytes allocated since {@code before} by the threads alive now (threads started meanwhile count
   * in full). The load threads have ended by then and report their own.
   */
  private static long allocatedSince(Map<Long, Long> before) {
    long total = 0;
    for (Map.Entry<Long, Long> now : allocationByThread().entrySet()) {
      total += now.getValue() - before.getOrDefault(now.getKey(), 0L);
    }
    return total;
  }

  private static final class RunState {
    volatile boolean stop;
    final AtomicReference<Throwable> firstError = new AtomicReference<>();
  }

  private static final class ThreadResult {
    final Histogram latency = new Histogram(3);
    long units;
    long errors;
    long wrongValues;
    long gets;
    long allocatedBytes;
  }
}
