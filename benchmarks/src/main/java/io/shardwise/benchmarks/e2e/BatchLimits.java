package io.shardwise.benchmarks.e2e;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.CacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.spi.Backend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * How long a batch of N keys takes on one local server, sent as one request (the batch size set
 * to N, a timeout of a minute so that nothing times out) and in parts of the default batch size:
 * what the largest batch is that one request completes within the timeout, and what parts cost.
 * Prints a Markdown table of the median and largest time over the repetitions.
 *
 * <p>Exit codes: 0 done; 1 a batch sent in parts did not store, read or delete every key; 2 bad
 * arguments. Keys that failed in a batch sent as one request are counted in the table.
 */
@Command(
    name = "BatchLimits",
    description = {
      "Times setMulti, getMulti and deleteMulti of growing batches on one local memcached and one"
          + " local Redis, as one request and in parts, and prints a Markdown table."
    })
public final class BatchLimits implements Callable<Integer> {

  @Option(
      names = {"-h", "--help"},
      usageHelp = true,
      description = "Show this help message and exit.")
  boolean help;

  @Option(
      names = "--sizes",
      split = ",",
      defaultValue = "1000,5000,10000,25000,50000,100000,200000",
      description = "Batch sizes in keys (default ${DEFAULT-VALUE}).")
  List<Integer> sizes;

  @Option(
      names = "--repetitions",
      defaultValue = "5",
      description = "Runs per size and mode; the median and the largest are shown (default ${DEFAULT-VALUE}).")
  int repetitions;

  @Option(
      names = "--value-bytes",
      defaultValue = "100",
      description = "Size of every value (default ${DEFAULT-VALUE}).")
  int valueBytes;

  @Option(
      names = "--batch-size",
      defaultValue = "1000",
      description = "The batch size of the in-parts mode (default ${DEFAULT-VALUE}).")
  int batchSize;

  private static final Duration NO_TIMEOUT = Duration.ofMinutes(1);

  public static void main(String[] args) {
    System.exit(new CommandLine(new BatchLimits()).execute(args));
  }

  @Override
  public Integer call() {
    System.out.println(
        "| backend | keys | request | setMulti ms (median, max) | getMulti ms | deleteMulti ms |");
    System.out.println("|---|---:|---|---:|---:|---:|");
    try (Servers servers = new Servers()) {
      String memcached = Servers.serverList(servers.memcached(1));
      String redis = servers.redis().address();
      for (int size : sizes) {
        for (boolean inParts : new boolean[] {false, true}) {
          if (!run("memcached", memcached, ShardwiseContender::memcachedBackend, size, inParts)
              || !run("redis", redis, ShardwiseContender::redisBackend, size, inParts)) {
            return 1;
          }
        }
      }
    }
    return 0;
  }

  private boolean run(String kind, String server, Function<Duration, Backend> backend, int size, boolean inParts) {
    Map<String, byte[]> values = new LinkedHashMap<>();
    Random random = new Random(size);
    for (int i = 0; i < size; i++) {
      byte[] value = new byte[valueBytes];
      random.nextBytes(value);
      values.put("limits:" + i, value);
    }
    List<String> keys = new ArrayList<>(values.keySet());
    long[] sets = new long[repetitions];
    long[] gets = new long[repetitions];
    long[] deletes = new long[repetitions];
    long[] errors = new long[3];
    try (AsyncCacheClient<byte[]> client =
        ShardwiseClient.builder()
            .backend(backend.apply(NO_TIMEOUT))
            .servers(server)
            .timeout(NO_TIMEOUT)
            .batchSize(inParts ? batchSize : size)
            .codec(Codecs.bytes())
            .build()) {
      CacheClient<byte[]> sync = client.sync();
      client.ping(client.nodes().get(0)).join();
      sync.setMulti(values, Duration.ZERO); // warms the connection and the server up
      sync.deleteMulti(keys);
      for (int r = 0; r < repetitions; r++) {
        long start = System.nanoTime();
        MultiResult<Boolean> stored = sync.setMulti(values, Duration.ZERO);
        sets[r] = System.nanoTime() - start;
        start = System.nanoTime();
        MultiResult<byte[]> read = sync.getMulti(keys);
        gets[r] = System.nanoTime() - start;
        start = System.nanoTime();
        MultiResult<Boolean> deleted = sync.deleteMulti(keys);
        deletes[r] = System.nanoTime() - start;
        errors[0] += stored.errors().size();
        errors[1] += read.errors().size() + read.misses().size();
        errors[2] += deleted.errors().size();
        for (MultiResult<?> result : List.of(stored, read, deleted)) {
          result.errors().values().stream()
              .findFirst()
              .ifPresent(e -> System.err.printf("%s %d keys (%s): %s%n", kind, size, inParts ? "parts" : "one", e.getMessage()));
        }
      }
    }
    System.out.printf(
        "| %s | %d | %s | %s | %s | %s |%n",
        kind,
        size,
        inParts ? "parts of " + batchSize : "one",
        millis(sets, errors[0]),
        millis(gets, errors[1]),
        millis(deletes, errors[2]));
    return !inParts || errors[0] + errors[1] + errors[2] == 0;
  }

  /** The median and largest of {@code nanos} in ms, and the keys that failed over all runs, if any. */
  private static String millis(long[] nanos, long failed) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    return String.format("%.1f, %.1f", sorted[sorted.length / 2] / 1e6, sorted[sorted.length - 1] / 1e6)
        + (failed == 0 ? "" : " (" + failed + " keys failed)");
  }
}
