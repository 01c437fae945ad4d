package io.shardwise.core.internal.near;

import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Refresh-ahead of a {@link NearCache}: an entry served before and served again in the second half
 * of its life is read again from its server in the background, while it is still served, so that a
 * key read often never waits for its server when its entry reaches the staleness bound (as
 * Caffeine's {@code refreshAfterWrite}, which refreshes one key at a time; here the keys due are
 * gathered for up to {@link #GATHER_NANOS} and read in one getMulti, one request per server). The
 * value read replaces the entry through the same ticket as any read, so a write or an invalidation
 * that comes meanwhile wins. An entry not served twice, the second time in the second half of its
 * life, expires as before: on a uniform stream most entries are served once at most, and
 * refreshing them would cost the servers reads that nobody waits for.
 */
final class RefreshAhead {

  /** The most keys waiting for a refresh; beyond, an entry due for one just lives out its bound. */
  static final int MAX_WAITING = 1 << 16;

  /** The most keys one refresh reads in one getMulti. */
  static final int BATCH = 4096;

  /** The longest a key due for a refresh waits for others to be read with it. */
  static final long GATHER_NANOS = 10_000_000L;

  /** Keys due for a refresh, read together by {@link #reader}. */
  private final ConcurrentLinkedQueue<String> due = new ConcurrentLinkedQueue<>();
  private final AtomicInteger dueCount = new AtomicInteger();
  private final AtomicBoolean gathering = new AtomicBoolean();
  /** Where refreshes are gathered and sent. */
  private final ScheduledExecutorService thread;
  /** Reads the keys, offering each value found and dropping each key found gone. */
  private final Consumer<Set<String>> reader;

  RefreshAhead(ScheduledExecutorService thread, Consumer<Set<String>> reader) {
    this.thread = thread;
    this.reader = reader;
  }

  /**
   * Queues {@code key} for a refresh, gathered for at most a fifth of {@code refreshAfterNanos}
   * with others; false if too many wait already (the entry lives out its bound, and the next read
   * after it reads the server).
   */
  boolean ask(String key, long refreshAfterNanos) {
    if (dueCount.get() >= MAX_WAITING) {
      return false;
    }
    dueCount.incrementAndGet();
    due.add(key);
    if (gathering.compareAndSet(false, true)) {
      long wait = Math.min(GATHER_NANOS, refreshAfterNanos / 5);
      try {
        thread.schedule(this::send, wait, TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException closed) {
        due.clear();
        dueCount.set(0);
      }
    }
    return true;
  }

  /** Reads the keys due for a refresh, in getMultis of at most {@link #BATCH} keys. */
  private void send() {
    gathering.set(false); // a key queued from now on schedules the next gathering
    Set<String> batch = new LinkedHashSet<>();
    for (String key; (key = due.poll()) != null; ) {
      dueCount.decrementAndGet();
      batch.add(key);
      if (batch.size() == BATCH) {
        read(batch);
        batch = new LinkedHashSet<>();
      }
    }
    if (!batch.isEmpty()) {
      read(batch);
    }
  }

  private void read(Set<String> keys) {
    try {
      reader.accept(keys);
    } catch (RuntimeException e) {
      // The client closed, or could not send: the entries live out their bound.
    }
  }
}
