package io.shardwise.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Calls made at once from several threads, for tests of what concurrent callers share. */
public final class Concurrently {

  private Concurrently() {}

  /**
   * Calls {@code call} on {@code callers} threads of their own, all released at once, and returns
   * what each call returned (in the threads' order), once every call has returned.
   *
   * @throws ExecutionException with the first call's failure
   */
  public static <T> List<T> call(int callers, Callable<T> call)
      throws InterruptedException, ExecutionException {
    if (callers < 1) {
      throw new IllegalArgumentException("callers must be >= 1 but was " + callers);
    }
    ExecutorService threads = Executors.newFixedThreadPool(callers);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> calls = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        calls.add(
            threads.submit(
                () -> {
                  start.await();
                  return call.call();
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> f : calls) {
        results.add(f.get());
      }
      return results;
    } finally {
      threads.shutdownNow();
    }
  }
}
