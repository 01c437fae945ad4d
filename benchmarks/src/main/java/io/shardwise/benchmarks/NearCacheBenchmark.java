package io.shardwise.benchmarks;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.shardwise.client.CachedValue;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.internal.near.NearCache;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The near cache's read path with its counts (a {@code LongAdder} per hit or miss, the epoch check,
 * the refresh-ahead check of the entry's age, Caffeine's eviction listener for the eviction counts)
 * against a bare Caffeine cache built the same way without them: what the counting and the checks
 * cost a get answered locally.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class NearCacheBenchmark {

  private static final int KEYS = 1024;

  private final String[] keys = new String[KEYS];
  /** Whether the hits check each entry's age for refresh-ahead (a clock read per hit once served twice). */
  @Param({"true", "false"})
  public boolean refreshAhead;

  private NearCache near;
  private ScheduledExecutorService refreshThread;
  private Cache<String, CachedValue> bare;
  private int i;

  @Setup
  public void setUp() {
    near = new NearCache(NearCacheOptions.defaults().withHotOnly(false).withRefreshAhead(refreshAhead), true);
    refreshThread = Executors.newSingleThreadScheduledExecutor();
    near.refreshWith(refreshThread, due -> {}); // the hit path checks each entry's age, as in a client
    bare =
        Caffeine.newBuilder()
            .expireAfterWrite(Duration.ofMinutes(1))
            .maximumWeight(NearCacheOptions.DEFAULT_MAX_BYTES)
            .weigher((String k, CachedValue v) -> 2 * k.length() + v.length() + NearCacheOptions.ENTRY_OVERHEAD_BYTES)
            .build();
    for (int k = 0; k < KEYS; k++) {
      keys[k] = "user:" + k;
      CachedValue value = CachedValue.of(new byte[100], 0);
      near.offer(near.ticket(keys[k]), value);
      bare.put(keys[k], value);
    }
  }

  @TearDown
  public void tearDown() {
    refreshThread.shutdownNow();
  }

  private String next() {
    i = (i + 1) & (KEYS - 1);
    return keys[i];
  }

  /** A get answered by the near cache: lookup, epoch check, hit count. */
  @Benchmark
  public CachedValue nearCacheHit() {
    return near.get(next());
  }

  /** The same lookup in a bare Caffeine cache: no epoch, no counts, no listener. */
  @Benchmark
  public CachedValue bareCaffeineHit() {
    return bare.getIfPresent(next());
  }

  /** A get the near cache cannot answer: lookup and miss count. */
  @Benchmark
  public CachedValue nearCacheMiss() {
    return near.get("absent:" + (next().length()));
  }

  /** This client's write of a key not kept: the stripe's generation moved, nothing removed or counted. */
  @Benchmark
  public void invalidateAbsent() {
    near.invalidate("absent");
  }
}
