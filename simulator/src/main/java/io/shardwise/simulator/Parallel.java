package io.shardwise.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/** Runs independent tasks on a few threads and returns their results in task order. */
final class Parallel {

  private Parallel() {}

  /**
   * Results of {@code task.apply(0 .. count-1)}, in that order, computed on up to {@code threads}
   * threads. Each task must depend only on its index, so the results do not depend on the thread
   * count. {@code stage} is told of each finished task.
   */
  static <T> List<T> map(int threads, int count, IntFunction<T> task, Progress.Stage stage) {
    List<T> results = new ArrayList<>(count);
    if (threads <= 1 || count <= 1) {
      for (int i = 0; i < count; i++) {
        results.add(task.apply(i));
        stage.step();
      }
      return results;
    }
    ExecutorService pool =
        Executors.newFixedThreadPool(
            Math.min(threads, count),
            r -> {
              Thread t = new Thread(r, "simulator");
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<T>> futures = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int index = i;
        futures.add(
            pool.submit(
                () -> {
                  T result = task.apply(index);
                  stage.step();
                  return result;
                }));
      }
      for (Future<T> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException(cause);
    } finally {
      pool.shutdownNow();
    }
  }
}
