package io.shardwise.benchmarks;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.core.BoundedOptions;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
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
 * The cost of bounded loads on the hot path: a routed {@code get} through the client with bounded
 * loads off, on for hot keys only (the default: a sketch update per read, the selector for hot
 * keys) and on for every key (the selector on every read), over 8 nodes whose connections answer
 * at once from memory. Keys follow a Zipf(1.1) distribution over 10,000 keys, so some reads spill.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar BoundedReadBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class BoundedReadBenchmark {

  @Param({"off", "hot", "all"})
  String bounded;

  private static final int STREAM = 1 << 16;
  private final String[] stream = new String[STREAM];
  private int next;
  private AsyncCacheClient<byte[]> client;

  @Setup
  public void setUp() {
    BoundedOptions options =
        switch (bounded) {
          case "off" -> BoundedOptions.disabled();
          case "hot" -> BoundedOptions.builder().enabled(true).build();
          default -> BoundedOptions.builder().enabled(true).scope(BoundedOptions.Scope.ALL).build();
        };
    client =
        ShardwiseClient.builder()
            .backend(new MemoryBackend())
            .servers("10.0.0.1:11211,10.0.0.2:11211,10.0.0.3:11211,10.0.0.4:11211,"
                + "10.0.0.5:11211,10.0.0.6:11211,10.0.0.7:11211,10.0.0.8:11211")
            .bounded(options)
            .codec(Codecs.bytes())
            .build();
    int keys = 10_000;
    double[] cdf = new double[keys];
    double sum = 0;
    for (int r = 1; r <= keys; r++) {
      sum += 1 / Math.pow(r, 1.1);
      cdf[r - 1] = sum;
    }
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < STREAM; i++) {
      double u = random.nextDouble() * sum;
      int rank = java.util.Arrays.binarySearch(cdf, u);
      stream[i] = "user:" + (rank < 0 ? -rank - 1 : rank);
    }
    for (int i = 0; i < keys; i++) {
      client.set("user:" + i, new byte[100], Duration.ZERO).join();
    }
  }

  @TearDown
  public void tearDown() {
    client.close();
  }

  @Benchmark
  public byte[] routedGet() {
    return client.get(stream[next++ & (STREAM - 1)]).join();
  }

  /** Connections that answer at once from a map: the client's own work is all that is timed. */
  static final class MemoryBackend implements Backend {
    @Override
    public String name() {
      return "memory";
    }

    @Override
    public NodeConnection connect(Node node, Duration requestTimeout) {
      return new MemoryConnection(node);
    }

    @Override
    public Duration defaultRequestTimeout() {
      return Duration.ofSeconds(1);
    }

    @Override
    public KeyRules keyRules() {
      return KeyRules.MEMCACHED;
    }

    @Override
    public int defaultMaxValueBytes() {
      return 1 << 20;
    }

    @Override
    public boolean storesFlags() {
      return true;
    }

    @Override
    public void close() {}
  }

  static final class MemoryConnection implements NodeConnection {
    private final Node node;
    private final Map<String, CachedValue> data = new java.util.concurrent.ConcurrentHashMap<>();

    MemoryConnection(Node node) {
      this.node = node;
    }

    @Override
    public Node node() {
      return node;
    }

    @Override
    public CompletableFuture<CachedValue> get(String key) {
      return CompletableFuture.completedFuture(data.get(key));
    }

    @Override
    public CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys) {
      Map<String, CachedValue> out = new HashMap<>();
      for (String k : keys) {
        CachedValue v = data.get(k);
        if (v != null) {
          out.put(k, v);
        }
      }
      return CompletableFuture.completedFuture(BatchReply.of(out));
    }

    @Override
    public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
      data.put(key, value);
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> setMulti(Map<String, CachedValue> values, Duration ttl) {
      data.putAll(values);
      Map<String, Boolean> stored = new HashMap<>();
      values.keySet().forEach(k -> stored.put(k, Boolean.TRUE));
      return CompletableFuture.completedFuture(BatchReply.of(stored));
    }

    @Override
    public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
      return CompletableFuture.completedFuture(data.putIfAbsent(key, value) == null);
    }

    @Override
    public CompletableFuture<Boolean> delete(String key) {
      return CompletableFuture.completedFuture(data.remove(key) != null);
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys) {
      Map<String, Boolean> out = new HashMap<>();
      for (String k : keys) {
        out.put(k, data.remove(k) != null);
      }
      return CompletableFuture.completedFuture(BatchReply.of(out));
    }

    @Override
    public CompletableFuture<Boolean> touch(String key, Duration ttl) {
      return CompletableFuture.completedFuture(data.containsKey(key));
    }

    @Override
    public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
      return CompletableFuture.completedFuture(initial);
    }

    @Override
    public CompletableFuture<Duration> ping() {
      return CompletableFuture.completedFuture(Duration.ZERO);
    }

    @Override
    public CompletableFuture<Void> flushAll() {
      data.clear();
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void close() {}
  }
}
