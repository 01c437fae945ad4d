package io.shardwise.core.internal.spill;

import io.shardwise.bounded.BoundedLoadSelector;
import io.shardwise.bounded.Selection;
import io.shardwise.client.CachedValue;
import io.shardwise.client.LoadReport;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.internal.health.Failback;
import io.shardwise.core.internal.health.Member;
import io.shardwise.core.internal.health.Sender;
import io.shardwise.routing.Router;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.BiPredicate;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * Bounded-load reads: the load window, the selector, the hot-key sketch, and the registry of keys
 * that may have spilled copies, with the protocol that keeps those copies from outliving a write.
 *
 * <p>Copies. A spilled read that misses on its node reads the key's primary and leaves a copy
 * there ({@code add}, with the spill TTL). A write (or delete, incr, touch) of a key in the
 * registry, once done on the primary, bumps the key's generation, waits for the copy creations
 * already under way, and deletes the copies. A creation notes the generation before it reads
 * the primary, registers itself, and writes its copy only if the generation has not moved; if it
 * moved by the time the copy is written, it deletes the copy before it finishes. So when a write
 * completes, no copy older than it remains, and a read that starts afterwards cannot see one.
 */
public final class BoundedReads {

  private static final int MAX_HOT_KEYS_SHOWN = 32;
  private static final int REPLACE_ONE_IN = 64;

  public final BoundedOptions options;
  public final LoadWindow loads;
  private final BoundedLoadSelector selector;
  private final FrequencySketch sketch;
  private final ThreadLocal<Selection> selections = ThreadLocal.withInitial(Selection::new);
  private final ConcurrentHashMap<String, Spill> spilled;
  /** Keys seen hot, with their hashes, for the report (a few dozen at most). */
  private final ConcurrentHashMap<String, Long> hotKeys;
  private final AtomicLongArray spilledFrom;
  private final AtomicLongArray spilledTo;
  private final LongSupplier nanoClock;
  private final long spillTtlNanos;
  /** Marks a copy whose delete failed, so that it is not read and is deleted later. */
  private final Failback failback;
  /**
   * False once bounded loads were turned off while the client serves: reads no longer spill or
   * leave copies, but writes still delete the copies registered before, until they have expired.
   */
  private final boolean spills;

  /** A key that may have copies on other nodes. */
  public static final class Spill {
    public final AtomicLong generation = new AtomicLong();
    public final Set<Member> copies = ConcurrentHashMap.newKeySet();
    public final Set<CompletableFuture<Void>> creating = ConcurrentHashMap.newKeySet();
    /**
     * When the last of its copies has expired at the latest: the latest copy's time plus the spill
     * TTL it was written with (which a change of the options may have changed since).
     */
    private final AtomicLong expiresNanos = new AtomicLong();
    /** Whether a copy was ever registered. */
    private volatile boolean copied;

    void copied(long atNanos, long ttlNanos) {
      long until = atNanos + ttlNanos;
      expiresNanos.accumulateAndGet(until, (a, b) -> b - a > 0 ? b : a);
      copied = true;
    }

    /** Whether every copy it registered has expired by {@code nowNanos} and none is being made. */
    boolean expired(long nowNanos) {
      return creating.isEmpty() && (!copied || nowNanos - expiresNanos.get() > 0);
    }
  }

  public BoundedReads(
      Router router, BoundedOptions options, LongSupplier nanoClock, IntPredicate available, Failback failback) {
    this(null, router, new int[0], available, options, nanoClock, failback);
  }

  /**
   * The bounded-load state for a placement and options; for a new placement or new options,
   * carried over from {@code from} (null for the first state): node {@code i} of {@code router}
   * had index {@code previous[i]} there (-1 for a new node). The copy registry is always shared, so
   * that writes still delete the copies made under that state. Loads and spill counts of the nodes
   * that stay carry over, unless the window changes; the hot-key sketch is shared unless the scope
   * or its size changes. {@code options} off makes a state that spills no read ({@link #spills()})
   * and only deletes the registered copies.
   */
  private BoundedReads(
      BoundedReads from, Router router, int[] previous, IntPredicate available, BoundedOptions options, LongSupplier nanoClock, Failback failback) {
    this.options = options;
    this.spills = from == null || options.enabled();
    this.failback = failback;
    this.nanoClock = nanoClock;
    boolean sameWindow =
        from != null && options.window().equals(from.options.window()) && options.resolution().equals(from.options.resolution());
    this.loads =
        sameWindow
            ? from.loads.remapped(previous, options, available)
            : new LoadWindow(router.size(), options, nanoClock, available);
    this.selector = BoundedLoadSelector.of(router, options.epsilon(), options.probeLimit());
    boolean sameSketch =
        from != null && options.scope() == from.options.scope() && options.sketchCapacity() == from.options.sketchCapacity();
    this.sketch =
        sameSketch
            ? from.sketch
            : options.scope() == BoundedOptions.Scope.HOT ? new FrequencySketch(options.sketchCapacity()) : null;
    this.spilled = from == null ? new ConcurrentHashMap<>() : from.spilled;
    this.hotKeys = sameSketch ? from.hotKeys : new ConcurrentHashMap<>();
    this.spilledFrom = new AtomicLongArray(router.size());
    this.spilledTo = new AtomicLongArray(router.size());
    for (int i = 0; i < previous.length; i++) {
      if (previous[i] >= 0) {
        spilledFrom.set(i, from.spilledFrom.get(previous[i]));
        spilledTo.set(i, from.spilledTo.get(previous[i]));
      }
    }
    this.spillTtlNanos = options.spillTtl().toNanos();
  }

  /**
   * This state for a new router and new options, the copy registry carried over; with {@code
   * options} off, the state that only deletes the copies registered so far (see {@link #spills()}).
   */
  public BoundedReads remapped(Router router, int[] previous, IntPredicate available, BoundedOptions options) {
    return new BoundedReads(this, router, previous, available, options, nanoClock, failback);
  }

  /**
   * Whether reads spill: false for the state left by turning bounded loads off while the client
   * serves, which keeps the registry of the copies spilled reads made before, so that writes still
   * delete them, until every one has expired ({@link #copiesExpired(long)}).
   */
  public boolean spills() {
    return spills;
  }

  /**
   * Whether no registered copy can still exist: each was written with a spill TTL that has passed
   * since, with {@code marginNanos} more (a copy's TTL starts when its server gets it), and no copy
   * is being made. Forgets the keys whose copies have expired so.
   */
  public boolean copiesExpired(long marginNanos) {
    forgetExpired(nanoClock.getAsLong() - marginNanos);
    return spilled.isEmpty();
  }

  /**
   * Counts a read of the key in the hot-key sketch and tells whether bounded loads apply to it:
   * always with scope {@code all}, once it is hot with scope {@code hot}.
   */
  public boolean subject(String key, long keyHash) {
    if (!spills) {
      return false;
    }
    if (sketch == null) {
      return true;
    }
    int frequency = sketch.increment(keyHash);
    if (frequency < options.hotThreshold()) {
      return false;
    }
    if (!hotKeys.containsKey(key)) {
      if (hotKeys.size() < MAX_HOT_KEYS_SHOWN) {
        hotKeys.put(key, keyHash);
      } else if (ThreadLocalRandom.current().nextInt(REPLACE_ONE_IN) == 0) {
        replaceColdest(key, keyHash, frequency);
      }
    }
    return true;
  }

  /**
   * For a key stored on several replicas that are all at or over their caps: the node its read
   * spills to, the selector's choice along the key's preference order when that is not one of
   * its replicas, else -1 (the least loaded node probed was a replica: no spill). Counts the
   * spill against {@code from}, the replica the read would have taken.
   *
   * @param replicas the key's replicas in their first {@code count} entries
   */
  public int spillPastReplicas(long keyHash, int[] replicas, int count, int from) {
    if (!spills) {
      return -1;
    }
    Selection s = selections.get();
    int node = selector.select(keyHash, loads, s);
    if (node < 0) {
      return -1;
    }
    for (int i = 0; i < count; i++) {
      if (replicas[i] == node) {
        return -1;
      }
    }
    spilledFrom.incrementAndGet(from);
    spilledTo.incrementAndGet(node);
    return node;
  }

  /** Whether {@code node} may take one more request: its load in the window is below its cap. */
  public boolean underCap(int node, long total) {
    return loads.load(node) < selector.cap(node, total);
  }

  /**
   * Puts {@code key} in the full hot-key list in place of its coldest key, if that one is now
   * less frequent. Sampled (one in {@value #REPLACE_ONE_IN} reads of a hot key that is not listed)
   * because it scans the list: a key read more often gets more tries, so the list tends to the
   * hottest keys at a cost of well under a nanosecond per read on average.
   */
  private void replaceColdest(String key, long keyHash, int frequency) {
    String coldest = null;
    long coldestHash = 0;
    int coldestFrequency = Integer.MAX_VALUE;
    for (Map.Entry<String, Long> e : hotKeys.entrySet()) {
      int f = sketch.frequency(e.getValue());
      if (f < coldestFrequency) {
        coldest = e.getKey();
        coldestHash = e.getValue();
        coldestFrequency = f;
      }
    }
    if (coldest != null && coldestFrequency < frequency && hotKeys.remove(coldest, coldestHash)) {
      hotKeys.putIfAbsent(key, keyHash);
    }
  }

  /** The copy record of a key a read spilled for, or null when the registry is full. */
  public Spill spillFor(String key) {
    if (!spills) {
      return null;
    }
    Spill s = spilled.get(key);
    if (s != null) {
      return s;
    }
    if (spilled.size() >= options.maxSpilledKeys()) {
      forgetExpired(nanoClock.getAsLong());
      if (spilled.size() >= options.maxSpilledKeys()) {
        return null;
      }
    }
    return spilled.computeIfAbsent(key, k -> new Spill());
  }

  /** The copy record of a key being written, if it may have copies. */
  public Spill spilled(String key) {
    return spilled.isEmpty() ? null : spilled.get(key);
  }

  /**
   * Forgets the keys whose copies had all expired by {@code nowNanos}, each decided and removed in
   * one step under the registry's lock of the key, so that a copy {@link #leaveCopy} registers at
   * the same moment keeps its record (a record removed with a copy being made would leave a copy
   * no write finds).
   */
  private void forgetExpired(long nowNanos) {
    for (String key : spilled.keySet()) {
      spilled.computeIfPresent(key, (k, s) -> s.expired(nowNanos) ? null : s);
    }
  }

  public LoadReport report(List<io.shardwise.routing.Node> nodes) {
    long total = loads.total();
    List<LoadReport.NodeLoad> lines = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      lines.add(
          new LoadReport.NodeLoad(
              nodes.get(i), loads.load(i), selector.cap(i, total), spilledFrom.get(i), spilledTo.get(i)));
    }
    Map<String, Integer> frequencies = new LinkedHashMap<>();
    if (sketch != null) {
      // Keys that cooled down leave the list; the sketch halves its counts every period.
      hotKeys.entrySet().removeIf(e -> sketch.frequency(e.getValue()) < options.hotThreshold());
      hotKeys.forEach((k, h) -> frequencies.put(k, sketch.frequency(h)));
    }
    Map<String, Integer> hot = new LinkedHashMap<>();
    frequencies.entrySet().stream()
        .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
        .forEach(e -> hot.put(e.getKey(), e.getValue()));
    return new LoadReport(true, total, lines, hot);
  }

  // ---- copies ----------------------------------------------------------------------------------

  /** Writes a copy for a spilled read on {@code node}, unless a write of the key came in between. */
  public void leaveCopy(Spill spill, long generation, String key, Member node, CachedValue value, Sender sender) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    // Registered while the record is the key's, under its lock: a sweep that forgot the record
    // meanwhile (it had no copy yet) leaves no copy made, since no write would find it to delete.
    boolean[] registered = new boolean[1];
    spilled.computeIfPresent(
        key,
        (k, s) -> {
          if (s == spill) {
            s.creating.add(done); // before the check: a writer that bumps after it waits for us
            registered[0] = true;
          }
          return s;
        });
    if (!registered[0]) {
      done.complete(null);
      return;
    }
    if (spill.generation.get() != generation) {
      finish(spill, done);
      return;
    }
    spill.copies.add(node);
    spill.copied(nanoClock.getAsLong(), spillTtlNanos);
    sender
        .send(node, "addCopy", c -> c.add(key, value, options.spillTtl()))
        .whenComplete(
            (stored, failure) -> {
              if (spill.generation.get() != generation) {
                deleteCopy(node, key, sender).whenComplete((x, y) -> finish(spill, done));
              } else {
                finish(spill, done);
              }
            });
  }

  private static void finish(Spill spill, CompletableFuture<Void> done) {
    spill.creating.remove(done);
    done.complete(null);
  }

  /**
   * Completes {@code writes} (of one key or of several) only after the copies of its keys, if reads
   * of them spilled, are gone: the generation of each moves on, the copy creations under way
   * finish, the copies are deleted.
   *
   * <p>Never on a node that {@code owns} says takes or took writes of the key: after a server-list
   * or placement change a node that held a copy may be the key's server, and the delete would
   * remove the write itself. The copy there is replaced by the write, or handled as any old copy
   * of a moved key is (deleted or marked by the change).
   */
  public <T> CompletableFuture<T> afterWrites(
      Collection<String> keys, CompletableFuture<T> writes, Sender sender, BiPredicate<String, Member> owns) {
    return writes
        .handle((v, x) -> (Void) null)
        .thenCompose(
            x -> {
              List<CompletableFuture<?>> drops = new ArrayList<>();
              for (String key : keys) {
                if (spilled(key) != null) {
                  drops.add(dropCopies(key, sender, owns));
                }
              }
              return CompletableFuture.allOf(drops.toArray(new CompletableFuture<?>[0]));
            })
        .thenCompose(x -> writes);
  }

  private CompletableFuture<Void> dropCopies(String key, Sender sender, BiPredicate<String, Member> owns) {
    Spill spill = spilled(key);
    if (spill == null) {
      return CompletableFuture.completedFuture(null);
    }
    spill.generation.incrementAndGet();
    List<CompletableFuture<?>> steps = new ArrayList<>(spill.creating);
    return CompletableFuture.allOf(steps.toArray(new CompletableFuture<?>[0]))
        .thenCompose(
            x -> {
              List<CompletableFuture<?>> deletes = new ArrayList<>();
              for (Member node : spill.copies) {
                if (!owns.test(key, node)) {
                  deletes.add(deleteCopy(node, key, sender));
                }
              }
              return CompletableFuture.allOf(deletes.toArray(new CompletableFuture<?>[0]));
            });
  }

  /**
   * Deletes the copy of {@code key} on {@code node}. If the delete fails (the server is out, the
   * request was lost), the copy is marked old there ({@link Failback#markFailedCopy}): no read of
   * this client spills to it, and the sweep or the server's rejoin deletes it. Completes
   * exceptionally, with the delete's failure, only if the mark could not be recorded either.
   */
  private CompletableFuture<Void> deleteCopy(Member node, String key, Sender sender) {
    return sender
        .send(node, "deleteCopy", c -> c.delete(key))
        .handle(
            (deleted, failure) -> {
              if (failure != null && !failback.markFailedCopy(node, key)) {
                throw failure instanceof CompletionException ce ? ce : new CompletionException(failure);
              }
              return null;
            });
  }
}
