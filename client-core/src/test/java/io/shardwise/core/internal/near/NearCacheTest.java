package io.shardwise.core.internal.near;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.benmanes.caffeine.cache.Ticker;
import io.shardwise.client.CachedValue;
import io.shardwise.client.NearCacheStats;
import io.shardwise.client.NearCacheTracking;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.spi.NodeConnection;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * The near cache's store on its own: what an entry is served on, and the read race, in the orders
 * that matter and under threads that write and read at once.
 */
class NearCacheTest {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final Ticker ticker = nanos::get;

  /** A near cache over memcached (not tracked), whose entries live 1 s unless {@code options} say. */
  private NearCache cache(NearCacheOptions options) {
    NearCacheOptions bounded = options.maxStaleness() == null ? options.withMaxStaleness(Duration.ofSeconds(1)) : options;
    return new NearCache(bounded, false, Runnable::run, ticker);
  }

  @Test
  void overMemcachedAStalenessBoundIsRequiredAndAtMostAMinute() {
    assertThatThrownBy(() -> new NearCache(NearCacheOptions.defaults(), false, Runnable::run, ticker))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("max staleness is required with a backend whose servers do not invalidate (memcached)");
    assertThatThrownBy(() -> cache(NearCacheOptions.defaults().withMaxStaleness(Duration.ofSeconds(61))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be <= 1m")
        .hasMessageContaining("PT1M1S");
    NearCache tracked = new NearCache(NearCacheOptions.defaults(), true, Runnable::run, ticker);
    assertThat(tracked.options().staleness(true)).isEqualTo(NearCacheOptions.DEFAULT_REDIS_STALENESS);
  }

  private NearCache everyKey() {
    return cache(NearCacheOptions.defaults().withHotOnly(false));
  }

  private static CachedValue value(String text) {
    return CachedValue.of(text.getBytes(StandardCharsets.UTF_8), 0);
  }

  private static String text(CachedValue v) {
    return v == null ? null : new String(v.bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void aValueReadWithACurrentTicketIsServedUntilTheKeyIsInvalidated() {
    NearCache near = everyKey();
    assertThat(near.get("k")).isNull();
    near.offer(near.ticket("k"), value("v1"));
    assertThat(text(near.get("k"))).isEqualTo("v1");
    near.invalidate("k");
    assertThat(near.get("k")).isNull();
    assertThat(near.hits()).isEqualTo(1);
    assertThat(near.misses()).isEqualTo(2);
  }

  @Test
  void anInvalidationBetweenTheTicketAndTheOfferKeepsTheValueOut() {
    NearCache near = everyKey();
    NearCache.Ticket ticket = near.ticket("k");
    near.invalidate("k"); // decoded before the reply, or after it but before the offer ran
    near.offer(ticket, value("old"));
    assertThat(near.get("k")).isNull();
    near.offer(near.ticket("k"), value("new")); // the next read keeps its value
    assertThat(text(near.get("k"))).isEqualTo("new");
  }

  @Test
  void afterADropNothingFromBeforeIsServedAndReadsUnderWayKeepNothing() {
    NearCache near = everyKey();
    near.offer(near.ticket("k"), value("v"));
    NearCache.Ticket underWay = near.ticket("j");
    near.dropAll(DropCause.NODE); // a server ejected, readmitted or gone, or the placement changed
    assertThat(near.get("k")).isNull();
    near.offer(underWay, value("j"));
    assertThat(near.get("j")).isNull();
    assertThat(near.entries()).as("swept").isZero();
    near.offer(near.ticket("k"), value("read again"));
    assertThat(text(near.get("k"))).as("read after the drop").isEqualTo("read again");
  }

  /** A near cache whose sweeps and maintenance wait in {@code later} until {@link #runAll}. */
  private NearCache queued(List<Runnable> later) {
    return new NearCache(NearCacheOptions.defaults().withHotOnly(false).withMaxStaleness(Duration.ofSeconds(1)), false, later::add, ticker);
  }

  private static void runAll(List<Runnable> later) {
    while (!later.isEmpty()) {
      later.remove(0).run();
    }
  }

  @Test
  void aChangeDropsTheKeysThatMovedCarriesTheOthersAndReadsUnderWayKeepNothing() {
    List<Runnable> later = new ArrayList<>();
    NearCache near = queued(later);
    near.offer(near.ticket("stays"), value("s"));
    near.offer(near.ticket("moves"), value("m"));
    NearCache.Ticket underWay = near.ticket("read");
    nanos.addAndGet(Duration.ofMillis(600).toNanos());
    near.dropMoved(key -> key.equals("moves"));
    assertThat(near.get("stays")).as("not served until the sweep has carried it").isNull();
    assertThat(near.get("moves")).isNull();
    near.offer(underWay, value("r"));
    runAll(later);
    assertThat(text(near.get("stays"))).as("carried into the new epoch").isEqualTo("s");
    assertThat(near.get("moves")).as("dropped").isNull();
    assertThat(near.get("read")).as("read on the placement before").isNull();
    NearCacheStats stats = near.stats();
    assertThat(stats.invalidations("change")).isEqualTo(1);
    assertThat(stats.dropAlls()).containsEntry("change", 0L);
    nanos.addAndGet(Duration.ofMillis(401).toNanos());
    assertThat(near.get("stays")).as("its staleness bound counts from its read, not from the change").isNull();
  }

  @Test
  void whatAChangeCarriesIsNotServedAfterALaterDropAndTwoChangesDropTheKeysEitherMoved() {
    List<Runnable> later = new ArrayList<>();
    NearCache near = queued(later);
    for (String key : List.of("a", "b", "c")) {
      near.offer(near.ticket(key), value(key));
    }
    near.dropMoved(key -> key.equals("a"));
    near.dropMoved(key -> key.equals("b"));
    runAll(later);
    assertThat(near.get("a")).isNull();
    assertThat(near.get("b")).isNull();
    assertThat(text(near.get("c"))).as("moved in neither").isEqualTo("c");

    near.dropMoved(key -> false);
    near.dropAll(DropCause.NODE); // before the change's sweep ran
    runAll(later);
    assertThat(near.get("c")).as("dropped by the later event").isNull();
    assertThat(near.entries()).isZero();
  }

  @Test
  void aServersNoticesDropTheKeysTheyNameOrEverything() {
    NearCache near = everyKey();
    near.offer(near.ticket("a"), value("a"));
    near.offer(near.ticket("b"), value("b"));
    NearCache.Ticket underWay = near.ticket("c");
    near.keys(List.of("a", "c")); // Redis: another client wrote a and c
    assertThat(near.get("a")).isNull();
    assertThat(text(near.get("b"))).isEqualTo("b");
    near.offer(underWay, value("c"));
    assertThat(near.get("c")).as("read before the notice").isNull();
    near.all("connection lost");
    assertThat(near.get("b")).isNull();
  }

  @Test
  void anEntryLivesAtMostTheStalenessBound() {
    NearCache near = everyKey();
    near.offer(near.ticket("k"), value("v"));
    nanos.addAndGet(Duration.ofMillis(999).toNanos());
    assertThat(near.get("k")).isNotNull();
    nanos.addAndGet(Duration.ofMillis(2).toNanos());
    assertThat(near.get("k")).isNull();
  }

  @Test
  void withHotKeysOnlyAKeyIsKeptOnceItWasReadOftenEnough() {
    NearCache near = cache(NearCacheOptions.defaults().withHotThreshold(3));
    assertThat(near.ticket("k")).isNull();
    assertThat(near.ticket("k")).isNull();
    assertThat(near.ticket("k")).as("the third read").isNotNull();
  }

  /**
   * A hot key's reads served here do not count in the sketch, whose halvings wear its count down;
   * when its entry goes (a write, a server's notice, the staleness bound), its next read keeps its
   * value at once instead of earning the threshold again from scratch. Fails without the raise.
   */
  @Test
  void withHotKeysOnlyAKeptKeyIsKeptAgainAtOnceAfterItsEntryGoes() {
    NearCache near = cache(NearCacheOptions.defaults().withHotThreshold(3));
    near.ticket("k");
    near.ticket("k");
    near.offer(near.ticket("k"), value("v1"));
    assertThat(text(near.get("k"))).isEqualTo("v1");
    wearDownTheSketch(near);
    near.invalidate("k"); // this client's write of k, or the server's notice
    assertThat(near.get("k")).isNull();
    NearCache.Ticket afterWrite = near.ticket("k");
    assertThat(afterWrite).as("the first read after the write").isNotNull();
    near.offer(afterWrite, value("v2"));
    wearDownTheSketch(near);
    nanos.addAndGet(Duration.ofMillis(1_001).toNanos());
    near.cleanUp(); // the entry expires
    assertThat(near.get("k")).isNull();
    assertThat(near.ticket("k")).as("the first read after the expiry").isNotNull();
  }

  @Test
  void withHotKeysOnlyAnInvalidationOfAKeyNotKeptDoesNotMakeItHot() {
    NearCache near = cache(NearCacheOptions.defaults().withHotThreshold(3));
    near.invalidate("k");
    assertThat(near.ticket("k")).isNull();
    assertThat(near.ticket("k")).isNull();
  }

  /** Reads of other keys through two of the sketch's sampling periods: two halvings. */
  private static void wearDownTheSketch(NearCache near) {
    for (int i = 0; i < 20 * (1 << 16) + 1; i++) {
      near.ticket("other" + (i & 1023));
    }
  }

  @Test
  void theWeightOfTheEntriesStaysWithinMaxBytes() {
    long bound = 100_000;
    NearCache near = cache(NearCacheOptions.defaults().withHotOnly(false).withMaxBytes(bound));
    for (int i = 0; i < 2_000; i++) {
      near.offer(near.ticket("key" + i), CachedValue.of(new byte[500], 0));
    }
    near.cleanUp();
    assertThat(near.weight()).isLessThanOrEqualTo(bound).isGreaterThan(bound / 2);
    assertThat(NearEntry.weight("key1", CachedValue.of(new byte[500], 0)))
        .isEqualTo(2 * 4 + 500 + NearCacheOptions.ENTRY_OVERHEAD_BYTES);
  }

  @Test
  void hitsMissesEvictionsExpiriesAndInvalidationsAreCountedByCause() {
    NearCache near = cache(NearCacheOptions.defaults().withHotOnly(false).withMaxEntries(3));
    for (String k : List.of("a", "b", "c")) {
      near.offer(near.ticket(k), value(k));
    }
    near.get("a");
    near.get("z");
    near.invalidate("a"); // this client wrote a
    near.invalidate("a"); // nothing left to drop: not counted
    near.keys(List.of("b", "y")); // the server's notice: b was kept, y was not
    near.offer(near.ticket("d"), value("d"));
    near.dropAll(DropCause.NODE); // sweeps c and d (the executor runs at once)
    near.offer(near.ticket("e"), value("e"));
    near.all("flush");
    for (int i = 0; i < 10; i++) {
      near.offer(near.ticket("f" + i), value("f"));
    }
    near.cleanUp();
    nanos.addAndGet(Duration.ofSeconds(2).toNanos());
    near.cleanUp();
    NearCacheStats stats = near.stats();
    assertThat(stats.hits()).isEqualTo(1);
    assertThat(stats.misses()).isEqualTo(1);
    assertThat(stats.invalidations())
        .containsEntry("write", 1L)
        .containsEntry("server", 1L)
        .containsEntry("node", 2L)
        .containsEntry("flush", 1L)
        .containsEntry("change", 0L)
        .containsEntry("tracking", 0L);
    assertThat(stats.dropAlls()).containsEntry("node", 1L).containsEntry("flush", 1L).containsEntry("write", 0L);
    assertThat(stats.evictions()).as("10 offered over a bound of 3").isEqualTo(7);
    assertThat(stats.expiries()).as("the 3 kept, past the 1 s staleness bound").isEqualTo(3);
    assertThat(stats.entries()).isZero();
    assertThat(stats.bytes()).as("not weighed when bounded by entries").isEqualTo(-1);
    near.all("connection lost");
    assertThat(near.stats().dropAlls()).containsEntry("tracking", 1L);
  }

  @Test
  void aChangedBoundStalenessAndThresholdApplyInPlaceToTheEntriesKept() {
    NearCacheOptions options = NearCacheOptions.defaults().withHotOnly(false).withMaxEntries(100).withMaxStaleness(Duration.ofSeconds(10));
    NearCache near = cache(options);
    for (int i = 0; i < 50; i++) {
      near.offer(near.ticket("k" + i), value("v"));
    }
    nanos.addAndGet(Duration.ofSeconds(3).toNanos());
    near.apply(options.withMaxEntries(20).withMaxStaleness(Duration.ofSeconds(5)));
    near.cleanUp();
    assertThat(near.entries()).as("evicted down to the new bound").isEqualTo(20);
    assertThat(near.options().maxEntries()).isEqualTo(20);
    nanos.addAndGet(Duration.ofSeconds(2).toNanos() + 1);
    near.cleanUp();
    assertThat(near.entries()).as("read 5 s ago: past the new bound, though within the old").isZero();

    NearCache hot = cache(NearCacheOptions.defaults().withHotThreshold(5));
    hot.apply(hot.options().withHotThreshold(1));
    assertThat(hot.ticket("k")).as("the first read, with a threshold of 1").isNotNull();
    assertThatThrownBy(() -> hot.apply(hot.options().withMaxEntries(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("kind of bound");
  }

  @Test
  void aNodeIsTrackedOnlyWhileItsConnectionTracksReadsAndMemcachedNeverIs() {
    NodeConnection tracking = (NodeConnection) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {NodeConnection.class},
        (proxy, method, args) -> method.getName().equals("readsTracked") ? Boolean.TRUE : null);
    NodeConnection down = (NodeConnection) java.lang.reflect.Proxy.newProxyInstance(
        getClass().getClassLoader(), new Class<?>[] {NodeConnection.class},
        (proxy, method, args) -> method.getName().equals("readsTracked") ? Boolean.FALSE : null);
    NearCache redis = new NearCache(NearCacheOptions.defaults(), true, Runnable::run, ticker);
    assertThat(redis.tracking(tracking)).isEqualTo(NearCacheTracking.TRACKED);
    assertThat(redis.tracking(down)).isEqualTo(NearCacheTracking.NOT_CONNECTED);
    assertThat(everyKey().tracking(tracking)).isEqualTo(NearCacheTracking.BOUNDED_STALENESS);
    assertThat(NearCacheTracking.BOUNDED_STALENESS).hasToString("not tracked (bounded staleness)");
  }

  /**
   * Writers write versions of a few keys to a map (the server) between the invalidations a write
   * makes, before and after; readers read through the cache, and on a miss read the map with a
   * ticket and offer what they read. No read may see a version older than one whose write was done
   * before the read began. Fails without the generation check, and without the invalidation after
   * a write (both removed by hand).
   */
  @Test
  void noReadSeesAValueOlderThanAWriteDoneBeforeItBegan() throws Exception {
    NearCache near = everyKey();
    int keys = 8;
    ConcurrentHashMap<String, Long> server = new ConcurrentHashMap<>();
    AtomicLongArray done = new AtomicLongArray(keys); // the latest version whose write is done
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong old = new AtomicLong();
    AtomicLong served = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < 2; w++) {
      int writer = w;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(writer);
                long version = writer; // writer 0 writes even versions, writer 1 odd ones
                while (running.get()) {
                  int k = random.nextInt(keys);
                  String key = "k" + k;
                  version += 2;
                  long v = version;
                  near.invalidate(key);
                  server.merge(key, v, Math::max);
                  near.invalidate(key);
                  done.accumulateAndGet(k, v, Math::max);
                }
              }));
    }
    for (int r = 0; r < 4; r++) {
      int reader = r;
      threads.add(
          new Thread(
              () -> {
                SplittableRandom random = new SplittableRandom(100 + reader);
                while (running.get()) {
                  int k = random.nextInt(keys);
                  String key = "k" + k;
                  long atStart = done.get(k);
                  CachedValue hit = near.get(key);
                  long seen;
                  if (hit != null) {
                    seen = Long.parseLong(text(hit));
                    served.incrementAndGet();
                  } else {
                    NearCache.Ticket ticket = near.ticket(key);
                    Long v = server.get(key);
                    if (v == null) {
                      continue;
                    }
                    if (random.nextInt(4) == 0) {
                      Thread.yield(); // a reply whose offer runs later
                    }
                    near.offer(ticket, value(Long.toString(v)));
                    seen = v;
                  }
                  if (seen < atStart) {
                    old.incrementAndGet();
                  }
                }
              }));
    }
    threads.forEach(Thread::start);
    Thread.sleep(1500);
    running.set(false);
    for (Thread t : threads) {
      t.join();
    }
    assertThat(served.get()).as("reads served from the cache").isGreaterThan(1000);
    assertThat(old.get()).as("reads older than a write done before they began").isZero();
  }

  /** A near cache of every key, memcached's bound, whose refreshes are gathered on a real thread and recorded. */
  private NearCache refreshing(List<Set<String>> batches, ScheduledExecutorService thread, NearCacheOptions options) {
    NearCache near = cache(options);
    near.refreshWith(thread, keys -> batches.add(Set.copyOf(keys)));
    return near;
  }

  @Test
  void anEntryServedAgainInTheSecondHalfOfItsLifeIsRefreshedOnceWhileStillServed() throws Exception {
    List<Set<String>> batches = new CopyOnWriteArrayList<>();
    ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    try {
      NearCache near = refreshing(batches, thread, NearCacheOptions.defaults().withHotOnly(false));
      near.offer(near.ticket("k"), value("v1"));
      near.offer(near.ticket("j"), value("j1"));
      near.offer(near.ticket("once"), value("o1"));
      nanos.addAndGet(Duration.ofMillis(100).toNanos());
      assertThat(text(near.get("k"))).isEqualTo("v1");
      assertThat(text(near.get("j"))).isEqualTo("j1");
      nanos.addAndGet(Duration.ofMillis(399).toNanos());
      assertThat(text(near.get("k"))).isEqualTo("v1");
      Thread.sleep(50);
      assertThat(batches).as("served twice, both in the first half of its 1 s: no refresh").isEmpty();

      nanos.addAndGet(Duration.ofMillis(2).toNanos());
      // The refresh thread is held until both keys are due, so that a stall of this thread longer
      // than the 10 ms gathering cannot split them into two reads.
      java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
      thread.execute(() -> {
        try {
          held.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      for (int i = 0; i < 5; i++) {
        assertThat(text(near.get("k"))).as("still served while its refresh is under way").isEqualTo("v1");
      }
      assertThat(text(near.get("j"))).isEqualTo("j1");
      assertThat(text(near.get("once"))).isEqualTo("o1");
      held.countDown();
      await(() -> !batches.isEmpty());
      Thread.sleep(50);
      assertThat(batches).as("k and j in one read, each once; not the entry served once").containsExactly(Set.of("k", "j"));
      assertThat(near.stats().refreshes()).isEqualTo(2);

      near.offer(near.refreshTicket("k"), value("v2")); // the refresh's reply
      assertThat(text(near.get("k"))).isEqualTo("v2");
      nanos.addAndGet(Duration.ofMillis(600).toNanos());
      assertThat(text(near.get("k"))).as("the refreshed entry lives a full bound from its refresh").isEqualTo("v2");
      assertThat(near.get("j")).as("not refreshed: expired").isNull();
      assertThat(near.get("once")).isNull();
      await(() -> batches.size() == 2);
      assertThat(batches.get(1)).containsExactly("k");
    } finally {
      thread.shutdownNow();
    }
  }

  @Test
  void aWriteDuringARefreshWinsAndAKeyTheServerNoLongerHasIsDropped() {
    NearCache near = everyKey();
    near.offer(near.ticket("k"), value("v1"));
    near.offer(near.ticket("gone"), value("g1"));
    NearCache.Ticket refresh = near.refreshTicket("k");
    near.invalidate("k"); // this client's write, sent while the refresh was under way
    near.offer(refresh, value("read before the write"));
    assertThat(near.get("k")).isNull();

    near.refreshedGone(near.refreshTicket("gone"));
    assertThat(near.get("gone")).as("deleted or expired on its server").isNull();
    assertThat(near.stats().invalidations("server")).isEqualTo(1);
  }

  @Test
  void withoutRefreshAheadAnEntryJustExpires() throws Exception {
    List<Set<String>> batches = new CopyOnWriteArrayList<>();
    ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor();
    try {
      NearCache near = refreshing(batches, thread, NearCacheOptions.defaults().withHotOnly(false).withRefreshAhead(false));
      near.offer(near.ticket("k"), value("v1"));
      nanos.addAndGet(Duration.ofMillis(900).toNanos());
      assertThat(text(near.get("k"))).isEqualTo("v1");
      nanos.addAndGet(Duration.ofMillis(200).toNanos());
      assertThat(near.get("k")).isNull();
      Thread.sleep(50);
      assertThat(batches).isEmpty();
      assertThat(near.stats().refreshes()).isZero();
    } finally {
      thread.shutdownNow();
    }
  }

  private static void await(java.util.function.BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("waited 10 s").isLessThan(deadline);
      Thread.sleep(5);
    }
  }
}
