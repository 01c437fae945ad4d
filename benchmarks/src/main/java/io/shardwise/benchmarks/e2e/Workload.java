package io.shardwise.benchmarks.e2e;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

/**
 * What one load thread does in one step, identically for every {@link Contender}. A step is timed
 * as a whole: its latency is one command's (sync), one batch's (async batch) or one multi-get's.
 * Every value read is compared with the value the data set holds for its key.
 */
enum Workload {

  /**
   * One blocking call: a get or a set of a random key, alternating, or a get with the scenario's
   * probability (the near-cache scenarios: {@code --get-percent}).
   */
  SYNC_GET_SET("ops", "command") {
    @Override
    int step(Contender contender, Worker worker) throws Exception {
      int key = worker.nextKey();
      Dataset data = worker.data();
      if (worker.nextIsGet()) {
        worker.check(key, contender.get(data.key(key)));
      } else {
        contender.set(data.key(key), data.value(key));
      }
      return 1;
    }
  },

  /** One blocking set of a random key. */
  SYNC_SET("ops", "set") {
    @Override
    int step(Contender contender, Worker worker) throws Exception {
      int key = worker.nextKey();
      contender.set(worker.data().key(key), worker.data().value(key));
      return 1;
    }
  },

  /** One blocking get of a random key. */
  SYNC_GET("ops", "get") {
    @Override
    int step(Contender contender, Worker worker) throws Exception {
      int key = worker.nextKey();
      worker.check(key, contender.get(worker.data().key(key)));
      return 1;
    }
  },

  /** {@value #BATCH} async commands (gets and sets of random keys, alternating), then a wait for all. */
  ASYNC_BATCH("ops", "batch of " + Workload.BATCH) {
    @Override
    int step(Contender contender, Worker worker) throws Exception {
      Dataset data = worker.data();
      Future<?>[] pending = worker.pending;
      int[] keys = worker.pendingKeys;
      for (int j = 0; j < BATCH; j++) {
        int key = worker.nextKey();
        if (worker.nextIsGet()) {
          keys[j] = key;
          pending[j] = contender.getAsync(data.key(key));
        } else {
          keys[j] = ~key;
          pending[j] = contender.setAsync(data.key(key), data.value(key));
        }
      }
      Exception first = null;
      for (int j = 0; j < BATCH; j++) {
        try {
          Object reply = pending[j].get();
          if (keys[j] >= 0) {
            worker.check(keys[j], reply);
          } else if (Boolean.FALSE.equals(reply)) {
            first = first != null ? first : new IllegalStateException("a set was not stored");
          }
        } catch (ExecutionException e) {
          first = first != null ? first : e;
        }
        pending[j] = null;
      }
      if (first != null) {
        throw first;
      }
      return BATCH;
    }
  },

  /** One blocking multi-get of {@value #BATCH} distinct random keys. */
  GET_MULTI("keys", "getMulti of " + Workload.BATCH) {
    @Override
    int step(Contender contender, Worker worker) throws Exception {
      return multiGet(contender, worker, BATCH);
    }
  },

  /** One blocking multi-get of {@value #LARGE_BATCH} distinct random keys. */
  GET_MULTI_LARGE("keys", "getMulti of " + Workload.LARGE_BATCH) {
    @Override
    int step(Contender contender, Worker worker) throws Exception {
      return multiGet(contender, worker, LARGE_BATCH);
    }
  };

  /** Commands per async batch, keys per multi-get. */
  static final int BATCH = 100;

  /** Keys per multi-get over a large fleet. */
  static final int LARGE_BATCH = 1_000;

  /** The most keys one step handles (what a {@link Worker}'s arrays hold). */
  static final int MAX_BATCH = LARGE_BATCH;

  private static int multiGet(Contender contender, Worker worker, int size) throws Exception {
    List<String> keys = worker.distinctKeys(size);
    Map<String, ?> found = contender.getMulti(keys);
    if (found.size() != keys.size()) {
      worker.wrong();
    }
    int[] indices = worker.pendingKeys;
    for (int j = 0; j < size; j++) {
      worker.check(indices[j], found.get(keys.get(j)));
    }
    return size;
  }

  private final String unit;
  private final String timedStep;

  Workload(String unit, String timedStep) {
    this.unit = unit;
    this.timedStep = timedStep;
  }

  /** What the rate counts: {@code ops} or {@code keys}. */
  String unit() {
    return unit;
  }

  /** What one latency sample times. */
  String timedStep() {
    return timedStep;
  }

  /** Runs one step and returns the number of units (commands or keys) it completed. */
  abstract int step(Contender contender, Worker worker) throws Exception;
}
