package io.shardwise.benchmarks.fleet;

import io.shardwise.client.AsyncCacheClient;
import io.shardwise.client.Codecs;
import io.shardwise.core.ShardwiseClient;
import io.shardwise.memcached.MemcachedBackend;
import io.shardwise.redis.RedisBackend;
import io.shardwise.testing.MemcachedServer;
import io.shardwise.testing.RedisServer;
import io.shardwise.testing.ServerFleet;
import io.shardwise.testing.ServerMode;
import java.io.File;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.MemcachedClient;

/**
 * What a client over a fleet of N memcached servers costs to build and keep, Shardwise next to a
 * bare spymemcached {@link MemcachedClient} over the same servers: threads and file descriptors it
 * adds to the JVM, time to build, time until every server is connected, and time to close. Medians
 * over rounds, the two clients alternating which goes first. With {@code --redis N}, also the
 * threads of a Shardwise Redis client over N Redis servers.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.shardwise.benchmarks.fleet.FleetFootprintBenchmark \
 *     --sizes 10,100,200 --rounds 7 --redis 100
 * </pre>
 *
 * <p>"Build" is the time until the constructor or {@code build()} returns: Shardwise's builder
 * waits for every first connection attempt; spymemcached's constructor starts them and returns.
 * "Connected" is the time until every server answers: a ping of every node through Shardwise,
 * {@code getAvailableServers()} holding every server for spymemcached.
 */
public final class FleetFootprintBenchmark {

  private static final PrintStream out = System.out;
  private static final PrintStream err = System.err;

  private FleetFootprintBenchmark() {}

  /** One client's cost in one round. */
  record Sample(int threads, int fds, double buildMs, double connectedMs, double closeMs) {}

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = List.of(10, 100, 200);
    int rounds = 7;
    int redis = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sizes" ->
            sizes = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--redis" -> redis = Integer.parseInt(args[++i]);
        default -> {
          err.println("unknown argument " + args[i]);
          System.exit(2);
        }
      }
    }
    int largest = sizes.stream().mapToInt(Integer::intValue).max().orElse(0);
    err.println("starting " + largest + " memcached servers");
    try (ServerFleet<MemcachedServer> fleet =
        ServerFleet.memcachedBuilder()
            .servers(largest)
            .memoryMegabytes(16)
            .mode(ServerMode.LOCAL)
            .build()
            .start()) {
      warmUp(fleet.servers().subList(0, Math.min(largest, 10)));
      out.println(
          "| servers | Shardwise threads | spymemcached threads | Shardwise fds |"
              + " spymemcached fds | Shardwise build ms | spymemcached build ms |"
              + " Shardwise connected ms | spymemcached connected ms | Shardwise close ms |"
              + " spymemcached close ms |");
      out.println("|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|");
      for (int size : sizes) {
        List<MemcachedServer> servers = fleet.servers().subList(0, size);
        List<Sample> shardwise = new ArrayList<>();
        List<Sample> spymemcached = new ArrayList<>();
        for (int round = 0; round < rounds; round++) {
          if (round % 2 == 0) {
            shardwise.add(shardwise(servers));
            spymemcached.add(spymemcached(servers));
          } else {
            spymemcached.add(spymemcached(servers));
            shardwise.add(shardwise(servers));
          }
          err.printf(
              "%d servers, round %d: Shardwise %s; spymemcached %s%n",
              size, round + 1, last(shardwise), last(spymemcached));
        }
        out.printf(
            "| %d | %d | %d | %d | %d | %.0f | %.0f | %.0f | %.0f | %.1f | %.1f |%n",
            size,
            medianInt(shardwise, Sample::threads),
            medianInt(spymemcached, Sample::threads),
            medianInt(shardwise, Sample::fds),
            medianInt(spymemcached, Sample::fds),
            median(shardwise, Sample::buildMs),
            median(spymemcached, Sample::buildMs),
            median(shardwise, Sample::connectedMs),
            median(spymemcached, Sample::connectedMs),
            median(shardwise, Sample::closeMs),
            median(spymemcached, Sample::closeMs));
      }
    }
    if (redis > 0) {
      redisThreads(redis);
    }
  }

  private static void warmUp(List<MemcachedServer> servers) throws Exception {
    for (int i = 0; i < 3; i++) {
      shardwise(servers);
      spymemcached(servers);
    }
  }

  private static Sample shardwise(List<MemcachedServer> servers) throws Exception {
    String list = servers.stream().map(MemcachedServer::address).collect(Collectors.joining(","));
    Snapshot before = Snapshot.now();
    long start = System.nanoTime();
    AsyncCacheClient<String> client =
        ShardwiseClient.builder()
            .backend(MemcachedBackend.create())
            .servers(list)
            .codec(Codecs.utf8())
            .build();
    long built = System.nanoTime();
    List<CompletableFuture<Duration>> pings = new ArrayList<>(client.pingAll().values());
    for (CompletableFuture<Duration> ping : pings) {
      ping.get(30, TimeUnit.SECONDS);
    }
    long connected = System.nanoTime();
    int threads = before.newThreads();
    int fds = before.newFds();
    long closing = System.nanoTime();
    client.close();
    long closed = System.nanoTime();
    before.awaitThreadsGone();
    return new Sample(
        threads, fds, ms(built - start), ms(connected - start), ms(closed - closing));
  }

  private static Sample spymemcached(List<MemcachedServer> servers) throws Exception {
    List<InetSocketAddress> addresses =
        servers.stream().map(MemcachedServer::socketAddress).collect(Collectors.toList());
    Snapshot before = Snapshot.now();
    long start = System.nanoTime();
    MemcachedClient client =
        new MemcachedClient(
            new ConnectionFactoryBuilder()
                .setProtocol(ConnectionFactoryBuilder.Protocol.TEXT)
                .setDaemon(true)
                .build(),
            addresses);
    long built = System.nanoTime();
    long deadline = built + TimeUnit.SECONDS.toNanos(30);
    while (client.getAvailableServers().size() < servers.size()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("spymemcached did not connect to every server");
      }
      Thread.sleep(0, 200_000);
    }
    long connected = System.nanoTime();
    int threads = before.newThreads();
    int fds = before.newFds();
    long closing = System.nanoTime();
    client.shutdown();
    long closed = System.nanoTime();
    before.awaitThreadsGone();
    return new Sample(
        threads, fds, ms(built - start), ms(connected - start), ms(closed - closing));
  }

  private static void redisThreads(int count) throws Exception {
    err.println("starting " + count + " Redis servers");
    try (ServerFleet<RedisServer> fleet =
        ServerFleet.redisBuilder().servers(count).mode(ServerMode.LOCAL).build().start()) {
      String list =
          fleet.servers().stream().map(RedisServer::address).collect(Collectors.joining(","));
      for (int size : new int[] {10, count}) {
        String servers = String.join(",", Arrays.asList(list.split(",")).subList(0, size));
        Snapshot before = Snapshot.now();
        try (AsyncCacheClient<String> client =
            ShardwiseClient.builder()
                .backend(RedisBackend.create())
                .servers(servers)
                .codec(Codecs.utf8())
                .build()) {
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          for (CompletableFuture<Duration> ping : client.pingAll().values()) {
            while (true) {
              try {
                ping.get(5, TimeUnit.SECONDS);
                break;
              } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                  throw e;
                }
                Thread.sleep(50);
              }
            }
          }
          out.printf(
              "Redis, %d servers: Shardwise client threads %d (%s), fds %d%n",
              size, before.newThreads(), before.newThreadNames(), before.newFds());
        }
        before.awaitThreadsGone();
      }
    }
  }

  private static Sample last(List<Sample> samples) {
    return samples.get(samples.size() - 1);
  }

  private static double ms(long nanos) {
    return nanos / 1e6;
  }

  private static double median(List<Sample> samples, java.util.function.ToDoubleFunction<Sample> f) {
    double[] values = samples.stream().mapToDouble(f).sorted().toArray();
    int n = values.length;
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  private static int medianInt(List<Sample> samples, java.util.function.ToIntFunction<Sample> f) {
    int[] values = samples.stream().mapToInt(f).sorted().toArray();
    return values[values.length / 2];
  }

  /** Live threads and open file descriptors of this JVM at one moment. */
  private static final class Snapshot {
    private final Set<Thread> threads;
    private final int fds;

    private Snapshot(Set<Thread> threads, int fds) {
      this.threads = threads;
      this.fds = fds;
    }

    static Snapshot now() {
      return new Snapshot(liveThreads(), openFds());
    }

    private List<Thread> added() {
      Set<Thread> live = liveThreads();
      live.removeAll(threads);
      return live.stream()
          .filter(t -> !t.getName().startsWith("ForkJoinPool.commonPool"))
          .collect(Collectors.toList());
    }

    int newThreads() {
      return added().size();
    }

    String newThreadNames() {
      return added().stream()
          .map(Thread::getName)
          .map(name -> name.replaceAll("[0-9]+", "N"))
          .sorted()
          .collect(Collectors.groupingBy(n -> n, java.util.TreeMap::new, Collectors.counting()))
          .toString();
    }

    int newFds() {
      return openFds() - fds;
    }

    /** Waits (up to 5 s) until the threads started since this snapshot have ended. */
    void awaitThreadsGone() throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!added().isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
    }

    private static Set<Thread> liveThreads() {
      Set<Thread> live = new HashSet<>(Thread.getAllStackTraces().keySet());
      live.removeIf(t -> !t.isAlive());
      return live;
    }

    private static int openFds() {
      String[] entries = new File("/proc/self/fd").list();
      return entries == null ? -1 : entries.length;
    }
  }

}
