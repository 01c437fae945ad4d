package io.shardwise.benchmarks.e2e;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CachedValue;
import io.shardwise.client.Codecs;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.routing.Node;
import io.shardwise.spi.Backend;
import io.shardwise.spi.BatchReply;
import io.shardwise.spi.KeyRules;
import io.shardwise.spi.NodeConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
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
 * What the routing client costs per call, without network or servers: Shardwise's {@code
 * get}/{@code set} over a stub connection whose reply arrives (is completed by the calling
 * thread) right after the call returns, next to the stub alone. The difference is the client's
 * own work per request (validation, routing, codec, timeout, health accounting, future stages),
 * which {@link EndToEndBenchmark} sees as a lower ratio; {@code -t 2} or more adds the contention
 * of shared structures.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar ClientOverheadBenchmark -prof gc
 * java -jar benchmarks/target/benchmarks.jar ClientOverheadBenchmark -t 2
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ClientOverheadBenchmark {

  private static final int KEYS = 1024;
  private static final CachedValue STORED = Codecs.bytes().encode(new byte[100]);
  private static final byte[] VALUE = new byte[100];

  @Param({"1", "4"})
  int nodes;

  private final String[] keys = new String[KEYS];
  private final StubConnection stub = new StubConnection(Node.of("127.0.0.1", 1));
  private AsyncCacheClient<byte[]> client;

  /** Each thread's position in the key cycle. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    int advance() {
      next = (next + 1) & (KEYS - 1);
      return next;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    for (int i = 0; i < KEYS; i++) {
      keys[i] = String.format("e2e:key:%05d", i);
    }
    List<Node> servers = new ArrayList<>();
    for (int i = 0; i < nodes; i++) {
      servers.add(Node.of("127.0.0.1", 11211 + i));
    }
    client =
        ShardwiseClient.builder()
            .backend(new StubBackend())
            .servers(servers)
            .timeout(Duration.ofSeconds(1))
            .codec(Codecs.bytes())
            .build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    client.close();
  }

  /** The stub connection alone: a future created, completed and joined. */
  @Benchmark
  public Object stubGet(Cursor cursor) {
    CompletableFuture<CachedValue> reply = stub.get(keys[cursor.advance()]);
    StubConnection.reply(STORED);
    return reply.join();
  }

  /** Shardwise's {@code get} over the stub, decoding included. */
  @Benchmark
  public Object shardwiseGet(Cursor cursor) {
    CompletableFuture<byte[]> reply = client.get(keys[cursor.advance()]);
    StubConnection.reply(STORED);
    return reply.join();
  }

  /** The stub connection alone, for a set. */
  @Benchmark
  public Object stubSet(Cursor cursor) {
    CompletableFuture<Void> reply = stub.set(keys[cursor.advance()], STORED, Duration.ZERO);
    StubConnection.reply(null);
    return reply.join();
  }

  /** Shardwise's {@code set} over the stub, encoding included. */
  @Benchmark
  public Object shardwiseSet(Cursor cursor) {
    CompletableFuture<Void> reply = client.set(keys[cursor.advance()], VALUE, Duration.ZERO);
    StubConnection.reply(null);
    return reply.join();
  }

  /** A backend of stub connections with memcached's key rules. */
  static final class StubBackend implements Backend {
    @Override
    public String name() {
      return "stub";
    }

    @Override
    public NodeConnection connect(Node node, java.time.Duration requestTimeout) {
      return new StubConnection(node);
    }

    @Override
    public java.time.Duration defaultRequestTimeout() {
      return java.time.Duration.ofMillis(250);
    }

    @Override
    public KeyRules keyRules() {
      return KeyRules.MEMCACHED;
    }

    @Override
    public int defaultMaxValueBytes() {
      return 1024 * 1024;
    }

    @Override
    public boolean storesFlags() {
      return true;
    }

    @Override
    public void close() {}
  }

  /**
   * A connection whose every request returns a pending future, which the calling thread then
   * completes with {@link #reply}: the reply arrives after the call returned, as from a server.
   */
  static final class StubConnection implements NodeConnection {
    private static final ThreadLocal<CompletableFuture<Object>> PENDING = new ThreadLocal<>();

    private final Node node;

    StubConnection(Node node) {
      this.node = node;
    }

    /** Completes this thread's last request with {@code value}. */
    static void reply(Object value) {
      PENDING.get().complete(value);
    }

    @SuppressWarnings("unchecked") // the caller completes it with a value of the request's type
    private static <T> CompletableFuture<T> pending() {
      CompletableFuture<Object> f = new CompletableFuture<>();
      PENDING.set(f);
      return (CompletableFuture<T>) (CompletableFuture<?>) f;
    }

    @Override
    public Node node() {
      return node;
    }

    @Override
    public CompletableFuture<CachedValue> get(String key) {
      return pending();
    }

    @Override
    public CompletableFuture<BatchReply<CachedValue>> getMulti(List<String> keys) {
      return pending();
    }

    @Override
    public CompletableFuture<Void> set(String key, CachedValue value, Duration ttl) {
      return pending();
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> setMulti(
        Map<String, CachedValue> values, Duration ttl) {
      return pending();
    }

    @Override
    public CompletableFuture<Boolean> add(String key, CachedValue value, Duration ttl) {
      return pending();
    }

    @Override
    public CompletableFuture<Boolean> delete(String key) {
      return pending();
    }

    @Override
    public CompletableFuture<BatchReply<Boolean>> deleteMulti(List<String> keys) {
      return pending();
    }

    @Override
    public CompletableFuture<Boolean> touch(String key, Duration ttl) {
      return pending();
    }

    @Override
    public CompletableFuture<Long> incr(String key, long delta, long initial, Duration ttl) {
      return pending();
    }

    @Override
    public CompletableFuture<Duration> ping() {
      return pending();
    }

    @Override
    public CompletableFuture<Void> flushAll() {
      return pending();
    }

    @Override
    public void close() {}
  }
}
