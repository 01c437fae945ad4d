package io.shardwise.benchmarks.near;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.client.MultiResult;
import io.shardwise.core.NearCacheOptions;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.redis.RedisBackend;
import io.shardwise.spi.Backend;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerHandle;
import io.shardwise.testing.ServerMode;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Queue;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * What the near cache costs in heap, measured after full collections: a 1 GiB working set
 * (1,048,576 keys of 1,000 random bytes, on 5 local Redis or memcached servers) read once through a
 * client whose near cache admits every key and is bounded at 64 MiB, against the same process with
 * a client without it, and with the near cache emptied. Redis empties it with a {@code FLUSHALL
 * ASYNC} of one server, whose notice drops every entry. memcached sends no notice: one server is
 * restarted, and the lost connection, which spymemcached sees at the next request to that server
 * (gets of keys no one wrote, sent until a drop is counted), drops every entry. The causes of the
 * drops ({@code NearCacheStats.dropAlls}) are printed. memcached's near cache keeps an entry {@link
 * NearCacheOptions#MAX_MEMCACHED_STALENESS} at most, its longest bound, so that none expires before
 * the filled cache is measured.
 *
 * <pre>
 * mvn -B -o -q package -pl benchmarks -am -DskipTests
 * java -Xmx1g -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.near.NearCacheMemoryBenchmark
 * java -Xmx1g -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.near.NearCacheMemoryBenchmark --backend memcached
 * </pre>
 *
 * <p>Each state is measured as the live bytes of the heap's class histogram ({@code jcmd
 * GC.class_histogram}, through the DiagnosticCommand MBean, which runs a full collection first),
 * beside the heap used after {@code System.gc()} as {@code MemoryMXBean} reports it. The near
 * cache's entries are counted as instances of its entry class. Prints Markdown tables: the three
 * states, the classes whose bytes changed most, and each entry's cost against {@link
 * NearCacheOptions#ENTRY_OVERHEAD_BYTES}. Exit code 1 when the near cache takes more than its bound
 * plus its fixed parts (the 512 KiB generations, the 512 KiB hot-key sketch when only hot keys are
 * kept, and {@link #FIXED_BYTES} for the rest), or a read failed or returned a wrong value; 2 for
 * bad arguments.
 *
 * <p>Options: {@code --backend} ({@code redis}, or {@code memcached}), {@code --keys} (1048576),
 * {@code --value-bytes} (1000), {@code --max-mib} (64), {@code --threads} (8), {@code --in-flight}
 * (256 gets under way at most).
 */
public final class NearCacheMemoryBenchmark {

  private static final PrintStream out = System.out;
  private static final PrintStream err = System.err;
  private static final String ENTRY_CLASS = "io.shardwise.core.internal.near.NearEntry";
  /** The near cache's generations: 65,536 longs. */
  private static final long GENERATIONS_BYTES = 512 * 1024;
  /** Batches of the load under way at once: more time out on a loaded 2-core machine. */
  private static final int LOAD_BATCHES = 4;
  /**
   * What a near cache costs besides its entries, the tables that grow with them and its
   * generations, allowed in the bound: the classes it loads and Caffeine's buffers (about 0.6 MB
   * measured).
   */
  private static final long FIXED_BYTES = 1 << 20;
  private static final Pattern HISTOGRAM_ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");
  private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("^Total\\s+(\\d+)\\s+(\\d+)");

  private NearCacheMemoryBenchmark() {}

  /** The heap in one state: used after {@code System.gc()}, live bytes and the class histogram. */
  record Heap(String state, long usedAfterGc, long live, Map<String, long[]> classes) {
    long instances(String name) {
      return classes.getOrDefault(name, new long[2])[0];
    }
  }

  public static void main(String[] args) throws Exception {
    boolean memcached = false;
    int keys = 1 << 20;
    int valueBytes = 1000;
    long maxBytes = 64L << 20;
    int threads = 8;
    int inFlight = 256;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--backend" -> {
          String backend = args[++i];
          if (!backend.equals("redis") && !backend.equals("memcached")) {
            err.println("--backend is redis or memcached, not " + backend);
            System.exit(2);
          }
          memcached = backend.equals("memcached");
        }
        case "--keys" -> keys = Integer.parseInt(args[++i]);
        case "--value-bytes" -> valueBytes = Integer.parseInt(args[++i]);
        case "--max-mib" -> maxBytes = Long.parseLong(args[++i]) << 20;
        case "--threads" -> threads = Integer.parseInt(args[++i]);
        case "--in-flight" -> inFlight = Integer.parseInt(args[++i]);
        default -> {
          err.println("unknown argument " + args[i]);
          System.exit(2);
        }
      }
    }
    // Redis takes about 1.1 KB per 1,000-byte string and refuses writes past maxmemory; memcached
    // about 1.2 KB (a slab chunk of 1,184 bytes for these) and evicts past -m: a read of an evicted
    // key counts as failed.
    int serverMegabytes = (int) ((long) keys * (valueBytes + 200) * 3 / 2 / 5 >> 20) + 64;
    err.printf("starting 5 %s servers of %d MB; %,d keys of %,d bytes%n",
        memcached ? "memcached" : "Redis", serverMegabytes, keys, valueBytes);
    ServerFleet.Builder<? extends ServerHandle> servers5 =
        memcached ? ServerFleet.memcachedBuilder() : ServerFleet.redisBuilder();
    try (ServerFleet<? extends ServerHandle> fleet =
        servers5.servers(5).memoryMegabytes(serverMegabytes).mode(ServerMode.LOCAL).build().start()) {
      String servers = String.join(",", fleet.addresses());
      boolean onMemcached = memcached;
      Supplier<Backend> backend = () -> onMemcached ? MemcachedBackend.create() : RedisBackend.create();
      long started = System.nanoTime();
      load(backend, servers, keys, valueBytes);
      err.printf("loaded in %d s%n", secondsSince(started));

      List<Heap> heaps = new ArrayList<>();
      Map<String, Long> emptiedBy;
      long failures;
      try (AsyncCacheClient<byte[]> off = client(backend, servers, NearCacheOptions.off())) {
        failures = readAll(off, keys, valueBytes, threads, inFlight, "near cache off");
        heaps.add(measure("client without a near cache"));
      }
      NearCacheOptions options = NearCacheOptions.defaults().withHotOnly(false).withMaxBytes(maxBytes);
      if (memcached) {
        options = options.withMaxStaleness(NearCacheOptions.MAX_MEMCACHED_STALENESS);
      }
      try (AsyncCacheClient<byte[]> near = client(backend, servers, options)) {
        failures += readAll(near, keys, valueBytes, threads, inFlight, "near cache on");
        TimeUnit.SECONDS.sleep(1); // Caffeine's maintenance, on the common pool, evicts what is over
        heaps.add(measure("near cache filled"));
        if (memcached) {
          restartAndReveal(near, fleet.server(0));
        } else {
          // Its notice drops every entry; a sweep frees them.
          ((RedisServer) fleet.server(0)).command("FLUSHALL", "ASYNC");
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        Heap emptied;
        do {
          TimeUnit.MILLISECONDS.sleep(500);
          emptied = measure("near cache emptied");
        } while (emptied.instances(ENTRY_CLASS) > 0 && System.nanoTime() < deadline);
        heaps.add(emptied);
        emptiedBy = near.nearCacheStats().dropAlls();
      }
      boolean within = report(heaps, options, keys, valueBytes, memcached ? "memcached" : "Redis", emptiedBy);
      err.printf("done in %d s%n", secondsSince(started));
      if (failures > 0 || !within) {
        err.println(failures > 0 ? failures + " reads failed or returned a wrong value" : "over the bound");
        System.exit(1);
      }
    }
  }

  /** A client of {@code servers} with a backend of its own; timeouts generous for a loaded 2-core machine. */
  private static AsyncCacheClient<byte[]> client(Supplier<Backend> backend, String servers, NearCacheOptions near) {
    return ShardwiseClient.builder()
        .backend(backend.get())
        .servers(servers)
        .timeout(Duration.ofSeconds(30))
        .codec(Codecs.bytes())
        .nearCache(near)
        .build();
  }

  private static final String KEY_PREFIX = "mem:";

  static String key(int i) {
    return KEY_PREFIX + i;
  }

  /** Value {@code i}: random bytes (not compressible, each key's its own), its index in the first four. */
  static byte[] value(int i, int length) {
    byte[] v = new byte[length];
    new SplittableRandom(i).nextBytes(v);
    v[0] = (byte) (i >>> 24);
    v[1] = (byte) (i >>> 16);
    v[2] = (byte) (i >>> 8);
    v[3] = (byte) i;
    return v;
  }

  private static boolean valid(int i, byte[] v, int length) {
    return v != null && v.length == length && v[0] == (byte) (i >>> 24) && v[1] == (byte) (i >>> 16)
        && v[2] == (byte) (i >>> 8) && v[3] == (byte) i;
  }

  /**
   * Writes every key, in batches of 500, {@value #LOAD_BATCHES} batches under way; the keys of a
   * batch that failed (a timeout, on a loaded machine) are written again, three times at most.
   */
  private static void load(Supplier<Backend> backend, String servers, int keys, int valueBytes) throws Exception {
    try (AsyncCacheClient<byte[]> client = client(backend, servers, NearCacheOptions.off())) {
      Semaphore batches = new Semaphore(LOAD_BATCHES);
      Queue<Integer> again = new ConcurrentLinkedQueue<>();
      List<Integer> pending = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        pending.add(i);
      }
      for (int round = 0; round < 4 && !pending.isEmpty(); round++) {
        for (int from = 0; from < pending.size(); from += 500) {
          Map<String, byte[]> batch = new HashMap<>();
          for (int i : pending.subList(from, Math.min(pending.size(), from + 500))) {
            batch.put(key(i), value(i, valueBytes));
          }
          batches.acquire();
          client.setMulti(batch, Duration.ZERO).whenComplete((r, t) -> {
            for (String k : batch.keySet()) {
              if (t != null || r.errors().containsKey(k)) {
                again.add(Integer.parseInt(k.substring(KEY_PREFIX.length())));
              }
            }
            batches.release();
          });
        }
        batches.acquire(LOAD_BATCHES);
        batches.release(LOAD_BATCHES);
        pending = new ArrayList<>(again);
        again.clear();
        if (!pending.isEmpty()) {
          err.printf("%,d keys of the load failed; writing them again%n", pending.size());
        }
      }
      if (!pending.isEmpty()) {
        throw new IllegalStateException(pending.size() + " keys could not be loaded");
      }
    }
  }

  /**
   * Restarts memcached {@code server} (empty) and sends gets of keys no one wrote to it until
   * {@code near} counts a drop of every entry: spymemcached sees that a connection was closed only
   * when it next uses it, and a lost connection is all that tells memcached's near cache its
   * entries may be stale.
   */
  private static void restartAndReveal(AsyncCacheClient<byte[]> near, ServerHandle server) throws Exception {
    long before = drops(near);
    server.restart();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    for (int i = 0; drops(near) == before; i++) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("no drop of every entry 30 s after " + server + " restarted");
      }
      String probe = "absent:" + i;
      if (near.nodeFor(probe).address().equals(server.address())) {
        try {
          near.get(probe).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
          // The request that meets the closed connection may fail; the next one reconnects.
        }
        TimeUnit.MILLISECONDS.sleep(20);
      }
    }
  }

  /** The drops of every entry {@code near} counted, whatever their cause. */
  private static long drops(AsyncCacheClient<byte[]> near) {
    return near.nearCacheStats().dropAlls().values().stream().mapToLong(Long::longValue).sum();
  }

  /** Reads every key once through {@code client}; returns the reads that failed or were wrong. */
  private static long readAll(AsyncCacheClient<byte[]> client, int keys, int valueBytes, int threads, int inFlight, String what)
      throws Exception {
    long started = System.nanoTime();
    AtomicLong bad = new AtomicLong();
    Semaphore window = new Semaphore(inFlight);
    List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int first = t;
      int step = threads;
      Thread reader = new Thread(() -> {
        for (int i = first; i < keys; i += step) {
          int index = i;
          window.acquireUninterruptibly();
          CompletableFuture<byte[]> read;
          try {
            read = client.get(key(index));
          } catch (RuntimeException e) {
            bad.incrementAndGet();
            window.release();
            continue;
          }
          read.whenComplete((v, e) -> {
            if (e != null || !valid(index, v, valueBytes)) {
              bad.incrementAndGet();
            }
            window.release();
          });
        }
      }, "reader-" + t);
      readers.add(reader);
      reader.start();
    }
    for (Thread reader : readers) {
      reader.join();
    }
    window.acquire(inFlight);
    err.printf("%s: %,d reads in %d s, %d failed or wrong%n", what, keys, secondsSince(started), bad.get());
    return bad.get();
  }

  private static long secondsSince(long nanos) {
    return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - nanos);
  }

  /** The heap now, after full collections. */
  private static Heap measure(String state) throws Exception {
    for (int i = 0; i < 3; i++) {
      System.gc();
      TimeUnit.MILLISECONDS.sleep(100);
    }
    long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    String histogram =
        (String)
            ManagementFactory.getPlatformMBeanServer()
                .invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "gcClassHistogram",
                    new Object[] {new String[0]},
                    new String[] {String[].class.getName()});
    Map<String, long[]> classes = new HashMap<>();
    long live = -1;
    for (String line : histogram.split("\n")) {
      Matcher row = HISTOGRAM_ROW.matcher(line);
      if (row.find()) {
        classes.put(row.group(3), new long[] {Long.parseLong(row.group(1)), Long.parseLong(row.group(2))});
        continue;
      }
      Matcher total = HISTOGRAM_TOTAL.matcher(line);
      if (total.find()) {
        live = Long.parseLong(total.group(2));
      }
    }
    if (live < 0) {
      throw new IllegalStateException("no total in the class histogram: " + histogram.lines().limit(5).toList());
    }
    err.printf("%s: %,d bytes live, %,d used after System.gc()%n", state, live, used);
    return new Heap(state, used, live, classes);
  }

  /** Prints the tables; returns whether the near cache stayed within its bound and fixed parts. */
  private static boolean report(
      List<Heap> heaps, NearCacheOptions options, int keys, int valueBytes, String backend, Map<String, Long> emptiedBy) {
    Heap off = heaps.get(0);
    Heap filled = heaps.get(1);
    Heap emptied = heaps.get(2);
    long entries = filled.instances(ENTRY_CLASS);
    out.printf("%,d keys of %,d bytes (%,d MiB) on 5 local %s servers, read once through the client; near cache bounded at %d MiB, every key admitted%n",
        keys, valueBytes, (long) keys * valueBytes >> 20, backend, options.maxBytes() >> 20);
    out.printf("drops of every entry before \"emptied\", by cause: %s%n%n", emptiedBy);
    out.println("| state | live heap (class histogram) | heap used after System.gc() | near-cache entries |");
    out.println("|---|---|---|---|");
    for (Heap h : heaps) {
      out.printf("| %s | %s | %s | %,d |%n", h.state(), mib(h.live()), mib(h.usedAfterGc()), h.instances(ENTRY_CLASS));
    }
    out.println();
    out.println("| classes whose live bytes changed most | filled - off | filled - emptied | emptied - off |");
    out.println("|---|---|---|---|");
    Map<String, Long> change = new LinkedHashMap<>();
    for (String name : filled.classes().keySet()) {
      change.put(name, bytes(filled, name) - bytes(off, name));
    }
    change.entrySet().stream()
        .sorted(Comparator.comparingLong((Map.Entry<String, Long> e) -> -Math.abs(e.getValue())))
        .limit(12)
        .forEach(e -> out.printf("| %s | %+,d | %+,d | %+,d |%n", e.getKey(), e.getValue(),
            bytes(filled, e.getKey()) - bytes(emptied, e.getKey()), bytes(emptied, e.getKey()) - bytes(off, e.getKey())));
    out.println();
    long total = filled.live() - off.live();
    long entriesOnly = filled.live() - emptied.live();
    long fixed = emptied.live() - off.live();
    double keyChars = averageKeyLength(keys);
    double perEntry = (double) entriesOnly / entries;
    double perEntryAll = (double) total / entries;
    long stated = options.maxBytes() + GENERATIONS_BYTES + (options.hotOnly() ? GENERATIONS_BYTES : 0) + FIXED_BYTES;
    out.printf("| figure | bytes |%n|---|---|%n");
    out.printf("| the near cache in all (filled - off) | %,d (%s) |%n", total, mib(total));
    out.printf("| its entries (filled - emptied) | %,d |%n", entriesOnly);
    out.printf("| what stays when empty (emptied - off): generations, the map's table, Caffeine's sketch and buffers | %,d |%n", fixed);
    out.printf("| per entry (filled - emptied) / entries | %.1f |%n", perEntry);
    out.printf("| per entry, beyond its key's %.1f characters (1 byte each, Latin-1) and its %,d value bytes | %.1f |%n",
        keyChars, valueBytes, perEntry - keyChars - valueBytes);
    out.printf("| per entry with what stays, (filled - off - generations) / entries, beyond key and value | %.1f |%n",
        perEntryAll - (double) GENERATIONS_BYTES / entries - keyChars - valueBytes);
    out.printf("| the weigher's allowance beyond the key's characters and value bytes (a char weighed 2 bytes, + ENTRY_OVERHEAD_BYTES) | %.1f |%n",
        keyChars + NearCacheOptions.ENTRY_OVERHEAD_BYTES);
    out.printf("| the bound: max bytes + generations%s + 1 MiB fixed | %,d (%s) |%n", options.hotOnly() ? " + hot-key sketch" : "", stated, mib(stated));
    boolean within = total <= stated;
    out.printf("%nThe near cache took %s of the %s allowed: %s.%n", mib(total), mib(stated), within ? "within" : "OVER");
    return within;
  }

  private static long bytes(Heap h, String name) {
    return h.classes().getOrDefault(name, new long[2])[1];
  }

  /** The mean length of the keys, all of which pass through the near cache. */
  private static double averageKeyLength(int keys) {
    long chars = 0;
    for (int i = 0; i < keys; i++) {
      chars += key(i).length();
    }
    return (double) chars / keys;
  }

  private static String mib(long bytes) {
    return String.format("%.2f MiB", bytes / 1048576.0);
  }
}
