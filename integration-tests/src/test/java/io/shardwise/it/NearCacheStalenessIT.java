package io.shardwise.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.spi.Backend;
import io.shardwise.spi.Invalidations;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Staleness across processes: how long after another process confirmed a write this process's
 * near cache still returns the value before it. Two JVMs on the same 5 local servers: a child
 * process ({@link NearCacheWriterMain}, no near cache) writes versioned values, {@value #KEYS} keys
 * in turn at {@value #WRITES_PER_SECOND} writes a second (each key about once a second), and
 * records each confirmed write with its time in shared memory ({@link ConfirmedVersions}, which
 * explains the choice of clock); this JVM reads random keys through a near cache that admits every
 * key, with {@value #READERS} threads, for {@link #RUN_SECONDS} s. A read is stale when it
 * returned an older version than the latest one confirmed before it began; its staleness is the
 * time from the confirmation of the next version after the one it returned to the read's start.
 *
 * <p>Redis: the servers' invalidations keep entries fresh; entries may live a minute. The stale
 * reads are those begun between the confirmation and this process handling the server's notice, a
 * matter of scheduling; the test asserts that the longest is under 1 s plus twice this process's
 * longest measured stall (the slowest get, or the lateness of a thread waking every 10 ms), a bound
 * the run itself derives and that must be far under the minute. A lost notice shows as seconds: with
 * {@code -Dnearcache.staleness.ignoreNotices=true} the key notices are dropped before they reach the
 * near cache, entries are served up to the end of the run, and the test fails.
 *
 * <p>memcached: no notice; entries live {@link #MEMCACHED_STALENESS}. The test counts the reads
 * staler than that plus the longest get this process measured (a value is installed at the end of
 * the get that read it, so that get's time is added to its age) plus {@value #CLOCK_SLACK_MICROS}
 * µs for the two clocks it compares (the entry's expiry runs on {@code nanoTime}), and asserts there
 * are none. With {@code -Dnearcache.staleness.servedForMillis=2000} the near cache keeps entries 2 s while
 * the bound stays 500 ms, and the test fails.
 *
 * <p>The distribution goes to standard output and {@code target/near-cache-staleness.md};
 * {@code -Dnearcache.staleness.seconds=N} sets the run's length (default 20).
 */
@Timeout(180)
class NearCacheStalenessIT {

  static final int KEYS = 1000;
  static final int READERS = 8;
  static final int WRITES_PER_SECOND = 1000;
  static final int RUN_SECONDS = Integer.getInteger("nearcache.staleness.seconds", 20);
  static final Duration MEMCACHED_STALENESS = Duration.ofMillis(500);
  /**
   * How long the memcached near cache keeps entries: {@link #MEMCACHED_STALENESS}, unless {@code
   * -Dnearcache.staleness.servedForMillis} says otherwise (the check that the test can fail).
   */
  static final Duration SERVED_FOR =
      Duration.ofMillis(Long.getLong("nearcache.staleness.servedForMillis", MEMCACHED_STALENESS.toMillis()));
  static final boolean IGNORE_NOTICES = Boolean.getBoolean("nearcache.staleness.ignoreNotices");
  /** Slack for comparing the wall clock with {@code nanoTime} over a run (a slewing clock drifts by at most 0.05%). */
  static final long CLOCK_SLACK_MICROS = 20_000;
  /** A step of the wall clock against {@code nanoTime} beyond which the run's durations are not trusted. */
  static final long CLOCK_STEP_MICROS = 50_000;
  /** A thread of this process wakes this often to measure how late it is woken (its stalls). */
  static final long WATCH_MILLIS = 10;
  private static final long CHILD_WAIT_SECONDS = 60;
  private static final AtomicBoolean REPORT_STARTED = new AtomicBoolean();

  @RegisterExtension static final ServerFleet<MemcachedServer> MEMCACHED = ServerFleet.memcached(5);

  @RegisterExtension static final ServerFleet<RedisServer> REDIS = ServerFleet.redis(5);

  /** What the reading process measured in one run. */
  record Run(
      Histogram staleness,
      long reads,
      long stale,
      long failed,
      long wrong,
      long beyondRing,
      long clockInversions,
      long serverGets,
      long longestGetMicros,
      long longestStallMicros,
      long clockStepMicros,
      String worst,
      long writes,
      List<String> writerOutput) {

    /** The longest stall this process saw: its slowest get, or the watch thread's lateness. */
    long stallMicros() {
      return Math.max(longestGetMicros, longestStallMicros);
    }

    String summary(String backend, String entries) {
      return String.format(
          "| %s | %s | %,d | %,d (%.3f%%) | %s | %s | %s | %.1f%% | %d ms | %d ms |",
          backend, entries, reads, stale, 100.0 * stale / Math.max(1, reads),
          ms(staleness.getValueAtPercentile(50)), ms(staleness.getValueAtPercentile(99)), ms(staleness.getMaxValue()),
          100.0 * (reads - serverGets) / Math.max(1, reads), longestGetMicros / 1000, longestStallMicros / 1000);
    }

    private static String ms(long micros) {
      return String.format("%.1f ms", micros / 1000.0);
    }
  }

  @Test
  void redisAnotherProcesssWriteIsSeenWithinTheNoticeDelay() throws Exception {
    CacheFleet fleet = CacheFleet.redis(REDIS);
    fleet.reset();
    Backend backend = fleet.newBackend();
    if (IGNORE_NOTICES) {
      backend = new KeyNoticesIgnored(backend);
    }
    Run run = run(fleet, backend, NearCacheOptions.defaults().withHotOnly(false));
    long boundMicros = 1_000_000 + 2 * run.stallMicros();
    report(run.summary("redis" + (IGNORE_NOTICES ? " (key notices ignored)" : ""), "1 minute, invalidated"), run);
    System.out.printf("[near cache staleness] redis: bound %d ms (1 s + 2 x the longest stall %d ms)%n", boundMicros / 1000, run.stallMicros() / 1000);
    checkRun(run);
    assertThat(boundMicros)
        .as("the bound this run derives from its stalls must tell a lost notice (served up to a minute) from a late one")
        .isLessThan(TimeUnit.SECONDS.toMicros(15));
    assertThat(run.staleness().getMaxValue())
        .as("the longest a read returned an older value than one confirmed before it began, in µs; worst: %s", run.worst())
        .isLessThan(boundMicros);
  }

  @Test
  void memcachedNoReadIsOlderThanMaxStaleness() throws Exception {
    CacheFleet fleet = CacheFleet.memcached(MEMCACHED);
    fleet.reset();
    Run run = run(fleet, fleet.newBackend(), NearCacheOptions.defaults().withHotOnly(false).withMaxStaleness(SERVED_FOR));
    long boundMicros = MEMCACHED_STALENESS.toNanos() / 1000 + run.longestGetMicros() + CLOCK_SLACK_MICROS;
    long beyond = run.staleness().getCountBetweenValues(boundMicros + 1, Long.MAX_VALUE / 4);
    report(run.summary("memcached", SERVED_FOR.toMillis() + " ms"), run);
    System.out.printf(
        "[near cache staleness] memcached: %d reads staler than %d ms (max staleness %d ms + the longest get %d ms + %d ms for the clocks)%n",
        beyond, boundMicros / 1000, MEMCACHED_STALENESS.toMillis(), run.longestGetMicros() / 1000, CLOCK_SLACK_MICROS / 1000);
    checkRun(run);
    assertThat(beyond).as("reads staler than max staleness and the longest get; worst: %s", run.worst()).isZero();
  }

  /** What makes the run's figures worth anything, whatever the backend. */
  private static void checkRun(Run run) {
    assertThat(run.wrong()).as("values of another key").isZero();
    assertThat(run.failed()).as("gets that failed").isZero();
    assertThat(run.writes()).as("writes after the first version; writer: %s", run.writerOutput()).isGreaterThanOrEqualTo(KEYS);
    assertThat(run.serverGets()).as("gets sent to the servers: the near cache answers most reads").isLessThan(run.reads() / 2);
    assertThat(run.clockInversions()).as("stale reads begun before the confirmation by the wall clock (a clock step)").isZero();
    assertThat(run.clockStepMicros()).as("the wall clock's step against nanoTime during the run, µs").isLessThan(CLOCK_STEP_MICROS);
    assertThat(run.beyondRing()).as("stale reads older than the confirmation times kept").isZero();
  }

  private static void report(String row, Run run) throws IOException {
    System.out.println("[near cache staleness] " + row);
    Path file = Path.of("target", "near-cache-staleness.md");
    Files.createDirectories(file.getParent());
    if (REPORT_STARTED.compareAndSet(false, true)) { // one table per run of the class
      Files.write(file, List.of(
          "| backend | entries live | reads | stale reads | p50 | p99 | max | answered by the near cache | longest get | longest stall |",
          "|---|---|---|---|---|---|---|---|---|---|"));
    }
    Files.write(file, List.of(row), StandardOpenOption.APPEND);
    System.out.println("[near cache staleness] writer: " + run.writerOutput());
  }

  /** One run: the writer process, and {@value #READERS} reading threads here. */
  private static Run run(CacheFleet fleet, Backend backend, NearCacheOptions near) throws Exception {
    Path file = Files.createTempFile("near-cache-staleness", ".bin");
    CountingBackend counted = new CountingBackend(backend);
    Process writer = null;
    List<String> output = new CopyOnWriteArrayList<>();
    try (ConfirmedVersions confirmed = ConfirmedVersions.map(file, KEYS);
        AsyncCacheClient<String> client =
            CacheFleet.ready(
                ShardwiseClient.builder()
                    .backend(counted)
                    .servers(fleet.serverList(fleet.size()))
                    .timeout(CacheFleet.CLIENT_TIMEOUT)
                    .codec(Codecs.utf8())
                    .nearCache(near)
                    .build())) {
      writer = startWriter(fleet, file, output);
      awaitLine(writer, output, "READY");
      Reader[] readers = new Reader[READERS];
      AtomicBoolean running = new AtomicBoolean(true);
      List<Thread> threads = new ArrayList<>();
      int serverGetsBefore = sum(counted);
      for (int t = 0; t < READERS; t++) {
        readers[t] = new Reader(client.sync(), confirmed, t, running);
        Thread thread = new Thread(readers[t], "near-reader-" + t);
        threads.add(thread);
      }
      StallWatch watch = new StallWatch(running);
      Thread watchThread = new Thread(watch, "stall-watch");
      long wall0 = ConfirmedVersions.wallMicros();
      long nano0 = System.nanoTime();
      watchThread.start();
      threads.forEach(Thread::start);
      TimeUnit.SECONDS.sleep(RUN_SECONDS);
      running.set(false);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(30));
      }
      watchThread.join(1000);
      long clockStep =
          Math.abs((ConfirmedVersions.wallMicros() - wall0) - (System.nanoTime() - nano0) / 1000) + watch.clockStepMicros;
      int serverGets = sum(counted) - serverGetsBefore;
      long writes = stopWriter(writer, output);
      Histogram all = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
      long reads = 0;
      long stale = 0;
      long failed = 0;
      long wrong = 0;
      long beyondRing = 0;
      long inversions = 0;
      long longestGet = 0;
      Reader worst = readers[0];
      for (Reader r : readers) {
        all.add(r.staleness);
        reads += r.reads;
        stale += r.stale;
        failed += r.failed;
        wrong += r.wrong;
        beyondRing += r.beyondRing;
        inversions += r.inversions;
        longestGet = Math.max(longestGet, r.longestGetNanos / 1000);
        if (r.worstMicros > worst.worstMicros) {
          worst = r;
        }
      }
      return new Run(
          all, reads, stale, failed, wrong, beyondRing, inversions, serverGets, longestGet,
          watch.longestLateNanos / 1000, clockStep, worst.worstRead, writes, List.copyOf(output));
    } finally {
      if (writer != null) {
        writer.destroyForcibly();
      }
      Files.deleteIfExists(file);
    }
  }

  private static int sum(CountingBackend counted) {
    return counted.otherCalls().values().stream().mapToInt(Integer::intValue).sum();
  }

  /** One reading thread: random keys, each read checked against the confirmations before it. */
  private static final class Reader implements Runnable {
    final CacheClient<String> client;
    final ConfirmedVersions confirmed;
    final SplittableRandom random;
    final AtomicBoolean running;
    final Histogram staleness = new Histogram(TimeUnit.MINUTES.toMicros(10), 3);
    long reads;
    long stale;
    long failed;
    long wrong;
    long beyondRing;
    long inversions;
    long longestGetNanos;
    long worstMicros = -1;
    String worstRead = "none";

    Reader(CacheClient<String> client, ConfirmedVersions confirmed, int seed, AtomicBoolean running) {
      this.client = client;
      this.confirmed = confirmed;
      this.random = new SplittableRandom(seed * 7919L + 17);
      this.running = running;
    }

    @Override
    public void run() {
      while (running.get()) {
        int i = random.nextInt(KEYS);
        long latest = confirmed.latest(i);
        long startMicros = ConfirmedVersions.wallMicros();
        long startNanos = System.nanoTime();
        String value;
        try {
          value = client.get(NearCacheWriterMain.key(i));
        } catch (RuntimeException e) {
          failed++;
          continue;
        }
        longestGetNanos = Math.max(longestGetNanos, System.nanoTime() - startNanos);
        reads++;
        long version = version(i, value);
        if (version < 0) {
          wrong++;
        } else if (version < latest) {
          check(i, version, latest, startMicros);
        }
      }
    }

    /** A read of key {@code i} began at {@code startMicros} returned {@code version}, older than {@code latest}. */
    private void check(int i, long version, long latest, long startMicros) {
      stale++;
      long next = version + 1;
      if (latest - next >= ConfirmedVersions.RING) {
        beyondRing++;
        next = latest - ConfirmedVersions.RING + 1; // a lower bound of its staleness
      }
      long micros = startMicros - confirmed.confirmedAtMicros(i, next);
      if (micros < 0) {
        inversions++;
        return;
      }
      staleness.recordValue(Math.min(micros, staleness.getHighestTrackableValue()));
      if (micros > worstMicros) {
        worstMicros = micros;
        worstRead = String.format(
            "%s returned version %d, %d µs after version %d was confirmed (latest confirmed before the read: %d)",
            NearCacheWriterMain.key(i), version, micros, next, latest);
      }
    }

    /** The version in a value of key {@code i}; 0 for none yet, -1 for another key's value. */
    private static long version(int i, String value) {
      if (value == null) {
        return 0;
      }
      String prefix = NearCacheWriterMain.key(i) + "|";
      return value.startsWith(prefix) ? Long.parseLong(value.substring(prefix.length())) : -1;
    }
  }

  /**
   * Wakes every {@value #WATCH_MILLIS} ms and notes how late: this process's stalls (a collection
   * pause, or its threads not scheduled), and any step of the wall clock against {@code nanoTime}.
   */
  private static final class StallWatch implements Runnable {
    final AtomicBoolean running;
    volatile long longestLateNanos;
    volatile long clockStepMicros;

    StallWatch(AtomicBoolean running) {
      this.running = running;
    }

    @Override
    public void run() {
      long last = System.nanoTime();
      long offset = ConfirmedVersions.wallMicros() - last / 1000;
      while (running.get()) {
        try {
          Thread.sleep(WATCH_MILLIS);
        } catch (InterruptedException e) {
          return;
        }
        long now = System.nanoTime();
        longestLateNanos = Math.max(longestLateNanos, now - last - TimeUnit.MILLISECONDS.toNanos(WATCH_MILLIS));
        last = now;
        long step = Math.abs(ConfirmedVersions.wallMicros() - now / 1000 - offset);
        clockStepMicros = Math.max(clockStepMicros, step);
      }
    }
  }

  /** Drops the servers' key notices before they reach the near cache: the check that the test can fail. */
  private static final class KeyNoticesIgnored extends ForwardingBackend {
    KeyNoticesIgnored(Backend delegate) {
      super(delegate);
    }

    @Override
    public void trackReads(Invalidations invalidations) {
      delegate().trackReads(new Invalidations() {
        @Override
        public void keys(Collection<String> keys) {
          // ignored
        }

        @Override
        public void all(String reason) {
          invalidations.all(reason);
        }
      });
    }
  }

  private static Process startWriter(CacheFleet fleet, Path file, List<String> output) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process child =
        new ProcessBuilder(
                java,
                "-Xmx256m",
                "-cp",
                System.getProperty("java.class.path"),
                NearCacheWriterMain.class.getName(),
                fleet.kind(),
                fleet.serverList(fleet.size()),
                Integer.toString(KEYS),
                file.toString(),
                Integer.toString(WRITES_PER_SECOND))
            .redirectErrorStream(true)
            .start();
    Thread reader = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = in.readLine()) != null) {
          output.add(line);
        }
      } catch (IOException e) {
        // the child ended
      }
    }, "writer-output");
    reader.setDaemon(true);
    reader.start();
    return child;
  }

  private static void awaitLine(Process child, List<String> output, String prefix) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(CHILD_WAIT_SECONDS);
    while (output.stream().noneMatch(l -> l.startsWith(prefix))) {
      assertThat(System.nanoTime()).as("writer printed %s; output: %s", prefix, output).isLessThan(deadline);
      assertThat(child.isAlive()).as("writer alive; output: %s", output).isTrue();
      Thread.sleep(10);
    }
  }

  /** Tells the writer to stop; returns the writes it made after the first version of each key. */
  private static long stopWriter(Process writer, List<String> output) throws Exception {
    OutputStream commands = writer.getOutputStream();
    commands.write("stop\n".getBytes(StandardCharsets.UTF_8));
    commands.flush();
    assertThat(writer.waitFor(CHILD_WAIT_SECONDS, TimeUnit.SECONDS)).as("writer ended; output: %s", output).isTrue();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5); // its output read to the end
    while (output.stream().noneMatch(l -> l.startsWith("RESULT")) && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    String result = output.stream().filter(l -> l.startsWith("RESULT")).findFirst()
        .orElseThrow(() -> new AssertionError("no result from the writer; output: " + output));
    return Long.parseLong(result.replaceAll(".*writes=(\\d+).*", "$1"));
  }
}
