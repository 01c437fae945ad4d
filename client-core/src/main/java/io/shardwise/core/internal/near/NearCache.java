package io.shardwise.core.internal.near;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.RemovalCause;
import com.github.benmanes.caffeine.cache.Ticker;
import io.shardwise.client.CachedValue;
import io.shardwise.client.NearCacheStats;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.internal.spill.FrequencySketch;
import io.shardwise.spi.Backend;
import io.shardwise.spi.Invalidations;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Values read from the servers, kept in this process ({@link NearCacheOptions}), in a Caffeine
 * cache (W-TinyLFU eviction, weighed entries, expiry after write).
 *
 * <p>The read race. A read takes a {@link Ticket} before its request is sent, its reply comes,
 * and the value is {@link #offer offered} here; an invalidation (this client's write of the key,
 * the server's message that another client wrote it, a node event) can come between any two of
 * these steps. An invalidation of a key first moves the generation of the key's stripe, then
 * removes the key's entry; an offer installs the value, in a compute on the key, only if the
 * generation and the epoch are still those of its ticket. Caffeine runs a compute and a removal of
 * one key one after the other (its {@code asMap} computations are atomic), so either the offer
 * sees the moved generation and installs nothing, or the removal that follows the move removes
 * what the offer installed. A bare removal, without the generation, would lose an invalidation that
 * came between the reply and the offer: the case Redis's client-side caching documentation
 * ("Avoiding race conditions") solves with a placeholder entry; a generation does it without one.
 * Two keys in one stripe only cost each other an admission.
 *
 * <p>Dropping everything. {@link #dropAll} moves the epoch: no entry from before is served (checked
 * on each hit, in O(1)), no read under way installs its value, and a sweep frees the memory later.
 * The client drops everything when a server is ejected, readmitted or retired, with Redis tracking
 * when a tracked connection is lost or replaced or a server flushes, and without tracking
 * (memcached) when a connection is lost, which a restart of its server is: the entries do not
 * remember which server answered, so that no event has to be matched to the entries it concerns,
 * and such events are rare. A placement change drops the keys that may have moved ({@link
 * #dropMoved}): its sweep carries the others into the new epoch, unserved until it reaches them.
 *
 * <p>Counts ({@link #stats()}). A hit and a miss cost one {@link LongAdder} increment each;
 * evictions and expiries are counted by Caffeine's eviction listener, on its maintenance executor,
 * and invalidations by the entries a removal or a sweep actually took away: no other count is
 * taken on the read path.
 */
public final class NearCache implements Invalidations {

  /** Stripes of key generations: 65,536 longs, 512 KiB. */
  static final int STRIPES = 1 << 16;

  /** The keys the admission sketch follows: its sampling period is ten times this in reads. */
  private static final int SKETCH_KEYS = 1 << 16;

  /** What a read noted before it was sent: the key's generation and the epoch; its value is installed only if neither moved. */
  public record Ticket(String key, long generation, long epoch) {}

  private final Cache<String, NearEntry> entries;
  private final AtomicLongArray generations = new AtomicLongArray(STRIPES);
  /** Moved by each drop of every entry or of the keys that moved. */
  private final AtomicLong epoch = new AtomicLong();
  /** Recent reads per key, for {@code hotOnly}; null when every key is admitted. */
  private final FrequencySketch sketch;
  /** Changed live ({@link #apply}). */
  private volatile int hotThreshold;
  private final Executor sweeps;
  /** Whether the servers invalidate (Redis tracking); else entries live at most the staleness bound. */
  private final boolean tracked;
  /** The options in force; changed live by {@link #apply}. Guarded by this for writes. */
  private volatile NearCacheOptions options;
  private final Ticker ticker;
  /**
   * The age from which a hit asks its entry's refresh (half the staleness bound), or 0 for none
   * (refresh-ahead off, or no {@link #refreshWith} yet); changed live with the bound ({@link #apply}).
   */
  private volatile long refreshAfterNanos;
  /** Keys due for a refresh, gathered and read; null until {@link #refreshWith}. */
  private volatile RefreshAhead refreshAhead;
  /** What the cache did, for {@link #stats}. */
  private final NearCounts counts = new NearCounts();
  /** {@link #counts}' hits and misses, one field load away on the hit path. */
  private final LongAdder hits = counts.hits;
  private final LongAdder misses = counts.misses;

  /**
   * The near cache of a client over {@code backend}, or null when {@code options} turn it off; its
   * entries live at most {@link NearCacheOptions#staleness} for that backend (which refuses too long
   * a bound where the servers do not invalidate). A backend whose servers track reads is told to
   * send their invalidations here, before its first connection: every read is tracked. Any other
   * backend is asked to report its lost connections here, each of which drops everything.
   */
  public static NearCache of(NearCacheOptions options, Backend backend) {
    if (!options.enabled()) {
      return null;
    }
    boolean tracked = backend.tracksReads();
    NearCache near = new NearCache(options, tracked);
    if (tracked) {
      backend.trackReads(near);
    } else {
      backend.reportLostConnections(near); // a lost connection may be a restart
    }
    return near;
  }

  /**
   * A near cache with {@code options}, over servers that invalidate ({@code tracked}) or not: its
   * entries live at most {@link NearCacheOptions#staleness} for such servers.
   */
  public NearCache(NearCacheOptions options, boolean tracked) {
    this(options, tracked, ForkJoinPool.commonPool(), Ticker.systemTicker());
  }

  /** As above, with Caffeine's maintenance and the sweeps on {@code executor}, and time from {@code ticker}. */
  NearCache(NearCacheOptions options, boolean tracked, Executor executor, Ticker ticker) {
    Duration staleness = options.staleness(tracked);
    this.sketch = options.hotOnly() ? new FrequencySketch(SKETCH_KEYS) : null;
    this.hotThreshold = options.hotThreshold();
    Caffeine<Object, Object> builder = Caffeine.newBuilder().executor(executor).ticker(ticker).expireAfterWrite(staleness);
    builder.evictionListener(
        (String key, NearEntry e, RemovalCause cause) -> {
          if (cause != RemovalCause.EXPIRED) {
            counts.evictions.increment();
            return;
          }
          counts.expiries.increment();
          if (key != null) {
            keepHot(key);
          }
        });
    if (options.maxBytes() > 0) {
      builder.maximumWeight(options.maxBytes()).weigher((String key, NearEntry e) -> NearEntry.weight(key, e.value));
    } else {
      builder.maximumSize(options.maxEntries());
    }
    this.entries = builder.build();
    this.sweeps = executor;
    this.tracked = tracked;
    this.options = options;
    this.ticker = ticker;
  }

  /** Half of {@code staleness} with {@code refreshAhead}, else 0 (none). */
  private static long refreshAfter(NearCacheOptions options, Duration staleness) {
    return options.refreshAhead() ? Math.max(1, staleness.toNanos() / 2) : 0;
  }

  /**
   * Refreshes are gathered on {@code thread} and read by {@code reader}: a getMulti of the keys, each
   * value found {@link #offer offered} with a {@link #refreshTicket}, each key found gone {@link
   * #refreshedGone dropped}. Until this is called no refresh is asked.
   */
  public synchronized void refreshWith(ScheduledExecutorService thread, Consumer<Set<String>> reader) {
    this.refreshAhead = new RefreshAhead(thread, reader);
    this.refreshAfterNanos = refreshAfter(options, options.staleness(tracked));
  }

  /** The options in force. */
  public NearCacheOptions options() {
    return options;
  }

  /** Whether the servers invalidate the entries (Redis tracking). */
  public boolean tracked() {
    return tracked;
  }

  /**
   * Puts {@code next}'s bound, staleness bound and hot threshold in force, in place: Caffeine
   * evicts down to a lowered bound, and a changed expiry applies to the entries kept too. The kind
   * of bound (bytes or entries), {@code enabled} and {@code hotOnly} are fixed when the cache is
   * built.
   *
   * @throws IllegalArgumentException for another kind of bound, {@code enabled} or {@code hotOnly},
   *     or a staleness bound these servers do not allow
   */
  public synchronized void apply(NearCacheOptions next) {
    NearCacheOptions now = options;
    if ((next.maxBytes() > 0) != (now.maxBytes() > 0) || next.enabled() != now.enabled() || next.hotOnly() != now.hotOnly()) {
      throw new IllegalArgumentException("the near cache's kind of bound, enabled and admission are fixed when it is built; was " + now + ", asked " + next);
    }
    Duration staleness = next.staleness(tracked);
    entries.policy().eviction().ifPresent(e -> e.setMaximum(next.maxBytes() > 0 ? next.maxBytes() : next.maxEntries()));
    entries.policy().expireAfterWrite().ifPresent(e -> e.setExpiresAfter(staleness));
    hotThreshold = next.hotThreshold();
    if (refreshAhead != null) {
      refreshAfterNanos = refreshAfter(next, staleness);
    }
    options = next;
  }

  private static int stripe(String key) {
    int h = key.hashCode();
    return (h ^ (h >>> 16)) & (STRIPES - 1);
  }

  /** The value of {@code key} kept here, or null: none is, or the one kept is from before a {@link #dropAll}. */
  public CachedValue get(String key) {
    NearEntry e = entries.getIfPresent(key);
    if (e == null || e.epoch() != epoch.get()) {
      misses.increment();
      return null;
    }
    hits.increment();
    long after = refreshAfterNanos;
    if (after > 0 && e.hitAsksRefresh(ticker, after)) {
      refreshSoon(key);
    }
    return e.value;
  }

  /** Refresh-ahead ({@link RefreshAhead}): {@code key}'s entry is read again in the background. */
  private void refreshSoon(String key) {
    RefreshAhead r = refreshAhead;
    if (r != null && r.ask(key, refreshAfterNanos)) {
      counts.refreshes.increment();
    }
  }

  /** A ticket for a refresh of {@code key}, kept whatever the admission (the key is kept already). */
  public Ticket refreshTicket(String key) {
    return new Ticket(key, generations.get(stripe(key)), epoch.get());
  }

  /**
   * The refresh of {@code ticket} found no value on the server: the key was deleted or expired
   * there, so its entry goes now rather than at its staleness bound.
   */
  public void refreshedGone(Ticket ticket) {
    invalidate(ticket.key, DropCause.SERVER);
  }

  /**
   * A ticket for a read of {@code key} about to be sent, or null if its value is not to be kept:
   * with hot keys only, the key was not read often enough recently (this read counts).
   */
  public Ticket ticket(String key) {
    if (sketch != null && sketch.increment(spread(key)) < hotThreshold) {
      return null;
    }
    return new Ticket(key, generations.get(stripe(key)), epoch.get());
  }

  private static long spread(String key) {
    return key.hashCode() * 0x9E3779B97F4A7C15L;
  }

  /**
   * The read of {@code ticket} found {@code value}: kept, unless an invalidation of the key or a
   * {@link #dropAll} came since the ticket was taken.
   */
  public void offer(Ticket ticket, CachedValue value) {
    int s = stripe(ticket.key);
    entries
        .asMap()
        .compute(
            ticket.key,
            (k, old) -> {
              boolean current = generations.get(s) == ticket.generation && epoch.get() == ticket.epoch;
              // Not current: an invalidation is under way or done; whatever is kept goes too.
              return current ? new NearEntry(value, ticket.epoch, ticker.read()) : null;
            });
  }

  /**
   * Drops the entry of {@code key}, and keeps a read under way from keeping the value it reads: for
   * a write of the key by this client once it is done, whatever its outcome (not before it is sent:
   * until then the value before it may still be served, as a read sent then may return it), and for
   * a copy of the key this client made itself (warm-up, read repair, handoff, refill) once it has
   * ended. A server's invalidations come through {@link #keys} instead.
   */
  public void invalidate(String key) {
    invalidate(key, DropCause.WRITE);
  }

  private void invalidate(String key, DropCause cause) {
    generations.incrementAndGet(stripe(key));
    if (entries.asMap().remove(key) != null) {
      counts.invalidations[cause.ordinal()].increment();
      keepHot(key);
    }
  }

  /**
   * With hot keys only: the next read of {@code key}, whose entry just went, keeps its value (the
   * key was hot when kept, and its reads since were not counted; see the class comment).
   */
  private void keepHot(String key) {
    if (sketch != null) {
      sketch.raise(spread(key), hotThreshold - 1);
    }
  }

  /** A server's notice that {@code keys} changed (Redis tracking): each is invalidated. */
  @Override
  public void keys(Collection<String> keys) {
    for (String key : keys) {
      invalidate(key, DropCause.SERVER);
    }
  }

  /**
   * A tracked connection lost or replaced ({@link DropCause#TRACKING}), a server flushed, or (without
   * tracking) a connection lost: everything is dropped.
   */
  @Override
  public void all(String reason) {
    dropAll("flush".equals(reason) ? DropCause.FLUSH : DropCause.TRACKING);
  }

  /**
   * Drops every entry, and keeps the reads under way from keeping theirs: for an ejection, a
   * readmission, a server that left or restarted, a lost tracked connection, a flush.
   */
  public void dropAll(DropCause cause) {
    counts.dropAlls[cause.ordinal()].increment();
    drop(cause, key -> true);
  }

  /**
   * Drops the entries of the keys {@code moved} accepts, for a change of placement ({@link
   * MovedKeys}), and keeps the reads under way from keeping theirs.
   */
  public void dropMoved(Predicate<String> moved) {
    drop(DropCause.CHANGE, moved);
  }

  /**
   * Moves the epoch now, so that no entry is served until the sweep, on the maintenance executor,
   * has carried it into the new epoch (a key {@code moved} rejects, in an entry of the epoch just
   * ended) or removed it (any other). A later drop moves the epoch again, and what this sweep
   * carries is not served after it either.
   */
  private void drop(DropCause cause, Predicate<String> moved) {
    long now = epoch.incrementAndGet();
    long before = now - 1;
    LongAdder dropped = counts.invalidations[cause.ordinal()];
    sweeps.execute(() -> entries.asMap().forEach((key, e) -> {
      long was = e.epoch();
      if (was >= now || was == before && !moved.test(key) && e.carry(before, now)) {
        return;
      }
      if (e.epoch() < now && entries.asMap().remove(key, e)) {
        dropped.increment();
      }
    }));
  }

  /**
   * How the server of {@code connection} keeps this near cache fresh: it tracks the reads of the
   * connection in use, or would but has none now, or cannot (memcached: bounded staleness).
   */
  public NearCacheTracking tracking(NodeConnection connection) {
    if (!tracked) {
      return NearCacheTracking.BOUNDED_STALENESS;
    }
    return connection.readsTracked() ? NearCacheTracking.TRACKED : NearCacheTracking.NOT_CONNECTED;
  }

  /** The counts since the cache was built, and its size now. */
  public NearCacheStats stats() {
    return counts.stats(entries.estimatedSize(), options.maxBytes() > 0 ? weight() : -1);
  }

  /** Entries kept now (an estimate, as Caffeine's). */
  public long entries() {
    return entries.estimatedSize();
  }

  /** The weight of the entries kept, in bytes; their count when bounded by entries. */
  public long weight() {
    return entries.policy().eviction().map(e -> e.weightedSize().orElse(entries.estimatedSize())).orElse(entries.estimatedSize());
  }

  public long hits() {
    return hits.sum();
  }

  public long misses() {
    return misses.sum();
  }

  /** Runs Caffeine's pending maintenance (evictions, expiries) now. */
  void cleanUp() {
    entries.cleanUp();
  }
}
