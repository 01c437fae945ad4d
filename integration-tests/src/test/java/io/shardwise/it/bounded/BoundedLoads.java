package io.shardwise.it.bounded;

import static org.assertj.core.api.Assertions.assertThat;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.ClientMetrics;
import io.shardwise.client.Codecs;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.RouterSpec;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Bounded-load reads on 8 real servers: a seeded Zipf(1.1) stream of reads over 10,000 keys, with
 * and without bounded loads, and reads racing writes and deletes of hot keys. The figures go to
 * {@code target/bounded-<backend>.md}.
 */
abstract class BoundedLoads {

  static final int KEYS = 10_000;
  static final int READS = 60_000;
  static final double ALPHA = 1.1;
  static final long SLOT_NANOS = 100_000_000L; // the window's resolution
  static final int WINDOW_SLOTS = 10; // a 1 s window
  /** Time measured after the warm-up: this many full windows and more. */
  static final Duration MEASURED = Duration.ofSeconds(8);

  private static final Map<String, List<String>> REPORT = new LinkedHashMap<>();

  abstract ServerFleet<? extends ServerHandle> fleet();

  abstract Backend newBackend();

  abstract String backendName();

  AsyncCacheClient<String> client;

  /** Where the last read on this thread was sent instead of its primary (set by the metrics). */
  private static final ThreadLocal<Node> SPILLED_TO = new ThreadLocal<>();

  /** Requests sent per node per 100 ms slot of System.nanoTime(), as the client's load window counts them. */
  final Map<Long, long[]> requestsBySlot = new java.util.concurrent.ConcurrentHashMap<>();
  /** The part of them that keeps spilled copies: fallback reads of the primary, copies written. */
  final Map<Long, long[]> upkeepBySlot = new java.util.concurrent.ConcurrentHashMap<>();
  static final java.util.Set<String> UPKEEP = java.util.Set.of("getFallback", "getMultiFallback", "addCopy", "deleteCopy");

  @BeforeEach
  void reset() {
    fleet().restoreAll();
    fleet().flushAll();
  }

  @AfterEach
  void close() {
    if (client != null) {
      client.close();
    }
  }

  CacheClient<String> client(BoundedOptions bounded) {
    client =
        ShardwiseClient.builder()
            .backend(newBackend())
            .servers(String.join(",", fleet().addresses()))
            .router(RouterSpec.of("ketama"))
            .timeout(Duration.ofSeconds(1))
            .bounded(bounded)
            .metrics(
                new ClientMetrics() {
                  @Override
                  public void redirected(Node primary, Node to, String reason) {
                    if (reason.equals("spill")) {
                      SPILLED_TO.set(to);
                    }
                  }

                  @Override
                  public void request(Node node, String operation, long latencyNanos, Throwable failure) {
                    long slot = (System.nanoTime() - latencyNanos) / SLOT_NANOS;
                    int i = client.nodes().indexOf(node);
                    long[] counts = requestsBySlot.computeIfAbsent(slot, x -> new long[fleet().size()]);
                    synchronized (counts) {
                      counts[i]++;
                    }
                    if (UPKEEP.contains(operation)) {
                      long[] upkeep = upkeepBySlot.computeIfAbsent(slot, x -> new long[fleet().size()]);
                      synchronized (upkeep) {
                        upkeep[i]++;
                      }
                    }
                  }
                })
            .codec(Codecs.utf8())
            .build();
    return client.sync();
  }

  static String key(int i) {
    return "zipf:" + i;
  }

  /**
   * Per-window figures of one run; {@code nearestRatio} and {@code nearestAllowed}: the busiest
   * node over the mean in the window nearest its bound, and that bound.
   */
  record Run(
      double worstPeakOverMean,
      double medianPeakOverMean,
      double nearestRatio,
      double nearestAllowed,
      double worstWithUpkeep,
      double upkeepFraction,
      double spillFraction,
      double hitRate,
      int windows) {}

  /**
   * Sends the reads one after the other, then measures every full 1 s window (10 slots of the
   * load window's 100 ms, on the same clock) that starts after {@code warmup}: the busiest node's
   * requests over the mean. Every request counts, as in the client's own load window: reads, the
   * primary reads of spilled reads that found no copy, and the copies written.
   */
  Run run(CacheClient<String> sync, int[] stream, double epsilon, Duration warmup) {
    int n = client.nodes().size();
    requestsBySlot.clear();
    upkeepBySlot.clear();
    long startSlot = System.nanoTime() / SLOT_NANOS;
    long spills = 0;
    long hits = 0;
    long reads = 0;
    // At least one pass over the stream, and long enough for MEASURED full windows after the
    // warm-up however fast the machine is.
    long until = System.nanoTime() + warmup.toNanos() + MEASURED.toNanos();
    for (int pass = 0; pass == 0 || System.nanoTime() < until; pass++) {
    for (int k : stream) {
      if (pass > 0 && System.nanoTime() >= until) {
        break;
      }
      reads++;
      String key = key(k);
      SPILLED_TO.remove();
      String value = sync.get(key);
      if (SPILLED_TO.get() != null) {
        spills++;
      }
      if (value != null) {
        hits++;
        assertThat(value).isEqualTo("value-" + k);
      }
    }
    }
    long endSlot = System.nanoTime() / SLOT_NANOS; // partial: excluded
    List<Double> ratios = new ArrayList<>();
    double nearestRatio = 0;
    double nearestAllowed = 1;
    double worstWithUpkeep = 0;
    long allRequests = 0;
    long upkeepRequests = 0;
    long firstMeasured = startSlot + warmup.toNanos() / SLOT_NANOS;
    for (long first = firstMeasured; first + WINDOW_SLOTS <= endSlot; first++) {
      long[] window = new long[n];
      long[] capped = new long[n];
      long total = 0;
      for (long slot = first; slot < first + WINDOW_SLOTS; slot++) {
        long[] counts = requestsBySlot.getOrDefault(slot, new long[n]);
        long[] upkeep = upkeepBySlot.getOrDefault(slot, new long[n]);
        for (int i = 0; i < n; i++) {
          window[i] += counts[i];
          capped[i] += counts[i] - upkeep[i];
          total += counts[i];
        }
      }
      if (total == 0) {
        continue;
      }
      long peak = 0;
      long peakAll = 0;
      for (int i = 0; i < n; i++) {
        peak = Math.max(peak, capped[i]);
        peakAll = Math.max(peakAll, window[i]);
      }
      double mean = total / (double) n;
      // Requests the cap governs (reads, writes) on the busiest node, over the mean of all.
      ratios.add(peak / mean);
      worstWithUpkeep = Math.max(worstWithUpkeep, peakAll / mean);
      // A node takes a request only while under ceil((1 + eps) * (t + 1) / n), t being the total of
      // the client's own window when it decides: the 1 s ending in that request's slot. That window
      // is this one only for requests of its last slot; one of an earlier slot saw a window that
      // began earlier, and whose total is larger when the rate fell since (a loaded machine's
      // does). So the busiest node ends this window with at most (1 + eps) * (T + 1) / n + 1, T the
      // largest total of a window ending in one of its slots.
      long largest = 0;
      for (long slot = first; slot < first + WINDOW_SLOTS; slot++) {
        largest = Math.max(largest, totalOfWindowEndingIn(slot));
      }
      double allowed = ((1 + epsilon) * (largest + 1) / n + 1) / mean;
      if (peak / mean / allowed > nearestRatio / nearestAllowed) {
        nearestRatio = peak / mean;
        nearestAllowed = allowed;
      }
    }
    for (long slot = startSlot; slot <= endSlot; slot++) {
      for (long c : requestsBySlot.getOrDefault(slot, new long[n])) {
        allRequests += c;
      }
      for (long c : upkeepBySlot.getOrDefault(slot, new long[n])) {
        upkeepRequests += c;
      }
    }
    List<Double> sorted = new ArrayList<>(ratios);
    sorted.sort(null);
    return new Run(
        sorted.isEmpty() ? 0 : sorted.get(sorted.size() - 1),
        sorted.isEmpty() ? 0 : sorted.get(sorted.size() / 2),
        nearestRatio,
        nearestAllowed,
        worstWithUpkeep,
        upkeepRequests / (double) Math.max(1, allRequests),
        spills / (double) reads,
        hits / (double) reads,
        ratios.size());
  }

  /** Requests to all nodes in the {@link #WINDOW_SLOTS} slots ending in {@code last}. */
  private long totalOfWindowEndingIn(long last) {
    long total = 0;
    for (long slot = last - WINDOW_SLOTS + 1; slot <= last; slot++) {
      for (long c : requestsBySlot.getOrDefault(slot, new long[0])) {
        total += c;
      }
    }
    return total;
  }

  void populate(CacheClient<String> sync) {
    Map<String, String> values = new HashMap<>();
    for (int i = 0; i < KEYS; i++) {
      values.put(key(i), "value-" + i);
      if (values.size() == 1000) {
        assertThat(sync.setMulti(values, Duration.ZERO).errors()).isEmpty();
        values.clear();
      }
    }
  }

  @Test
  void boundedLoadsKeepTheBusiestNodeUnderItsCapOnAZipfStream() {
    int[] stream = io.shardwise.it.ZipfStream.of(KEYS, ALPHA, READS, 11);
    CacheClient<String> plain = client(BoundedOptions.disabled());
    populate(plain);
    Run off = run(plain, stream, 0.25, Duration.ZERO);
    close();
    fleet().flushAll();

    double epsilon = 0.25;
    BoundedOptions options = BoundedOptions.builder().enabled(true).epsilon(epsilon).build();
    CacheClient<String> boundedClient = client(options);
    populate(boundedClient);
    // The first spill TTL warms the copies up: a spilled read that finds none also reads the
    // primary, a request the cap does not govern. Measure after it.
    Run on = run(boundedClient, stream, epsilon, options.spillTtl());

    assertThat(off.worstPeakOverMean()).as("plain ring: the busiest node carries far more than the mean").isGreaterThan(1.5);
    assertThat(on.windows()).isPositive();
    assertThat(on.nearestRatio()).as("bounded: busiest node / mean in the 1 s window nearest its bound").isLessThanOrEqualTo(on.nearestAllowed());
    assertThat(on.hitRate()).isEqualTo(1.0);
    report(String.format(
        "| plain ring | busiest/mean per 1 s window: median %.2f, worst %.2f | spilled 0%% | hit rate %.1f%% |",
        off.medianPeakOverMean(), off.worstPeakOverMean(), 100 * off.hitRate()));
    report(String.format(
        "| bounded, epsilon %.2f, scope hot, after a %d s warm-up | busiest/mean per 1 s window: median %.3f, worst %.3f; nearest its bound %.3f (allowed %.3f); with the copies' upkeep (%.1f%% of requests) worst %.3f | spilled %.1f%% of reads | hit rate %.1f%% | %d windows |",
        epsilon, options.spillTtl().toSeconds(), on.medianPeakOverMean(), on.worstPeakOverMean(), on.nearestRatio(), on.nearestAllowed(),
        100 * on.upkeepFraction(), on.worstWithUpkeep(), 100 * on.spillFraction(), 100 * on.hitRate(), on.windows()));
    report("| load report at the end | " + client.loadReport().toString().replace("\n", " ") + " |");
  }

  @Test
  void readsUnderSpillNeverReturnAValueOlderThanACompletedWrite() throws Exception {
    CacheClient<String> sync =
        client(BoundedOptions.builder().enabled(true).epsilon(0.1).scope(BoundedOptions.Scope.HOT).hotThreshold(4).build());
    int hotKeys = 8;
    AtomicLong[] confirmed = new AtomicLong[hotKeys];
    for (int i = 0; i < hotKeys; i++) {
      confirmed[i] = new AtomicLong();
      sync.set("hot:" + i, "hot:" + i + "|0", Duration.ZERO);
    }
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicReference<String> problem = new AtomicReference<>();
    AtomicLong reads = new AtomicLong();
    AtomicLong misses = new AtomicLong();
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 6; t++) {
      int seed = t;
      Thread r = new Thread(() -> {
        SplittableRandom random = new SplittableRandom(seed);
        while (running.get()) {
          int i = random.nextInt(hotKeys);
          long min = confirmed[i].get();
          String v = sync.get("hot:" + i);
          reads.incrementAndGet();
          if (v == null) {
            misses.incrementAndGet();
            continue;
          }
          long version = Long.parseLong(v.substring(v.indexOf('|') + 1));
          if (!v.startsWith("hot:" + i + "|") || version < min) {
            problem.compareAndSet(null, "read " + v + " of hot:" + i + " after version " + min + " was confirmed");
          }
        }
      });
      r.setDaemon(true);
      readers.add(r);
      r.start();
    }
    SplittableRandom random = new SplittableRandom(99);
    long deadline = System.nanoTime() + 10_000_000_000L;
    long writes = 0;
    long version = 0;
    while (System.nanoTime() < deadline) {
      int i = random.nextInt(hotKeys);
      version++;
      if (random.nextInt(5) == 0) {
        sync.delete("hot:" + i);
      }
      sync.set("hot:" + i, "hot:" + i + "|" + version, Duration.ZERO);
      confirmed[i].set(version);
      writes++;
    }
    running.set(false);
    for (Thread r : readers) {
      r.join(5000);
    }
    long spilled = client.loadReport().nodes().stream().mapToLong(n -> n.spilledTo()).sum();
    assertThat(problem.get()).isNull();
    assertThat(spilled).as("reads that spilled").isPositive();
    report(String.format(
        "| correctness under spill (6 readers, 1 writer, 8 hot keys, 10 s) | %d reads, %d of them spilled, %d misses | %d writes and deletes | 0 old values |",
        reads.get(), spilled, misses.get(), writes));
  }

  void report(String row) {
    REPORT.computeIfAbsent(backendName(), b -> new ArrayList<>()).add(row);
    System.out.println("[bounded " + backendName() + "] " + row);
  }

  @AfterAll
  static void writeReport() {
    for (Map.Entry<String, List<String>> e : REPORT.entrySet()) {
      try {
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", "bounded-" + e.getKey() + ".md"), e.getValue());
      } catch (IOException x) {
        throw new UncheckedIOException(x);
      }
    }
  }
}
