package io.shardwise.core.internal.spill;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How often keys were read recently: a count-min sketch of 4-bit counters, 4 per key, halved
 * after every sampling period of {@code 10 x capacity} reads so that old popularity fades. The
 * design of TinyLFU (Einziger, Friedman and Manes, "TinyLFU: A Highly Efficient Cache Admission
 * Policy", ACM ToS 2017), as Caffeine's {@code FrequencySketch} uses it; written here from the
 * paper. Updates are lock free (compare-and-set on the packed counters); estimates are
 * approximate and never too low, except right after a halving.
 */
public final class FrequencySketch {

  private static final long RESET_MASK = 0x7777777777777777L;
  private static final long[] SEEDS = {
    0xc3a5c85c97cb3127L, 0xb492b66fbe98f273L, 0x9ae16a3b2f90404fL, 0xcbf29ce484222325L
  };

  private final AtomicLongArray table;
  private final int mask;
  private final int sampleSize;
  private final AtomicInteger size = new AtomicInteger();

  public FrequencySketch(int capacity) {
    int length = Integer.highestOneBit(Math.max(16, capacity) - 1) << 1;
    this.table = new AtomicLongArray(length);
    this.mask = length - 1;
    this.sampleSize = 10 * Math.max(16, capacity);
  }

  /** Counts one read of the key with this hash; returns its estimate after the count. */
  public int increment(long keyHash) {
    int estimate = Integer.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      estimate = Math.min(estimate, incrementAt(i, keyHash));
    }
    if (size.incrementAndGet() >= sampleSize) {
      reset();
    }
    return estimate;
  }

  /** The estimated reads of the key with this hash in the recent periods. */
  public int frequency(long keyHash) {
    int estimate = Integer.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      int index = index(i, keyHash);
      int shift = shift(i, keyHash);
      estimate = Math.min(estimate, (int) ((table.get(index) >>> shift) & 0xF));
    }
    return estimate;
  }

  private int incrementAt(int i, long keyHash) {
    int index = index(i, keyHash);
    int shift = shift(i, keyHash);
    while (true) {
      long word = table.get(index);
      int count = (int) ((word >>> shift) & 0xF);
      if (count == 15) {
        return 15;
      }
      if (table.compareAndSet(index, word, word + (1L << shift))) {
        return count + 1;
      }
    }
  }

  /**
   * Raises the counters of the key with this hash to at least {@code count} (at most 15), without
   * counting a read: for a key known to be hot whose reads the sketch did not see (the near cache
   * served them), so that it does not have to earn its standing again from a decayed count.
   */
  public void raise(long keyHash, int count) {
    int target = Math.min(15, count);
    for (int i = 0; i < 4; i++) {
      int index = index(i, keyHash);
      int shift = shift(i, keyHash);
      while (true) {
        long word = table.get(index);
        int current = (int) ((word >>> shift) & 0xF);
        if (current >= target || table.compareAndSet(index, word, word + ((long) (target - current) << shift))) {
          break;
        }
      }
    }
  }

  /** Which long holds counter {@code i} of the key. */
  private int index(int i, long keyHash) {
    long h = (keyHash + SEEDS[i]) * SEEDS[i];
    h ^= h >>> 32;
    return (int) h & mask;
  }

  /** Which of the 16 counters in that long: a different one per row. */
  private static int shift(int i, long keyHash) {
    int nibble = (int) ((keyHash >>> (i * 8)) & 3) + (i << 2);
    return nibble << 2;
  }

  /** Halves every counter: a period ended. */
  private void reset() {
    synchronized (this) {
      if (size.get() < sampleSize) {
        return;
      }
      for (int k = 0; k < table.length(); k++) {
        long word;
        do {
          word = table.get(k);
        } while (!table.compareAndSet(k, word, (word >>> 1) & RESET_MASK));
      }
      size.set(0);
    }
  }
}
