package io.shardwise.benchmarks;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import io.shardwise.ketama.KetamaHasher;
import io.shardwise.routing.Murmur3;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.DefaultHashAlgorithm;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Key hashing alone: Shardwise's allocation-free MD5 word and Murmur3 against the library calls
 * they replace ({@code MessageDigest} MD5 as spymemcached calls it, Guava's {@code murmur3_128}).
 * This is the benchmark behind writing those two hashes by hand.
 *
 * <pre>
 * java -jar benchmarks/target/benchmarks.jar HashBenchmark -prof gc
 * </pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class HashBenchmark {

  private static final int KEYS = 4096;
  private final String[] keys = new String[KEYS];
  private int next;
  private final HashFunction guavaMurmur = Hashing.murmur3_128();

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(42);
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "user:" + random.nextLong();
    }
  }

  private String key() {
    return keys[next++ & (KEYS - 1)];
  }

  @Benchmark
  public long shardwiseMd5Word() {
    return KetamaHasher.INSTANCE.hash(key());
  }

  @Benchmark
  public long jdkMd5AsSpymemcached() {
    byte[] d = DefaultHashAlgorithm.computeMd5(key());
    return (d[3] & 0xFFL) << 24 | (d[2] & 0xFFL) << 16 | (d[1] & 0xFFL) << 8 | (d[0] & 0xFFL);
  }

  @Benchmark
  public long shardwiseMurmur3() {
    return Murmur3.INSTANCE.hash(key());
  }

  @Benchmark
  public long guavaMurmur3() {
    return guavaMurmur.hashString(key(), StandardCharsets.UTF_8).asLong();
  }
}
